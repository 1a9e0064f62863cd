"""The bad-input error every part of the grader raises (exit 2), in a module of its own so that a command can
raise it without importing what loads tasks."""


class TaskError(ValueError):
    """A suite, task or input file the grader refuses; the message names the file and field."""
