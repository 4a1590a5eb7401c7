//! [`QualifiedPath`]: a definition's qualified name, or a reference's
//! caller, stored as a link to the path of the scope it extends.
//!
//! A definition nested N scopes deep has N segments. Stored as a
//! `Vec<String>` each, the definitions of N nested functions hold N²/2
//! segments, and the references inside them as many again through their
//! callers: 4,000 nested functions took 1.5 GB. Here a path is its last
//! segment plus a shared link to its enclosing scope's path, so each scope
//! is stored once whatever the depth, and a caller is a reference-counted
//! pointer.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A `::` path, outermost segment first, that shares its prefix with the
/// paths it was extended from ([`QualifiedPath::child`]): cloning one is a
/// pointer copy, and a path N deep costs one segment over its parent's.
///
/// It reads like the `Vec<String>` it replaces: [`len`](Self::len),
/// [`last`](Self::last), [`iter`](Self::iter) (outermost first),
/// [`join`](Self::join), [`starts_with`](Self::starts_with), indexing, and
/// comparison with slices, arrays and vectors of strings. Equality,
/// ordering and hashing are by segments, not by identity.
#[derive(Clone, Default)]
pub struct QualifiedPath {
    last: Option<Arc<Link>>,
}

/// The last segment of a non-empty path, and the path before it.
struct Link {
    parent: QualifiedPath,
    segment: String,
    len: usize,
    /// A hash of every segment, computed once from the parent's: hashing a
    /// path (to count distinct callers) does not walk it.
    digest: u64,
}

impl QualifiedPath {
    /// The empty path (the top level: no caller).
    pub fn new() -> QualifiedPath {
        QualifiedPath::default()
    }

    /// This path with `segment` appended; the two share every segment but
    /// the new one.
    pub fn child(&self, segment: impl Into<String>) -> QualifiedPath {
        let segment = segment.into();
        let mut hasher = DefaultHasher::new();
        self.digest().hash(&mut hasher);
        segment.hash(&mut hasher);
        QualifiedPath {
            last: Some(Arc::new(Link {
                parent: self.clone(),
                segment,
                len: self.len() + 1,
                digest: hasher.finish(),
            })),
        }
    }

    /// The hash of every segment (0 for the empty path).
    fn digest(&self) -> u64 {
        self.last.as_ref().map_or(0, |l| l.digest)
    }

    /// The number of segments.
    pub fn len(&self) -> usize {
        self.last.as_ref().map_or(0, |l| l.len)
    }

    /// True for the empty path.
    pub fn is_empty(&self) -> bool {
        self.last.is_none()
    }

    /// The last (innermost) segment.
    pub fn last(&self) -> Option<&String> {
        self.last.as_deref().map(|l| &l.segment)
    }

    /// The path without its last segment (empty for an empty path).
    pub fn parent(&self) -> QualifiedPath {
        self.last
            .as_ref()
            .map_or_else(QualifiedPath::default, |l| l.parent.clone())
    }

    /// The segments innermost first, each step O(1).
    pub fn rev(&self) -> Rev<'_> {
        Rev {
            next: self.last.as_deref(),
        }
    }

    /// The segments outermost first (collected first: O(len)).
    pub fn iter(&self) -> std::vec::IntoIter<&String> {
        let mut segments: Vec<&String> = self.rev().collect();
        segments.reverse();
        segments.into_iter()
    }

    /// The segment at `index`, outermost first.
    pub fn get(&self, index: usize) -> Option<&String> {
        let from_end = self.len().checked_sub(index)?.checked_sub(1)?;
        self.rev().nth(from_end)
    }

    /// The segments as owned strings, outermost first.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().cloned().collect()
    }

    /// The segments joined with `separator` (`"::"` for a qualified name).
    pub fn join(&self, separator: &str) -> String {
        let segments: Vec<&str> = self.iter().map(String::as_str).collect();
        segments.join(separator)
    }

    /// True when some segment is `segment` (a `&String`, as
    /// `[String]::contains` takes).
    #[allow(clippy::ptr_arg)]
    pub fn contains(&self, segment: &String) -> bool {
        self.rev().any(|s| s == segment)
    }

    /// True when this path's first segments are `prefix`.
    pub fn starts_with(&self, prefix: &[String]) -> bool {
        prefix.len() <= self.len() && self.ancestor(prefix.len()).ends_with(prefix)
    }

    /// True when this path's first segments are those of `prefix` (a scope
    /// and everything nested in it).
    pub fn starts_with_path(&self, prefix: &QualifiedPath) -> bool {
        prefix.len() <= self.len() && self.ancestor(prefix.len()) == prefix
    }

    /// True when this path's last segments are `suffix`.
    pub fn ends_with(&self, suffix: &[String]) -> bool {
        suffix.len() <= self.len() && self.rev().zip(suffix.iter().rev()).all(|(a, b)| a == b)
    }

    /// The prefix of this path `len` segments long (`len` at most
    /// [`len`](Self::len)).
    fn ancestor(&self, len: usize) -> &QualifiedPath {
        let mut current = self;
        while let Some(link) = current.last.as_deref() {
            if link.len <= len {
                break;
            }
            current = &link.parent;
        }
        current
    }
}

/// [`QualifiedPath::rev`]: the segments, innermost first.
pub struct Rev<'a> {
    next: Option<&'a Link>,
}

impl<'a> Iterator for Rev<'a> {
    type Item = &'a String;

