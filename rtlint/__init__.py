"""rtlint: a linter and codemod for realtime chat-context concurrency bugs."""

__version__ = "0.2.2"
