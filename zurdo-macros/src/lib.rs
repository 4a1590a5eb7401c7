//! `zurdo::prd!`: compiles a PRD into a cargo-test harness.
//!
//! ```ignore
//! // tests/prd.rs, with `[[test]] name = "prd" harness = false` in Cargo.toml
//! zurdo::prd!("prds/feature.md");
//! ```
//!
//! At compile time the macro reads the PRD, validates it, and turns each
//! grammar error into a compile error naming `file:line`. The path is looked
//! up relative to the package's `CARGO_MANIFEST_DIR` first and, when no file
//! is there, relative to the directory of the source file that invokes the
//! macro (so a test compiled outside its package, as trybuild does, still
//! finds its PRD). A valid PRD expands to a `main` that hands the embedded
//! text to `zurdo::harness::main` (one libtest-mimic trial per criterion),
//! plus `#[test]` stubs with the same paths so IDE test explorers list the
//! criteria.

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::{Ident, LitStr};
use zurdo_lang::{naming, Prd};

/// Compiles the PRD at the given path into a libtest-mimic harness `main`.
/// Use it once, at the top level of a `harness = false` test target.
///
/// The path is resolved relative to `CARGO_MANIFEST_DIR` first; if no file
/// is there, relative to the directory of the file invoking the macro. When
/// neither exists the compile error names both places tried.
#[proc_macro]
pub fn prd(input: TokenStream) -> TokenStream {
    let lit = match syn::parse::<LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => {
            let message = format!(
                "zurdo::prd!: {e}; write the PRD's path as a string, e.g. zurdo::prd!(\"prds/feature.md\")"
            );
            return failed(vec![message], e.span()).into();
        }
    };
    expand(&lit).into()
}

fn expand(lit: &LitStr) -> TokenStream2 {
    let written = lit.value();
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut path = manifest.join(&written);
    if !path.exists() {
        let beside_caller = proc_macro::Span::call_site()
            .local_file()
            .and_then(|file| Some(file.parent()?.join(&written)))
            .filter(|candidate| candidate.exists());
        match beside_caller {
            Some(candidate) => path = candidate,
            None => return failed(vec![not_found(&written, &path)], lit.span()),
        }
    }
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return failed(
                vec![format!(
                    "zurdo::prd!: cannot read {written} ({}): {e}",
                    path.display()
                )],
                lit.span(),
            )
        }
    };
    let prd = match zurdo_lang::parse_bytes(&bytes) {
        Ok(prd) => prd,
        Err(errors) => {
            return failed(
                errors.iter().map(|e| e.render(&written)).collect(),
                lit.span(),
            )
        }
    };
    let absolute = absolute(&path);
    harness(&prd, &written, &absolute)
}

/// The error for a PRD found in neither place: both paths tried, in order.
fn not_found(written: &str, in_manifest: &Path) -> String {
    let mut message = format!(
        "zurdo::prd!: cannot find the PRD `{written}`; tried\n  {} (relative to CARGO_MANIFEST_DIR)",
        in_manifest.display()
    );
    if let Some(file) = proc_macro::Span::call_site().local_file() {
        let beside = file.parent().unwrap_or(Path::new("")).join(written);
        message.push_str(&format!(
            "\n  {} (relative to {}, the file invoking the macro)",
            beside.display(),
            file.display()
        ));
    }
    message
}

/// One compile error per message, and an empty `main` so rustc adds no
/// "main function not found" noise of its own.
fn failed(messages: Vec<String>, span: Span) -> TokenStream2 {
    let errors = messages
        .iter()
        .map(|m| syn::Error::new(span, m).to_compile_error());
    quote! {
        #(#errors)*
        fn main() {}
    }
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

fn harness(prd: &Prd, written: &str, absolute: &str) -> TokenStream2 {
    let stubs = stubs(prd);
    quote! {
        fn main() -> ::std::process::ExitCode {
            ::zurdo::harness::main(&[::zurdo::harness::Source {
                display: #written,
                path: #absolute,
                text: ::core::include_str!(#absolute),
                module: ::core::option::Option::None,
            }])
        }

        #stubs
    }
}

/// `mod <task> { #[test] fn <criterion>() {} }` for every criterion, so
/// rust-analyzer lists them (rustc drops `#[test]` items in a
/// `harness = false` target; the trials above are what runs).
fn stubs(prd: &Prd) -> TokenStream2 {
    let modules = prd.tasks.iter().map(|task| {
        let module = Ident::new(&naming::task_module(task), Span::call_site());
        let doc = format!("{} — {}", task.id, task.title);
        let fns = task
            .criteria
            .iter()
            .zip(naming::criterion_fns(task))
            .map(|(criterion, name)| {
                let name = Ident::new(&name, Span::call_site());
                let hints: Vec<&str> = criterion.hints.iter().map(|h| h.source.as_str()).collect();
                let doc = format!("{} {}", criterion.title, hints.join(" "));
                quote! {
                    #[doc = #doc]
                    #[test]
                    fn #name() {}
                }
            });
        quote! {
            #[doc = #doc]
            #[allow(dead_code)]
            mod #module {
                #(#fns)*
            }
        }
    });
    quote! { #(#modules)* }
}
