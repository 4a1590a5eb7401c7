//! No input makes an adapter panic or hang: arbitrary bytes, and real-shaped
//! sources cut and spliced at random, in every language.

use proptest::prelude::*;
use zurdo_lumen::adapters::{index_file, Language};

const SAMPLES: [(Language, &str, &str); 6] = [
    (
        Language::Rust,
        "src/a.rs",
        "pub struct A { x: u8 }\nimpl A { pub fn f(&self) -> u8 { helper(self.x) } }\nfn helper(x: u8) -> u8 { x }\nmod m { pub use super::A as B; macro_rules! z { () => {} } }\n",
    ),
    (
        Language::Python,
        "pkg/a.py",
        "MAX = 3\nclass A(Base):\n    x: int = 0\n    def f(self):\n        return helper(self.x)\n\ndef helper(x):\n    return x\n",
    ),
    (
        Language::Go,
        "a/a.go",
        "package a\ntype A struct { X int }\nfunc (a *A) F() int { return helper(a.X) }\nfunc helper(x int) int { return x }\n",
    ),
    (
        Language::TypeScript,
        "src/a.ts",
        "export interface I { x: number }\nexport class A implements I { x = 0; f() { return helper(this.x) } }\nfunction helper(x: number) { return x }\n",
    ),
    (
        Language::Tsx,
        "src/a.tsx",
        "export function App() { return <Button onClick={() => go()} /> }\nconst go = () => 1;\n",
    ),
    (
        Language::JavaScript,
        "lib/a.js",
        "function add(a, b) { return a + b }\nclass C { s(xs) { return xs.reduce(add, 0) } }\nmodule.exports = { add }\n",
    ),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        for (language, path, _) in SAMPLES {
            let file = index_file(language, path, &bytes);
            prop_assert_eq!(file.language, language.name());
        }
    }

    #[test]
    fn cut_and_spliced_sources(cut in 0usize..400, splice in 0usize..400, junk in "[{}()<>;:\"'`/\\\\ a-z\n]{0,40}") {
        for (language, path, source) in SAMPLES {
            let bytes = source.as_bytes();
            let a = cut.min(bytes.len());
            let b = splice.min(bytes.len());
            let mut mutated = bytes[..a].to_vec();
            mutated.extend_from_slice(junk.as_bytes());
            mutated.extend_from_slice(&bytes[b..]);
            let file = index_file(language, path, &mutated);
            // Every recorded line is inside the file.
            let lines = mutated.iter().filter(|&&c| c == b'\n').count() as u32 + 1;
            for s in &file.symbols {
                prop_assert!(s.line >= 1 && s.line <= lines, "{:?} in {} lines", s, lines);
            }
            for r in &file.references {
                prop_assert!(r.line >= 1 && r.line <= lines, "{:?} in {} lines", r, lines);
            }
        }
    }
}

#[test]
fn the_samples_themselves_index_cleanly() {
    for (language, path, source) in SAMPLES {
        let file = index_file(language, path, source.as_bytes());
        assert!(!file.syntax_errors, "{path}");
        assert!(
            file.symbols
                .iter()
                .any(|s| s.path.last().map(String::as_str) == Some("helper")
                    || s.path.last().map(String::as_str) == Some("add")
                    || s.path.last().map(String::as_str) == Some("App")),
            "{path}: {:?}",
            file.symbols
        );
    }
}
