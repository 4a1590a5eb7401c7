// A task heading written with `-` instead of the em-dash fails to compile.
zurdo::prd!("prds/hyphen_heading.md");
