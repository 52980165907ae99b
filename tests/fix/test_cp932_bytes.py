"""In a file of a legacy encoding, `--fix` re-encodes only the lines it edits (issue 25,
item 12): cp932 has two byte sequences for some characters (the NEC special characters
at 0x8790, `≒`, are also JIS X 0208's 0x81E0), and Python's codec writes back only the
second, so a whole-file decode and encode would change an untouched line."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_untouched_lines_keep_their_bytes_in_a_cp932_file(tmp_path: Path) -> None:
    assert b"\x87\x90".decode("cp932").encode("cp932") == b"\x81\xe0"
    source = (EXAMPLES / "realtime_agent.py").read_text(encoding="utf-8").encode("cp932")
    original = b"# -*- coding: cp932 -*-\n# \x87\x90 kept as written\n" + source
    target = tmp_path / "agent.py"
    target.write_bytes(original)
    run = run_cli("--no-cache", "--fix", str(target))
    fixed = target.read_bytes()
    assert run.exit_code in (0, 1) and fixed != original  # the fixes ran
    assert fixed.startswith(b"# -*- coding: cp932 -*-\n# \x87\x90 kept as written\n")
    assert b"\x81\xe0" not in fixed
