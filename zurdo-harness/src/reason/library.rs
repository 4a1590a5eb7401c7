//! The lesson library: `lessons/lesson-<hash8>.md` files at the repository
//! root, source the user reviews and commits, never state a run edits.
//!
//! A lesson file is a small, strict subset of YAML front matter (the `match`
//! surface, the originating `task` and `prd`, and `created`; read and
//! written by [`super::front_matter`]) followed by a Markdown body. Its id is the first eight hex digits of SHA-256 over the
//! canonical rendering of its `match` block, `"\n"`, and its body, so two
//! identical lessons collapse into one file. Use counts live apart, in
//! `.zurdo/reason/usage.json`, so stamping a use never touches a tracked
//! file.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::front_matter::{self, Entry, FrontMatter, Key, Shape, Value};
use zurdo_base::dir::Dir;
use zurdo_base::files::{read_bounded, Durability};

use super::surface::{Surface, MIN_SCORE};

/// The lesson directory, relative to the repository root.
pub const DIR: &str = "lessons";

/// The use counts, relative to the repository root.
pub const USAGE_PATH: &str = ".zurdo/reason/usage.json";

/// The use counts' file name in `.zurdo/reason/`.
const USAGE_FILE: &str = "usage.json";

/// Most bytes of a lesson file (or the use counts) read: a lesson is a
/// paragraph; a larger file is skipped as unreadable, never read whole.
pub const LESSON_LIMIT: u64 = 1024 * 1024;

const PREFIX: &str = "lesson-";
const SUFFIX: &str = ".md";

/// The components of a `match` block, in their canonical order.
const COMPONENTS: &[&str] = &["hints", "reasons", "commands", "paths"];

/// The front-matter keys of a lesson file: the `match` block, then
/// `task`, `prd` and `created`.
pub const SCHEMA: &[Key] = &[
    Key {
        name: "match",
        shape: Shape::Block(COMPONENTS),
    },
    Key {
        name: "task",
        shape: Shape::Scalar,
    },
    Key {
        name: "prd",
        shape: Shape::Scalar,
    },
    Key {
        name: "created",
        shape: Shape::Scalar,
    },
];

/// One lesson: a match surface and the rule it teaches.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Lesson {
    /// The file stem after `lesson-`; for a lesson zurdo wrote, the first
    /// eight hex digits of its content hash.
    pub id: String,
    /// What the lesson declares, matched against a task or a failure.
    pub surface: Surface,
    /// The Markdown rule, surrounding blank lines trimmed.
    pub body: String,
    /// The task whose recovery taught it.
    pub task: String,
    /// The PRD that task belongs to.
    pub prd: String,
    /// When it was written (RFC 3339), or empty when the file omits it.
    pub created: String,
    /// The file, relative to the repository root
    /// (`lessons/lesson-1a2b3c4d.md`).
    pub path: PathBuf,
}

impl Lesson {
    /// A lesson with its id and path computed from its content (the `match`
    /// surface and the body; never `task`, `prd` or `created`).
    pub fn new(surface: Surface, body: &str, task: &str, prd: &str, created: &str) -> Lesson {
        let body = trim_body(body);
        let mut hasher = Sha256::new();
        hasher.update(match_entry(&surface).render().as_bytes());
        hasher.update(b"\n");
        hasher.update(body.as_bytes());
        let id: String = hasher
            .finalize()
            .iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect();
        Lesson {
            path: Path::new(DIR).join(file_name(&id)),
            id,
            surface,
            body,
            task: task.to_string(),
            prd: prd.to_string(),
            created: created.to_string(),
        }
    }

    /// The file's text: front matter between `---` lines, then the body.
    /// [`Lesson::parse`] reads it back unchanged.
    pub fn render(&self) -> String {
        let mut entries = vec![match_entry(&self.surface)];
        for (key, value) in [
            ("task", &self.task),
            ("prd", &self.prd),
            ("created", &self.created),
        ] {
            entries.push(Entry::new(key, Value::Scalar(value.clone())));
        }
        FrontMatter::new(entries, &self.body).render()
    }

