// The argument must be a string literal.
zurdo::prd!(prds::feature);
