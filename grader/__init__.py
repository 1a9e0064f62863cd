"""Orchestration: the CLI, tasks, the L0/L1/L2 pipeline, sandboxes, editions and statistics."""