    /// Reads a lesson file. The id is the file stem after `lesson-`, so a
    /// hand-edited lesson keeps its name. Accepts only the syntax
    /// [`Lesson::render`] writes, plus `# comment` and blank lines and
    /// block sequences (`- item` lines); every error names its line.
    pub fn parse(text: &str, path: PathBuf) -> Result<Lesson, String> {
        let front = front_matter::parse(text, SCHEMA).map_err(|e| e.to_string())?;
        let scalar = |key: &str| match front.get(key) {
            Some(Value::Scalar(s)) => Some(s.clone()),
            _ => None,
        };
        let surface = match front.get("match") {
            Some(Value::Block(entries)) => Some(surface_of(entries)),
            _ => None,
        };
        let missing = |key: &str| front.missing(key).to_string();
        let surface = surface.ok_or_else(|| missing("match"))?;
        let task = scalar("task").ok_or_else(|| missing("task"))?;
        let prd = scalar("prd").ok_or_else(|| missing("prd"))?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = stem.strip_prefix(PREFIX).unwrap_or(&stem).to_string();
        Ok(Lesson {
            id,
            surface,
            body: trim_body(&front.body),
            task,
            prd,
            created: scalar("created").unwrap_or_default(),
            path,
        })
    }
}

/// A lesson file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The file, relative to the repository root.
    pub path: PathBuf,
    /// Why it was skipped.
    pub why: String,
}

/// The repository's lessons as loaded from disk.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Library {
    /// Every usable lesson, sorted by file name.
    pub lessons: Vec<Lesson>,
    /// Every lesson file that could not be used.
    pub skipped: Vec<Skipped>,
}

/// What [`Library::add`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Added {
    /// The lesson's id.
    pub id: String,
    /// False when an identical lesson already had the file.
    pub written: bool,
    /// The ids of the lessons deleted to stay within `max_lessons`.
    pub evicted: Vec<String>,
}

impl Library {
    /// Every `lessons/lesson-*.md` under `root`, sorted by file name. A file
    /// that is unreadable, does not parse (an unknown key included),
    /// declares fewer than two components or has an empty body is skipped
    /// and named with its reason. A missing directory is an empty library.
    pub fn load(root: &Path) -> Library {
        let mut library = Library::default();
        let names = match lesson_names(root) {
            Ok(names) => names,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return library,
            Err(e) => {
                library.skipped.push(Skipped {
                    path: PathBuf::from(DIR),
                    why: format!("unreadable: {e}"),
                });
                return library;
            }
        };
        for name in names {
            let path = Path::new(DIR).join(&name);
            match read_lesson(root, &path) {
                Ok(lesson) => library.lessons.push(lesson),
                Err(why) => library.skipped.push(Skipped { path, why }),
            }
        }
        library
    }

    /// The lessons scoring at least [`MIN_SCORE`] against `surface`, with
    /// their scores: best score first, then most uses, then id.
    pub fn matches(&self, surface: &Surface, usage: &Usage) -> Vec<(&Lesson, usize)> {
        let mut found: Vec<(&Lesson, usize)> = self
            .lessons
            .iter()
            .map(|l| (l, l.surface.score(surface)))
            .filter(|&(_, score)| score >= MIN_SCORE)
            .collect();
        found.sort_by(|(a, sa), (b, sb)| {
            sb.cmp(sa)
                .then_with(|| usage.uses(&b.id).cmp(&usage.uses(&a.id)))
                .then_with(|| a.id.cmp(&b.id))
        });
        found
    }

