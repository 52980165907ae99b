"""A finding whose fix the editor refuses (CannotFix: statements that share a line, an elif
branch, ...) is not left looking fixable after `--fix` or `--diff`: it loses its `[*]`, and a
warning says which finding was not fixed and why, at its line in the text written."""

from __future__ import annotations

from pathlib import Path

from rtlint.core.findings import Finding
from rtlint.engine.fixer import mark_refused, refusal_keys
from tests.support.cli import run_cli

HEADER = """class Agent{n}:
    def __init__(self, session):
        self._rt_session = session

    async def say(self, text):
"""
ONE_LINE = (
    '        ctx = self._rt_session.chat_ctx.copy(); ctx.add_message(role="user", content=text); '
    "await self._rt_session.update_chat_ctx(ctx)\n"
)
LINES = """        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role="user", content=text)
        await self._rt_session.update_chat_ctx(ctx)
"""


def _write(tmp_path: Path, body: str) -> Path:
    (tmp_path / ".rtlint.toml").write_text('fix-formatter = "none"\n')
    target = tmp_path / "agent.py"
    target.write_text(body)
    return target


def test_a_refused_fix_says_why_and_loses_its_mark(tmp_path: Path) -> None:
    target = _write(tmp_path, HEADER.format(n=1) + ONE_LINE)
    before = target.read_bytes()
    check = run_cli("--no-cache", str(target), cwd=tmp_path)
    assert "[*]" in check.stdout  # the plan exists: only the editor finds it cannot be laid out
    run = run_cli("--no-cache", "--fix", str(target), cwd=tmp_path)
    assert run.exit_code == 1
    assert target.read_bytes() == before
    assert "RTL001" in run.stdout and "[*]" not in run.stdout
    assert "rtlint: warning: agent.py:6:15: RTL001 not fixed: statements share a line" in run.stderr


def test_the_diff_says_it_too(tmp_path: Path) -> None:
    target = _write(tmp_path, HEADER.format(n=1) + ONE_LINE)
    run = run_cli("--no-cache", "--diff", str(target), cwd=tmp_path)
    assert run.stdout == ""  # nothing to change
    assert "agent.py:6:15: RTL001 not fixed: statements share a line" in run.stderr


def test_the_warning_cites_the_line_of_the_fixed_text(tmp_path: Path) -> None:
    # the first class's fix adds `import asyncio` and a lock: the refused finding moves down
    target = _write(tmp_path, HEADER.format(n=1) + LINES + "\n\n" + HEADER.format(n=2) + ONE_LINE)
    run = run_cli("--no-cache", "--fix", str(target), cwd=tmp_path)
    fixed = target.read_text().splitlines()
    assert "async with self._rt_chat_ctx_lock:" in target.read_text()  # the first was fixed
    line = next(i for i, text in enumerate(fixed, 1) if "; ctx.add_message" in text)
    assert line > 15  # moved by the first fix
    assert f"agent.py:{line}:15: RTL001 not fixed: statements share a line" in run.stderr
    assert "Fixed 1 finding" in run.stderr and "[*]" not in run.stdout


def _finding(code: str, symbol: str, line: int) -> Finding:
    return Finding(code, "name", "message", line, 1, line, 2, "a.py", fixable="safe", symbol=symbol)


def test_refusals_are_matched_by_code_symbol_and_rank_not_by_line() -> None:
    first, second, other = (
        _finding("RTL001", "A.say", 5),
        _finding("RTL001", "A.say", 9),
        _finding("RTL002", "A.say", 7),
    )
    refused = {refusal_keys([first, second, other])[id(second)]: "why"}
    # linted again after lines moved: the same findings, at other lines
    moved = [_finding("RTL001", "A.say", 8), _finding("RTL002", "A.say", 10), _finding("RTL001", "A.say", 12)]
    marked = mark_refused(moved, refused)
    assert [(f.line, why) for f, why in marked] == [(12, "why")]
    assert [f.fixable for f in moved] == ["safe", "safe", None]


def test_matching_refusals_is_one_pass_over_the_findings(monkeypatch) -> None:
    # a file with thousands of findings (bench.scaling's) must not pay findings² to match
    # one refusal: each finding's position is read a bounded number of times
    reads = 0
    position = Finding.sort_key

    def counted(self):
        nonlocal reads
        reads += 1
        return position.fget(self)

    findings = [_finding("RTL001", "A.say", line) for line in range(1, 4001)]
    refused = {("RTL001", "A.say", 3999): "why"}
    monkeypatch.setattr(Finding, "sort_key", property(counted))
    marked = mark_refused(findings, refused)
    assert [f.line for f, _ in marked] == [4000]
    assert reads <= 4 * len(findings)
