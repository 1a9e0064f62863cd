"""The append-only SQL ledger (its own issue builds it); it never imports `grader` or `engine`."""
