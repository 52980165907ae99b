"""The argument parsers of `rtlint check`, `rtlint explain` and `rtlint rules`.

Help and version go to the stream the command was given (not always sys.stdout: rtlint runs
in-process in tests and editors), and a parse error is a UsageError (exit 2, one line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from rtlint import __version__
from rtlint.commands.usage import COLORS, FORMATS, UsageError


class ParserExit(Exception):
    """--help or --version was printed: the command ends with this status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, out: TextIO, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._out = out

    def error(self, message: str) -> None:  # exit 2 with our own prefix, no traceback
        raise UsageError(f"{message}\n{self.format_usage().strip()}")

    def _print_message(self, message: str, file=None) -> None:
        if message:
            (self._out if file is None or file is sys.stdout else file).write(message)

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        # `--add-noqa[=REASON]`, as ruff spells it: the reason only after `=`, so that
        # `--add-noqa src/` still names a path
        args = list(sys.argv[1:] if args is None else args)
        reason = None
        for index, arg in enumerate(args):
            if arg == "--":
                break
            if arg.startswith("--add-noqa="):
                reason, args[index] = arg.split("=", 1)[1], "--add-noqa"
        parsed = super().parse_args(args, namespace)
        if hasattr(parsed, "add_noqa"):
            parsed.noqa_reason = _reason(reason) if reason is not None else ""
        return parsed

    def exit(self, status: int = 0, message: str | None = None) -> None:
        if message:
            self._print_message(message, sys.stderr)
        raise ParserExit(status)


def _reason(value: str) -> str:
    """The reason `--add-noqa=REASON` writes after the codes: one line of text, whose first
    word is not code-like (flake8 would read `X1 legacy` as a code `X1`)."""
    import re

    value = value.strip()
    if any(ord(c) < 32 or ord(c) == 127 for c in value) or "#" in value:
        raise UsageError("--add-noqa=REASON: the reason must be one line of text without '#'")
    if re.match(r"[A-Za-z]+[0-9]+\b", value):
        raise UsageError(f"--add-noqa=REASON: the reason must not start with a code-like word ({value.split()[0]})")
    return value


def _codes(value: str) -> list[str]:
    codes = [c.strip().upper() for c in value.split(",") if c.strip()]
    if not codes:  # `--select=` would run nothing and pass: surely not what was meant
        raise argparse.ArgumentTypeError("expected one or more rule codes")
    return codes


def check_parser(out: TextIO) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rtlint",
        out=out,
        description="Find and fix realtime chat-context concurrency bugs.",
        epilog="Other commands: 'rtlint explain CODE' prints a rule's documentation; 'rtlint rules' lists the "
        "codes; 'rtlint server' is the Language Server for editors (docs/editors.md).",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files and folders to lint (default: .); '-' reads standard input"
    )
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument(
        "--fix", action="store_true", help="apply safe fixes in place ('--fix -': print the fixed source)"
    )
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    fixing.add_argument(
        "--add-noqa",
        action="store_true",
        help="suppress every finding with a '# noqa: CODE' comment (to adopt rtlint); '--add-noqa=REASON' "
        "writes REASON after the codes",
    )
    fixing.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="to adopt rtlint without comments: write FILE with the current findings when it does not exist "
        "(and report none); when it does, report only the findings not in it",
    )
    fixing.add_argument(
        "--show-fixes", action="store_true", help="list per file and code what --fix fixed (or --diff would)"
    )
    fixing.add_argument(
        "--exit-non-zero-on-fix", action="store_true", help="exit 1 when --fix changed a file, even if nothing remains"
    )
    selection = parser.add_argument_group("rules and files")
    selection.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to run")
    selection.add_argument(
        "--ignore", type=_codes, default=[], metavar="CODES", help="comma-separated codes or prefixes not to run"
    )
    selection.add_argument("--config", type=Path, metavar="FILE", help="pyproject.toml or rtlint TOML file to use")
    selection.add_argument(
        "--show-settings",
        type=Path,
        metavar="FILE",
        help="print the settings FILE is linted with and where each came from (its configuration, what that "
        "extends, the command line, the defaults), then exit",
    )
    selection.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the configured excludes to files named on the command line too",
    )
    selection.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="the path of the source read from standard input: its configuration, per-file ignores, "
        "excludes and the path shown (implies '-')",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format",
        "--output-format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text lines (default), a JSON list, SARIF 2.1.0, or GitHub workflow annotations",
    )
    output.add_argument(
        "--output-file",
        "-o",
        type=Path,
        metavar="FILE",
        help="write the report (findings in --format, --statistics, or --diff's diff) to FILE instead of standard "
        "output, never coloured; the summary stays on standard error and the exit status is the same",
    )
    source = output.add_mutually_exclusive_group()
    source.add_argument(
        "--show-source",
        dest="show_source",
        action="store_true",
        default=None,
        help="show each finding's source line (default: when the output is a terminal)",
    )
    source.add_argument("--no-show-source", dest="show_source", action="store_false", help="never show the source line")
    output.add_argument(
        "--color",
        choices=COLORS,
        default="auto",
        help="colour the text output (default auto: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it)",
    )
    output.add_argument("--statistics", action="store_true", help="print a count per code instead of the findings")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even if findings remain")
    output.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    running = parser.add_argument_group("running")
    running.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    running.add_argument("--cache-dir", type=Path, metavar="DIR", help="folder of the cache")
    running.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: the number of CPUs)")
    parser.add_argument("--version", action="version", version=f"rtlint {__version__}")
    return parser


def explain_parser(out: TextIO) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rtlint explain",
        usage="rtlint explain CODE",
        out=out,
        description="Print the documentation page of a rule (what it does, why it is a bug, an example, "
        "the fix, when the fix is unsafe, its configuration) or of an engine code (RTL100, RTL900-RTL902).",
    )
    parser.add_argument(
        "code", metavar="CODE", help="a code (RTL001, case-insensitive) or a rule name (stale-mirror-snapshot)"
    )
    return parser


def rules_parser(out: TextIO) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rtlint rules",
        usage="rtlint rules [--format text|json]",
        out=out,
        description="List every code: the rules (code, name, whether on by default, whether fixable, a summary), "
        "then the engine's codes (RTL100 unused suppressions, RTL900-RTL902 files that cannot be analysed).",
    )
    parser.add_argument(
        "--format",
        "--output-format",
        dest="format",
        choices=("text", "json"),
        default="text",
        help="a table (default), or a JSON list of {code, name, kind, default, fixable, summary, url, options}",
    )
    return parser
