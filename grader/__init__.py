"""mlmem's autograder: builds a submission from pristine tests plus the files a lab declares
editable, runs its Check tests and benchmark under limits, and scores them per lab.toml."""
