//! A small option parser that knows each imitated CLI's option table: which
//! options take a value, which take an optional one and which swallow every
//! following word (Commander's `<dirs...>`, clap's `<FILE>...`), because
//! those are the traps a real command line falls into.

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// None.
    Flag,
    /// Exactly one (`--x v` or `--x=v`).
    Value,
    /// One when the next word does not start with `-`.
    Optional,
    /// Every following word up to the next option; at least one.
    Many,
    /// Every following word up to the next option; maybe none.
    AnyMany,
}

/// One option.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// Its spellings; the last is the key it is stored under.
    pub names: &'static [&'static str],
    /// Its values.
    pub arity: Arity,
    /// The value's placeholder in messages (`<model>`).
    pub meta: &'static str,
    /// Allowed values, when restricted.
    pub choices: &'static [&'static str],
}

impl Opt {
    /// The key it is stored under.
    pub fn key(&self) -> &'static str {
        self.names[self.names.len() - 1]
    }
}

/// A flag.
pub const fn flag(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        arity: Arity::Flag,
        meta: "",
        choices: &[],
    }
}

/// An option with one value.
pub const fn val(names: &'static [&'static str], meta: &'static str) -> Opt {
    Opt {
        names,
        arity: Arity::Value,
        meta,
        choices: &[],
    }
}

/// An option with one value from a list.
pub const fn choice(
    names: &'static [&'static str],
    meta: &'static str,
    choices: &'static [&'static str],
) -> Opt {
    Opt {
        names,
        arity: Arity::Value,
        meta,
        choices,
    }
}

/// An option with an optional value.
pub const fn opt(names: &'static [&'static str], meta: &'static str) -> Opt {
    Opt {
        names,
        arity: Arity::Optional,
        meta,
        choices: &[],
    }
}

/// An option taking one or more values.
pub const fn many(names: &'static [&'static str], meta: &'static str) -> Opt {
    Opt {
        names,
        arity: Arity::Many,
        meta,
        choices: &[],
    }
}

/// An option taking any number of values.
pub const fn any_many(names: &'static [&'static str], meta: &'static str) -> Opt {
    Opt {
        names,
        arity: Arity::AnyMany,
        meta,
        choices: &[],
    }
}

/// What was parsed.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// (key, value) in order; flags have no value.
    pub options: Vec<(&'static str, Option<String>)>,
    /// Words that are not options, in order.
    pub positionals: Vec<String>,
    /// When parsing stopped at the first positional: the words after it.
    pub rest: Vec<String>,
}

impl Parsed {
    /// Whether the option keyed `key` was given.
    pub fn has(&self, key: &str) -> bool {
        self.options.iter().any(|(k, _)| *k == key)
    }

    /// The option's last value.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(k, v)| *k == key && v.is_some())
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value the option got.
    pub fn values(&self, key: &str) -> Vec<&str> {
        self.options
            .iter()
            .filter(|(k, _)| *k == key)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }

    /// Adds another parse's options (a subcommand's parent options).
    pub fn absorb(&mut self, other: Parsed) {
        let mut options = other.options;
        options.append(&mut self.options);
        self.options = options;
    }
}

/// Why parsing failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// An option the CLI does not have.
    Unknown(String),
    /// A value-taking option without its value.
    Missing(Opt),
    /// A value outside the option's choices.
    BadChoice(Opt, String),
}

impl PartialEq for Opt {
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
    }
}

impl Eq for Opt {}

/// How the parser behaves.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mode {
    /// A value may start with `-` (Commander, yargs); clap refuses one.
    pub hyphen_values: bool,
    /// Stop at the first positional, leaving it and the rest in `rest`
    /// (a subcommand).
    pub stop_at_positional: bool,
}