    /// Writes `lesson` to `lessons/lesson-<id>.md` (atomically) unless that
    /// file exists already (`written: false`, nothing evicted). After a
    /// write, while more than `max_lessons` lessons load, deletes one: the
    /// fewest uses first, the oldest `created` among ties (RFC 3339 strings
    /// compare chronologically; an empty one counts as oldest), then the
    /// lowest id; never the lesson just written. A deleted file is tracked
    /// in git, so the user commits the deletion. Refuses, with
    /// [`io::ErrorKind::InvalidInput`], a lesson declaring fewer than two
    /// components, one with an empty body, and an id that is not a plain
    /// file-name word.
    pub fn add(
        root: &Path,
        lesson: &Lesson,
        max_lessons: usize,
        usage: &Usage,
    ) -> io::Result<Added> {
        let declared = lesson.surface.declared();
        if declared < 2 {
            return Err(invalid(format!(
                "the lesson declares {declared} component(s); a lesson needs at least two to ever surface"
            )));
        }
        if lesson.body.trim().is_empty() {
            return Err(invalid("the lesson has an empty body".to_string()));
        }
        let id_ok = !lesson.id.is_empty()
            && lesson
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !id_ok {
            return Err(invalid(format!(
                "the lesson id `{}` is not a plain file-name word",
                lesson.id
            )));
        }
        let path = root.join(DIR).join(file_name(&lesson.id));
        if path.symlink_metadata().is_ok() {
            return Ok(Added {
                id: lesson.id.clone(),
                written: false,
                evicted: Vec::new(),
            });
        }
        // Never through a symlink: `lessons/` is in the working tree, where
        // an agent can plant one.
        Dir::open(root)?.child(DIR, true)?.replace(
            &file_name(&lesson.id),
            lesson.render().as_bytes(),
            Durability::Synced,
        )?;
        let mut lessons = Library::load(root).lessons;
        let mut evicted = Vec::new();
        while lessons.len() > max_lessons {
            let victim = lessons
                .iter()
                .enumerate()
                .filter(|(_, l)| l.id != lesson.id)
                .min_by(|(_, a), (_, b)| {
                    usage
                        .uses(&a.id)
                        .cmp(&usage.uses(&b.id))
                        .then_with(|| a.created.cmp(&b.created))
                        .then_with(|| a.id.cmp(&b.id))
                })
                .map(|(i, _)| i);
            let Some(i) = victim else { break };
            let gone = lessons.remove(i);
            remove_if_present(&root.join(&gone.path))?;
            evicted.push(gone.id);
        }
        Ok(Added {
            id: lesson.id.clone(),
            written: true,
            evicted,
        })
    }
}

/// One lesson's use record.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Use {
    /// How many executor prompts it was injected into.
    #[serde(default)]
    pub uses: u64,
    /// When it was last injected (RFC 3339).
    #[serde(default)]
    pub last_used: String,
}

/// The use counts, `.zurdo/reason/usage.json`: lesson id → [`Use`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Usage {
    /// Lesson id → its use record.
    pub by_id: BTreeMap<String, Use>,
}

