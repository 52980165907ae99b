"""What the command line promises, shared by `cli` (the entry point) and `commands` (the
work): exit statuses, formats, and the usage error. Imports nothing, so `cli` stays cheap
and neither module imports the other at load time."""

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json", "sarif", "github")
COLORS = ("auto", "always", "never")
ENGINE_ERROR_CODES = {"RTL902"}  # internal errors: exit 2, like a failed fix verification


class UsageError(Exception):
    pass
