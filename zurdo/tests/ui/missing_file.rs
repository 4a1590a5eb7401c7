// A PRD that is in neither place the macro looks: both are named.
zurdo::prd!("prds/no_such_prd.md");