impl Usage {
    /// The counts under `root`. A missing or corrupt file is empty: it only
    /// holds counts, which rebuild as lessons are used.
    pub fn load(root: &Path) -> Usage {
        usage_dir(root, false)
            .ok()
            .and_then(|d| d.read(USAGE_FILE, LESSON_LIMIT).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// How many times the lesson was used (0 when never).
    pub fn uses(&self, id: &str) -> u64 {
        self.by_id.get(id).map_or(0, |u| u.uses)
    }

    /// When the lesson was last used, if ever.
    pub fn last_used(&self, id: &str) -> Option<&str> {
        self.by_id
            .get(id)
            .map(|u| u.last_used.as_str())
            .filter(|s| !s.is_empty())
    }

    /// Counts one use of each distinct id in `ids` at `now`.
    pub fn stamp(&mut self, ids: &[String], now: &str) {
        let distinct: BTreeSet<&String> = ids.iter().collect();
        for id in distinct {
            let entry = self.by_id.entry(id.clone()).or_default();
            entry.uses = entry.uses.saturating_add(1);
            entry.last_used = now.to_string();
        }
    }

    /// Writes the counts under `root`, atomically.
    pub fn save(&self, root: &Path) -> io::Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        usage_dir(root, true)?.replace(USAGE_FILE, text.as_bytes(), Durability::Synced)
    }
}

/// Deletes every `lessons/lesson-*.md` and the use counts; returns what it
/// removed, relative to the repository root, lessons first by name.
pub fn clear(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    match lesson_names(root) {
        Ok(names) => {
            for name in names {
                let path = Path::new(DIR).join(&name);
                if root.join(&path).is_dir() {
                    continue;
                }
                if remove_if_present(&root.join(&path))? {
                    removed.push(path);
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if remove_if_present(&root.join(USAGE_PATH))? {
        removed.push(PathBuf::from(USAGE_PATH));
    }
    Ok(removed)
}

fn file_name(id: &str) -> String {
    format!("{PREFIX}{id}{SUFFIX}")
}

/// The sorted names of `lessons/lesson-*.md` entries (UTF-8 names only).
fn lesson_names(root: &Path) -> io::Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(DIR))?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.len() > PREFIX.len() + SUFFIX.len())
        .filter(|n| n.starts_with(PREFIX) && n.ends_with(SUFFIX))
        .collect();
    names.sort();
    Ok(names)
}

/// `.zurdo/reason/`, opened without following a symlink.
fn usage_dir(root: &Path, create: bool) -> io::Result<Dir> {
    Dir::open(root)?.descend(&[".zurdo", "reason"], create)
}

fn read_lesson(root: &Path, path: &Path) -> Result<Lesson, String> {
    let bytes =
        read_bounded(&root.join(path), LESSON_LIMIT).map_err(|e| format!("unreadable: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "unreadable: not UTF-8 text".to_string())?;
    let lesson = Lesson::parse(&text, path.to_path_buf())?;
    let declared = lesson.surface.declared();
    if declared < 2 {
        return Err(format!(
            "declares {declared} component(s); a lesson needs at least two to ever surface"
        ));
    }
    if lesson.body.is_empty() {
        return Err("has an empty body; a lesson needs a rule to tell the agent".to_string());
    }
    Ok(lesson)
}

/// Removes a file; false when it was already gone.
fn remove_if_present(path: &Path) -> io::Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// The body without surrounding blank lines (and with `\n` line ends).
fn trim_body(body: &str) -> String {
    let lines: Vec<&str> = body.lines().skip_while(|l| l.trim().is_empty()).collect();
    lines.join("\n").trim_end().to_string()
}

/// The canonical `match` block: the non-empty components in a fixed order,
/// each a flow sequence of its sorted elements.
fn match_entry(surface: &Surface) -> Entry {
    let entries = COMPONENTS
        .iter()
        .zip([
            &surface.hints,
            &surface.reasons,
            &surface.commands,
            &surface.paths,
        ])
        .filter(|(_, items)| !items.is_empty())
        .map(|(key, items)| Entry::new(key, Value::List(items.iter().cloned().collect())))
        .collect();
    Entry::new("match", Value::Block(entries))
}

/// The surface a parsed `match` block declares.
fn surface_of(entries: &[Entry]) -> Surface {
    let mut surface = Surface::default();
    for entry in entries {
        let items = match entry.key.as_str() {
            "hints" => &mut surface.hints,
            "reasons" => &mut surface.reasons,
            "commands" => &mut surface.commands,
            "paths" => &mut surface.paths,
            _ => continue,
        };
        if let Value::List(list) = &entry.value {
            items.extend(list.iter().cloned());
        }
    }
    surface
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(hints: &[&str], reasons: &[&str], commands: &[&str], paths: &[&str]) -> Surface {
        let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        Surface {
            hints: set(hints),
            reasons: set(reasons),
            commands: set(commands),
            paths: set(paths),
        }
    }

    fn daemon() -> Lesson {
        Lesson::new(
            surface(&["shell", "grep"], &["exit_code"], &["cargo"], &["tests/"]),
            "\n\nStart the daemon with `make dev-up` before `cargo test`; the tests in tests/ talk to it.\n\n",
            "T-003",
            "prds/feature.md",
            "2026-11-30T10:00:00Z",
        )
    }

    fn parse_err(text: &str) -> String {
        match Lesson::parse(text, PathBuf::from("lessons/lesson-x.md")) {
            Ok(lesson) => panic!("parsed: {lesson:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn renders_the_documented_format_and_round_trips() {
        let lesson = daemon();
        assert_eq!(lesson.id.len(), 8);
        assert!(lesson.id.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(
            lesson.path,
            PathBuf::from(format!("lessons/lesson-{}.md", lesson.id))
        );
        let text = lesson.render();
        assert_eq!(
            text,
            "---\nmatch:\n  hints: [grep, shell]\n  reasons: [exit_code]\n  commands: [cargo]\n  paths: [tests/]\ntask: T-003\nprd: prds/feature.md\ncreated: 2026-11-30T10:00:00Z\n---\nStart the daemon with `make dev-up` before `cargo test`; the tests in tests/ talk to it.\n"
        );
        let parsed = Lesson::parse(&text, lesson.path.clone()).expect("parses");
        assert_eq!(parsed, lesson);

        // Values that need quoting, an empty component, an empty `created`.
        let odd = Lesson::new(
            surface(
                &["no-grep", "file exists"],
                &[],
                &["say \"hi\""],
                &["my dir/", "-x/"],
            ),
            "Line one.\n\n    indented code\nlast",
            "T 9: odd",
            "",
            "",
        );
        let text = odd.render();
        assert!(text.contains("prd: \"\"\n"), "{text}");
        assert!(!text.contains("reasons"), "{text}");
        assert_eq!(Lesson::parse(&text, odd.path.clone()), Ok(odd));
    }

    #[test]
    fn id_covers_match_and_body_only() {
        let a = daemon();
        let mut b = Lesson::new(
            a.surface.clone(),
            &a.body,
            "T-999",
            "prds/other.md",
            "2027-01-01T00:00:00Z",
        );
        assert_eq!(a.id, b.id);
        assert_eq!(a.path, b.path);
        b = Lesson::new(
            a.surface.clone(),
            "Another rule.",
            &a.task,
            &a.prd,
            &a.created,
        );
        assert_ne!(a.id, b.id);
        let mut wider = a.surface.clone();
        wider.commands.insert("make".into());
        b = Lesson::new(wider, &a.body, &a.task, &a.prd, &a.created);
        assert_ne!(a.id, b.id);
    }

    #[test]
    fn parse_takes_the_id_from_the_file_name() {
        let text = daemon().render();
        let lesson =
            Lesson::parse(&text, PathBuf::from("lessons/lesson-handmade.md")).expect("parses");
        assert_eq!(lesson.id, "handmade");
    }

    #[test]
    fn missing_keys_are_named() {
        assert!(parse_err("---\nmatch:\ntask: T\n---\n").contains("`prd`"));
        assert!(parse_err("---\ntask: T\nprd: p\n---\n").contains("`match`"));
        assert_eq!(
            parse_err("---\nmatch:\n  hints: [a]\ntask: T\n---\nbody\n"),
            "missing front-matter key `prd` (front matter at lines 1-5)"
        );
    }

    #[test]
    fn block_sequences_comments_and_blank_lines_parse() {
        let text = "---\n# why this lesson exists\nmatch:\n  hints:\n    - shell\n    - \"no-grep\"\n\n  reasons:\n  - exit_code\n  commands: [cargo]\ntask: T-3\nprd: \"prds/a b.md\"\n---\n\nRun `make dev-up` first.\n\n";
        let lesson = Lesson::parse(text, PathBuf::from("lessons/lesson-abc.md")).expect("parses");
        assert_eq!(
            lesson.surface,
            surface(&["shell", "no-grep"], &["exit_code"], &["cargo"], &[])
        );
        assert_eq!(lesson.task, "T-3");
        assert_eq!(lesson.prd, "prds/a b.md");
        assert_eq!(lesson.created, "");
        assert_eq!(lesson.body, "Run `make dev-up` first.");
    }

    fn write(root: &Path, name: &str, text: &str) {
        let dir = root.join(DIR);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(name), text).expect("write");
    }

    #[test]
    fn load_keeps_good_lessons_and_names_bad_ones() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        assert!(Library::load(root).lessons.is_empty());
        assert!(Library::load(root).skipped.is_empty());

        let good = daemon();
        write(root, &format!("lesson-{}.md", good.id), &good.render());
        write(
            root,
            "lesson-aaaa0001.md",
            "---\nmatch:\n  hints: [shell]\n  reasons: [x]\nsource: web\ntask: T\nprd: p\n---\nb\n",
        );
        write(root, "lesson-aaaa0002.md", "no front matter\n");
        write(
            root,
            "lesson-aaaa0003.md",
            "---\nmatch:\n  hints: [shell]\ntask: T\nprd: p\n---\nOne component.\n",
        );
        write(root, "notes.md", "not a lesson\n");
        write(root, "lesson-zzzz.txt", "not a lesson\n");

        let library = Library::load(root);
        assert_eq!(library.lessons, vec![good]);
        let skipped: Vec<(String, &str)> = library
            .skipped
            .iter()
            .map(|s| (s.path.display().to_string(), s.why.as_str()))
            .collect();
        assert_eq!(skipped.len(), 3, "{skipped:?}");
        assert_eq!(skipped[0].0, "lessons/lesson-aaaa0001.md");
        assert!(skipped[0].1.contains("`source`"), "{skipped:?}");
        assert_eq!(skipped[1].0, "lessons/lesson-aaaa0002.md");
        assert!(skipped[1].1.contains("line 1"), "{skipped:?}");
        assert_eq!(skipped[2].0, "lessons/lesson-aaaa0003.md");
        assert!(
            skipped[2].1.contains("declares 1 component(s)"),
            "{skipped:?}"
        );
    }

    #[test]
    fn add_refuses_lessons_that_could_never_surface() {
        let dir = tempfile::tempdir().expect("temp");
        let one = Lesson::new(surface(&["shell"], &[], &[], &[]), "Rule.", "T", "p", "");
        let e = Library::add(dir.path(), &one, 10, &Usage::default()).expect_err("refused");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("1 component(s)"), "{e}");
        let empty = Lesson::new(
            surface(&["shell"], &["exit_code"], &[], &[]),
            "\n \n",
            "T",
            "p",
            "",
        );
        let e = Library::add(dir.path(), &empty, 10, &Usage::default()).expect_err("refused");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(!dir.path().join(DIR).exists());
    }

    #[test]
    fn adding_the_same_lesson_twice_writes_once() {
        let dir = tempfile::tempdir().expect("temp");
        let lesson = daemon();
        let usage = Usage::default();
        let first = Library::add(dir.path(), &lesson, 10, &usage).expect("add");
        assert_eq!(
            first,
            Added {
                id: lesson.id.clone(),
                written: true,
                evicted: vec![]
            }
        );
        let text = std::fs::read_to_string(dir.path().join(&lesson.path)).expect("read");
        assert_eq!(text, lesson.render());
        let again = Lesson::new(
            lesson.surface.clone(),
            &lesson.body,
            "T-7",
            "q.md",
            "2030-01-01T00:00:00Z",
        );
        let second = Library::add(dir.path(), &again, 10, &usage).expect("add");
        assert!(!second.written);
        assert_eq!(second.id, lesson.id);
        let text = std::fs::read_to_string(dir.path().join(&lesson.path)).expect("read");
        assert!(text.contains("task: T-003"), "the first file stays: {text}");
    }

    #[test]
    fn eviction_drops_least_used_then_oldest_and_keeps_the_new_lesson() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        let make = |body: &str, created: &str| {
            Lesson::new(
                surface(&["shell"], &["exit_code"], &[], &[]),
                body,
                "T",
                "p",
                created,
            )
        };
        let used_old = make("Used and oldest.", "2026-01-01T00:00:00Z");
        let unused_older = make("Unused, older.", "2026-02-01T00:00:00Z");
        let unused_newer = make("Unused, newer.", "2026-03-01T00:00:00Z");
        let mut usage = Usage::default();
        usage.stamp(std::slice::from_ref(&used_old.id), "2026-04-01T00:00:00Z");
        for lesson in [&used_old, &unused_older, &unused_newer] {
            let added = Library::add(root, lesson, 10, &usage).expect("add");
            assert!(added.written && added.evicted.is_empty());
        }
        // The newcomer is the oldest and has no uses, and it is still kept.
        let newcomer = make("The newcomer.", "2025-01-01T00:00:00Z");
        let added = Library::add(root, &newcomer, 2, &usage).expect("add");
        assert!(added.written);
        assert_eq!(
            added.evicted,
            vec![unused_older.id.clone(), unused_newer.id.clone()]
        );
        let mut left: Vec<String> = Library::load(root)
            .lessons
            .into_iter()
            .map(|l| l.id)
            .collect();
        left.sort();
        let mut want = vec![used_old.id.clone(), newcomer.id.clone()];
        want.sort();
        assert_eq!(left, want);
        assert!(!root.join(&unused_older.path).exists());
        assert!(!root.join(&unused_newer.path).exists());

        // A limit of zero still keeps the lesson just written.
        let last = make("The last one.", "2026-05-01T00:00:00Z");
        let added = Library::add(root, &last, 0, &usage).expect("add");
        assert_eq!(added.evicted.len(), 2);
        let left: Vec<String> = Library::load(root)
            .lessons
            .into_iter()
            .map(|l| l.id)
            .collect();
        assert_eq!(left, vec![last.id]);
    }

    #[test]
    fn matches_rank_by_score_then_uses_then_id() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        let three = Lesson::new(
            surface(&["shell"], &["exit_code"], &["cargo"], &[]),
            "Three.",
            "T",
            "p",
            "",
        );
        let two_a = Lesson::new(
            surface(&["shell"], &[], &["cargo"], &[]),
            "Two a.",
            "T",
            "p",
            "",
        );
        let two_b = Lesson::new(
            surface(&["shell"], &[], &[], &["tests/"]),
            "Two b.",
            "T",
            "p",
            "",
        );
        let one = Lesson::new(
            surface(&["shell"], &[], &["npm"], &[]),
            "One.",
            "T",
            "p",
            "",
        );
        for l in [&three, &two_a, &two_b, &one] {
            Library::add(root, l, 10, &Usage::default()).expect("add");
        }
        let library = Library::load(root);
        let task = surface(&["shell"], &["exit_code"], &["cargo"], &["tests/api/"]);
        let mut usage = Usage::default();
        usage.stamp(std::slice::from_ref(&two_b.id), "2026-01-01T00:00:00Z");
        let ids: Vec<(&str, usize)> = library
            .matches(&task, &usage)
            .into_iter()
            .map(|(l, s)| (l.id.as_str(), s))
            .collect();
        assert_eq!(
            ids,
            vec![
                (three.id.as_str(), 3),
                (two_b.id.as_str(), 2),
                (two_a.id.as_str(), 2)
            ]
        );
    }

    #[test]
    fn usage_stamps_saves_and_loads() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        assert_eq!(Usage::load(root), Usage::default());
        let mut usage = Usage::default();
        let (a, b) = ("1a2b3c4d".to_string(), "deadbeef".to_string());
        usage.stamp(&[a.clone(), b.clone(), a.clone()], "2026-11-30T10:00:00Z");
        usage.stamp(std::slice::from_ref(&a), "2026-12-01T10:00:00Z");
        assert_eq!(usage.uses(&a), 2);
        assert_eq!(usage.uses(&b), 1);
        assert_eq!(usage.uses("none"), 0);
        assert_eq!(usage.last_used(&a), Some("2026-12-01T10:00:00Z"));
        assert_eq!(usage.last_used("none"), None);
        usage.save(root).expect("save");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(USAGE_PATH)).expect("read"))
                .expect("json");
        assert_eq!(json["1a2b3c4d"]["uses"], 2);
        assert_eq!(json["deadbeef"]["last_used"], "2026-11-30T10:00:00Z");
        assert_eq!(Usage::load(root), usage);

        std::fs::write(root.join(USAGE_PATH), "{ not json").expect("corrupt");
        assert_eq!(Usage::load(root), Usage::default());
    }

    #[test]
    fn clear_removes_lessons_and_usage_only() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        assert_eq!(clear(root).expect("clear"), Vec::<PathBuf>::new());
        let a = daemon();
        let b = Lesson::new(a.surface.clone(), "Another.", "T", "p", "");
        Library::add(root, &a, 10, &Usage::default()).expect("add");
        Library::add(root, &b, 10, &Usage::default()).expect("add");
        let mut usage = Usage::default();
        usage.stamp(std::slice::from_ref(&a.id), &zurdo_base::time::now());
        usage.save(root).expect("save");
        write(root, "README.md", "about lessons\n");

        let removed = clear(root).expect("clear");
        let mut want = vec![a.path.clone(), b.path.clone()];
        want.sort();
        want.push(PathBuf::from(USAGE_PATH));
        assert_eq!(removed, want);
        assert!(Library::load(root).lessons.is_empty());
        assert!(!root.join(USAGE_PATH).exists());
        assert!(root.join(DIR).join("README.md").exists());
        assert_eq!(clear(root).expect("clear"), Vec::<PathBuf>::new());
    }
}
