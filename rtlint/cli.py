"""The command line: `rtlint [check] [PATH ...]`, `rtlint explain CODE`, `rtlint rules`.

Exit status: 0 nothing left to report, 1 findings remain, 2 usage, configuration or
internal error.
"""

from __future__ import annotations

import _signal  # the builtin: `signal` imports enum, a tenth of a warm run
import os
import sys

from rtlint.commands.usage import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs a warm run ~3 ms

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO, TextIO


def main(
    argv: Sequence[str] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: BinaryIO | None = None,
) -> int:
    """`stdin` is read only by `rtlint check -` (default: the process's standard input)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = list(sys.argv[1:] if argv is None else argv)
    # SIGTERM unwinds like Ctrl-C, so a file being written is finished or cleaned up
    try:
        _signal.signal(_signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread (rtlint used as a library): leave signals alone
        pass
    try:
        if args and args[0] == "explain":
            from rtlint.commands.info import explain

            return explain(args[1:], stdout)
        if args and args[0] == "rules":
            from rtlint.commands.info import rules

            return rules(args[1:], stdout)
        if args and args[0] == "server":
            from rtlint.lsp.server import serve

            return serve(args[1:], stdout)
        return _check_cached(args, stdout, stderr, stdin)
    except UsageError as exc:
        print(f"rtlint: error: {exc}", file=stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        if argv is None:  # the program itself (not a library call): a second signal must not
            _ignore_signals()  # turn the exit into a traceback
        print("rtlint: interrupted", file=stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except OSError as exc:  # the system refused something (a name too long, a closed stream): say what
        from rtlint.report import escape

        what = f"{exc.filename}: " if exc.filename else ""
        print(f"rtlint: error: {escape.text(what + (exc.strerror or str(exc)))}", file=stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug in rtlint: say so, exit 2, keep the traceback short
        import traceback

        from rtlint.report import escape

        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = f"{type(exc).__name__}: {exc} ({where.filename}:{where.lineno})"
        print(f"rtlint: internal error: {escape.text(message)}", file=stderr)
        if os.environ.get("RTLINT_DEBUG"):
            traceback.print_exc(file=stderr)
        return EXIT_ERROR


def _cache_folder(path: str, explicit: str | None) -> str | None:
    """The cache folder the check of `path` will use, by the one resolver of configurations
    (`extend` followed, a refused `cache-dir` an error): None when it is in error (the
    check reports it, and nothing is cached)."""
    from pathlib import Path

    from rtlint.engine import config

    try:
        return str(config.Finder(Path(explicit) if explicit else None).for_path(Path(path)).cache_folder)
    except Exception:  # ConfigError, a registry error, an unreadable file: left to the check
        return None


class Terminated(KeyboardInterrupt):
    """SIGTERM: unwinds like Ctrl-C, exits 143."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def _ignore_signals() -> None:
    for signum in (_signal.SIGINT, _signal.SIGTERM):
        try:
            _signal.signal(signum, _signal.SIG_IGN)
        except ValueError:
            pass


def _check_cached(args: list[str], stdout: TextIO, stderr: TextIO, stdin: BinaryIO | None) -> int:
    """`_check`, replayed from the whole-run cache when none of its inputs changed."""
    from rtlint.cache import runcache

    run = runcache.Run(args, stdout.isatty(), _cache_folder)
    replayed = run.replay()
    if replayed is not None:
        out, err, code = replayed
        stdout.write(out)
        stderr.write(err)
        return code
    if args and args[0] == "check":
        args = args[1:]
    if run.path is None:
        from rtlint.commands.check import check

        return check(args, stdout, stderr, stdin=stdin)
    out, err = runcache.Tee(stdout), runcache.Tee(stderr)
    inputs: dict = {"files": {}, "dirs": {}, "probes": {}}
    from rtlint.commands.check import check

    code = check(args, out, err, inputs)
    if code in (EXIT_CLEAN, EXIT_FINDINGS):
        run.record(inputs, out.value, err.value, code)
    return code