/// Parses `args` against `table`.
pub fn parse(args: &[String], table: &'static [Opt], mode: Mode) -> Result<Parsed, ArgError> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if word == "--" {
            out.positionals.extend(args[i..].iter().cloned());
            break;
        }
        if !word.starts_with('-') || word == "-" {
            if mode.stop_at_positional {
                out.positionals.push(word.clone());
                out.rest = args[i..].to_vec();
                break;
            }
            out.positionals.push(word.clone());
            continue;
        }
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") || n.len() == 2 => (n, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        let Some(spec) = table.iter().find(|o| o.names.contains(&name)) else {
            return Err(ArgError::Unknown(name.to_string()));
        };
        let is_option = |w: &String| w.starts_with('-') && w.len() > 1;
        match spec.arity {
            Arity::Flag => out.options.push((spec.key(), None)),
            Arity::Value => {
                let value = match inline {
                    Some(v) => v,
                    None => match args.get(i) {
                        Some(next) if mode.hyphen_values || !is_option(next) => {
                            i += 1;
                            next.clone()
                        }
                        _ => return Err(ArgError::Missing(*spec)),
                    },
                };
                if !spec.choices.is_empty() && !spec.choices.contains(&value.as_str()) {
                    return Err(ArgError::BadChoice(*spec, value));
                }
                out.options.push((spec.key(), Some(value)));
            }
            Arity::Optional => {
                let value = match inline {
                    Some(v) => Some(v),
                    None => match args.get(i) {
                        Some(next) if !is_option(next) && next != "--" => {
                            i += 1;
                            Some(next.clone())
                        }
                        _ => None,
                    },
                };
                out.options.push((spec.key(), value));
            }
            Arity::Many | Arity::AnyMany => {
                let mut got = 0;
                if let Some(v) = inline {
                    out.options.push((spec.key(), Some(v)));
                    got += 1;
                }
                while let Some(next) = args.get(i) {
                    if is_option(next) || next == "--" {
                        break;
                    }
                    out.options.push((spec.key(), Some(next.clone())));
                    got += 1;
                    i += 1;
                }
                if got == 0 {
                    if spec.arity == Arity::Many {
                        return Err(ArgError::Missing(*spec));
                    }
                    out.options.push((spec.key(), None));
                }
            }
        }
    }
    Ok(out)
}

/// The front of a CLI's `main`, the same for claude, copilot and gemini:
/// parse `args` (options may take hyphen-led values; positionals anywhere),
/// print the CLI's own usage error and exit 2 on a bad command line, and
/// answer `--version` and `--help` with the given texts. `Err` is the exit
/// status to return at once.
pub fn front(
    args: &[String],
    table: &'static [Opt],
    usage_error: impl Fn(&ArgError) -> String,
    version: &str,
    help: &str,
) -> Result<Parsed, u8> {
    let mode = Mode {
        hyphen_values: true,
        stop_at_positional: false,
    };
    let p = parse(args, table, mode).map_err(|e| {
        eprintln!("{}", usage_error(&e));
        2u8
    })?;
    if p.has("--version") {
        println!("{version}");
        return Err(0);
    }
    if p.has("--help") {
        println!("{help}");
        return Err(0);
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[Opt] = &[
        flag(&["-p", "--print"]),
        val(&["--model"], "<model>"),
        choice(&["--output-format"], "<format>", &["text", "json"]),
        opt(&["-r", "--resume"], "[value]"),
        many(&["--add-dir"], "<directories...>"),
    ];

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_flags_and_positionals() {
        let p = parse(
            &words(&["-p", "hi", "--model", "m", "--output-format=json"]),
            TABLE,
            Mode::default(),
        )
        .unwrap();
        assert!(p.has("--print"));
        assert_eq!(p.value("--model"), Some("m"));
        assert_eq!(p.value("--output-format"), Some("json"));
        assert_eq!(p.positionals, ["hi"]);
    }

    #[test]
    fn variadic_options_swallow_the_prompt() {
        let p = parse(
            &words(&["-p", "--add-dir", "/a", "do it"]),
            TABLE,
            Mode::default(),
        )
        .unwrap();
        assert_eq!(p.values("--add-dir"), ["/a", "do it"]);
        assert!(p.positionals.is_empty());
        let p = parse(&words(&["--resume", "x", "-p"]), TABLE, Mode::default()).unwrap();
        assert_eq!(p.value("--resume"), Some("x"));
    }

    #[test]
    fn errors() {
        let e = parse(&words(&["--nope"]), TABLE, Mode::default()).unwrap_err();
        assert_eq!(e, ArgError::Unknown("--nope".into()));
        assert!(matches!(
            parse(&words(&["--model"]), TABLE, Mode::default()),
            Err(ArgError::Missing(_))
        ));
        assert!(matches!(
            parse(
                &words(&["--model", "-p"]),
                TABLE,
                Mode {
                    hyphen_values: false,
                    ..Mode::default()
                }
            ),
            Err(ArgError::Missing(_))
        ));
        assert!(matches!(
            parse(&words(&["--output-format", "xml"]), TABLE, Mode::default()),
            Err(ArgError::BadChoice(_, _))
        ));
    }

    #[test]
    fn stops_at_a_subcommand() {
        let p = parse(
            &words(&["--model", "m", "exec", "--json"]),
            TABLE,
            Mode {
                stop_at_positional: true,
                hyphen_values: true,
            },
        )
        .unwrap();
        assert_eq!(p.positionals, ["exec"]);
        assert_eq!(p.rest, ["--json"]);
    }
}
