"""The pre-filter decides which rules a file's raw bytes can concern. Its fast form (each
token looked for once per file, shared tokens and substrings first, a pattern searched only
where its substrings are) must decide exactly as the rules' token groups say, read naively.
And a file is read whole, sized by its own stat."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest

from rtlint.engine import runner
from rtlint.engine.config import Config
from rtlint.engine.linter import RuleSet, _occurs
from tests.support.wheels import unpacked


def _naive(rule, raw: bytes) -> bool:
    def occurs(token) -> bool:
        if isinstance(token, str):
            return token.encode() in raw
        if isinstance(token, bytes):
            return token in raw
        if isinstance(token, tuple):
            return token[1].search(raw) is not None  # the substrings are only a hint
        return token.search(raw) is not None

    return all(any(occurs(t) for t in group) for group in rule.required_tokens())


def _corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(stdlib.glob("*.py"))[:150] + sorted((stdlib / "asyncio").glob("*.py"))
    return files + sorted(unpacked("livekit-agents==1.8.8").rglob("*.py"))


def test_fast_prefilter_decides_as_the_token_groups_say() -> None:
    ruleset = RuleSet(Config(root=Path.cwd()).enabled_rules(None), Config(root=Path.cwd()).settings())
    decided = 0
    for path in _corpus():
        raw = path.read_bytes()
        fast = [r.code for r in ruleset.applicable(raw)]
        slow = [r.code for r in ruleset.rules if _naive(r, raw)]
        assert fast == slow, path
        decided += bool(fast)
    assert decided >= 5  # the wheel's files that push (7 in 1.8.8)


def test_a_hinted_pattern_is_searched_only_where_its_substring_is() -> None:
    class Counting:
        def __init__(self) -> None:
            self.searched = 0

        def search(self, raw: bytes):
            self.searched += 1
            return re.search(rb"x\.copy\(\)\.add", raw)

    pattern = Counting()
    assert not _occurs(((b"copy",), pattern), b"nothing here")
    assert pattern.searched == 0
    assert _occurs(((b"copy",), pattern), b"x.copy().add(1)")
    assert not _occurs(((b"copy",), pattern), b"copy but not the shape")
    assert pattern.searched == 2


def test_a_file_is_read_whole_and_the_limit_still_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n" * 1000)
    raw, stamp = runner.read_source(path)
    assert raw == path.read_bytes() and stamp[0] == len(raw)
    monkeypatch.setattr(runner, "MAX_SOURCE", 100)
    with pytest.raises(OSError, match="too large"):
        runner.read_source(path)


def test_the_push_call_pattern_is_linear_on_runs_of_comment_marks() -> None:
    """A `.` before a line of many `#` once made the pre-filter's pattern backtrack
    exponentially (the comment alternative split a run of `#` every way): the stdlib's
    datetime.py never finished. A hang becomes a failure here (SIGALRM)."""
    import signal

    from rules._frameworks.livekit.vocabulary import method_call

    pattern = method_call(("update_chat_ctx", "_update_session"))
    raw = b"x = a." + b"#" * 60 + b"\nb = 1\n" + b"self.  # why\n    update_chat_ctx(ctx)\n"

    def hung(*_):
        raise TimeoutError("the pre-filter pattern backtracks")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        assert pattern.search(b"x = a." + b"#" * 60 + b"\n") is None
        found = pattern.search(raw)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert found is not None and found.group().endswith(b"update_chat_ctx")
