"""The `server` subcommand on the command line, and what the other commands do not pay
for it."""

from __future__ import annotations

import subprocess
import sys

from tests.support.cli import REPO, run_main


def test_server_help() -> None:
    run = run_main("server", "--help")
    assert run.exit_code == 0
    assert run.stdout.startswith("usage: rtlint server [--stdio]")
    assert "docs/editors.md" in run.stdout


def test_server_refuses_unknown_arguments() -> None:
    run = run_main("server", "--port", "9000")
    assert run.exit_code == 2
    assert run.stderr.startswith("rtlint: error: unrecognized arguments: --port 9000")


def test_check_does_not_import_the_language_server() -> None:
    # pygls is a dependency for `rtlint server` alone: a check never loads it
    code = (
        "import sys; from rtlint.cli import main; "
        "code = main(['check', '--no-cache', 'examples/realtime_agent.py']); "
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip().splitlines()[-1] == "1 []", run.stderr
