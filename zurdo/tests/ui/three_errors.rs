// Three different grammar errors: three diagnostics, each naming file:line,
// and nothing else (no "main function not found").
zurdo::prd!("prds/three_errors.md");
