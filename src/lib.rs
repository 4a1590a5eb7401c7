//! Workspace-level test package; see `tests/`.
