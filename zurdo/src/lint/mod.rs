//! Lints: warnings about criteria that can't fail, can't pass, or can't be
//! trusted. They never make a PRD invalid.

use std::path::Path;

use serde::Serialize;

use crate::model::Prd;

/// One warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lint {
    /// The family name, e.g. `constant-shell`.
    pub family: &'static str,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

/// What the lints may know about where the PRD lives.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintContext<'a> {
    /// The repository root; lints that look at files are skipped without it.
    pub root: Option<&'a Path>,
    /// The PRD's path relative to `root`, `/`-separated.
    pub prd_path: Option<&'a str>,
}

/// Runs every validate-time lint family, sorted by line.
pub fn lint(_prd: &Prd, _ctx: &LintContext<'_>) -> Vec<Lint> {
    Vec::new()
}