    fn next(&mut self) -> Option<&'a String> {
        let link = self.next?;
        self.next = link.parent.last.as_deref();
        Some(&link.segment)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.next.map_or(0, |l| l.len);
        (len, Some(len))
    }
}

impl ExactSizeIterator for Rev<'_> {}

/// Dropping a path N deep frees up to N links; done in a loop, so a deep
/// path cannot overflow the stack with N nested drops.
impl Drop for QualifiedPath {
    fn drop(&mut self) {
        let mut next = self.last.take();
        while let Some(link) = next {
            // `into_inner` yields the link only to the last owner, so a
            // link still shared stops the loop (and concurrent drops never
            // leak one).
            next = Arc::into_inner(link).and_then(|mut l| l.parent.last.take());
        }
    }
}

impl PartialEq for QualifiedPath {
    fn eq(&self, other: &QualifiedPath) -> bool {
        if self.len() != other.len() || self.digest() != other.digest() {
            return false;
        }
        let (mut a, mut b) = (self.last.as_ref(), other.last.as_ref());
        while let (Some(x), Some(y)) = (a, b) {
            if Arc::ptr_eq(x, y) {
                return true;
            }
            if x.segment != y.segment {
                return false;
            }
            a = x.parent.last.as_ref();
            b = y.parent.last.as_ref();
        }
        true
    }
}

impl Eq for QualifiedPath {}

impl<S: AsRef<str>> PartialEq<[S]> for QualifiedPath {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len()
            && self
                .rev()
                .zip(other.iter().rev())
                .all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for QualifiedPath {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for QualifiedPath {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl Ord for QualifiedPath {
    fn cmp(&self, other: &QualifiedPath) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.iter().cmp(other.iter())
    }
}

impl PartialOrd for QualifiedPath {
    fn partial_cmp(&self, other: &QualifiedPath) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// By the digest of the segments, kept in the path: O(1).
impl Hash for QualifiedPath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        self.digest().hash(state);
    }
}

impl fmt::Debug for QualifiedPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::ops::Index<usize> for QualifiedPath {
    type Output = String;

    /// The segment at `index`, outermost first; panics out of bounds, as a
    /// slice does ([`QualifiedPath::get`] does not).
    fn index(&self, index: usize) -> &String {
        match self.get(index) {
            Some(segment) => segment,
            None => panic!(
                "index {index} out of bounds for a path of {} segments",
                self.len()
            ),
        }
    }
}

impl<S: Into<String>> FromIterator<S> for QualifiedPath {
    fn from_iter<I: IntoIterator<Item = S>>(segments: I) -> QualifiedPath {
        segments
            .into_iter()
            .fold(QualifiedPath::new(), |path, s| path.child(s))
    }
}

impl From<Vec<String>> for QualifiedPath {
    fn from(segments: Vec<String>) -> QualifiedPath {
        segments.into_iter().collect()
    }
}

impl From<&[String]> for QualifiedPath {
    fn from(segments: &[String]) -> QualifiedPath {
        segments.iter().cloned().collect()
    }
}

/// Written as the list of its segments (an index entry stores each scope
/// once instead: see [`crate::model::FileIndex`]).
impl Serialize for QualifiedPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for QualifiedPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<QualifiedPath, D::Error> {
        Vec::<String>::deserialize(deserializer).map(QualifiedPath::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> QualifiedPath {
        s.split("::").collect()
    }

    #[test]
    fn a_path_reads_like_the_vector_of_its_segments() {
        let p = path("a::b::c");
        assert_eq!(p.len(), 3);
        assert_eq!(p, ["a", "b", "c"]);
        assert_eq!(p.to_vec(), ["a", "b", "c"]);
        assert_eq!(p.join("::"), "a::b::c");
        assert_eq!(
            (p.last(), p.get(0), p.get(3)),
            (Some(&"c".into()), Some(&"a".into()), None)
        );
        assert_eq!(p[1], "b");
        assert!(p.contains(&"b".into()) && !p.contains(&"d".into()));
        assert!(p.starts_with(&["a".into(), "b".into()]) && !p.starts_with(&["b".into()]));
        assert!(p.ends_with(&["b".into(), "c".into()]) && !p.ends_with(&["a".into()]));
        assert!(p.starts_with_path(&path("a::b")) && !p.starts_with_path(&path("a::c")));
        assert_eq!(p.parent(), ["a", "b"]);
        assert!(QualifiedPath::new().is_empty() && QualifiedPath::new() == Vec::<String>::new());
        assert_eq!(format!("{p:?}"), r#"["a", "b", "c"]"#);
        assert_eq!(
            serde_json::to_string(&p).ok().as_deref(),
            Some(r#"["a","b","c"]"#)
        );
    }

    #[test]
    fn equality_and_order_are_by_segments_not_identity() {
        let shared = path("a::b");
        let (x, y) = (shared.child("c"), path("a::b::c"));
        assert_eq!(x, y);
        assert_eq!(x.cmp(&y), Ordering::Equal);
        assert!(path("a::b") < path("a::b::c") && path("a::c") > path("a::b::c"));
        assert_ne!(path("a::b"), path("a::c"));
        let set: std::collections::HashSet<QualifiedPath> = [x, y].into_iter().collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn a_very_deep_path_drops_on_a_small_stack() {
        let deep = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut p = QualifiedPath::new();
                for i in 0..200_000 {
                    p = p.child(format!("f{i}"));
                }
                let len = p.len();
                drop(p);
                len
            })
            .map(|h| h.join());
        assert!(matches!(deep, Ok(Ok(200_000))));
    }
}
