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


def _live_read_pattern(settings) -> re.Pattern[bytes]:
    """Pipecat's live-read alternative as the one pattern it was (main until issue 21's speed
    work): right, but tried at every byte of a file."""
    from rules._frameworks import pipecat

    vocabulary = pipecat.Vocabulary.from_settings(settings)
    calls = [b"get_messages", *(n.encode() for n in sorted(vocabulary.live_calls))]
    names = b"|".join(re.escape(n.encode()) for n in sorted(vocabulary.context_names))
    return re.compile(
        b"|".join(re.escape(c) for c in calls) + rb"|(?:\b(?:" + names + rb")|[Aa]ggregator)\s*\.\s*messages\b"
    )


def test_pipecats_live_read_decides_as_its_pattern_does() -> None:
    """The read alternative is searched from each `.messages` backwards; it must admit exactly
    the files, and the edge cases, the pattern admits."""
    from rules._frameworks import pipecat

    settings = Config(root=Path.cwd()).settings()
    (_hints, fast), slow = pipecat.tokens(settings), _live_read_pattern(settings)
    cases = [
        b"context.messages",
        b"x = self._context .\n  messages[0]",
        b"mycontext.messages",  # not a context name: `\b` before the name
        b"llm_context.messages_x",  # not `messages`: `\b` after it
        b"user_aggregator.messages",
        b"UserAggregator \t. messages",
        b"context.\x0bmessages",
        b"context. # no\nmessages",
        b".messages",
        b"messages = context",
        b"c = ctx.get_messages()",
        b"flow.get_current_context()",
        b"\xc3\xa9context.messages",  # a non-ASCII byte is no word byte
        b"1context.messages",
    ]
    for raw in cases:
        assert (fast.search(raw) is None) == (slow.search(raw) is None), raw
    admitted = 0
    for path in sorted(unpacked("pipecat-ai==1.14.0").rglob("*.py")):
        raw = path.read_bytes()
        assert (fast.search(raw) is None) == (slow.search(raw) is None), path
        admitted += fast.search(raw) is not None
    assert admitted >= 30  # 41 of pipecat-ai 1.14.0's files read a context's messages


def test_rtl007_parses_no_pipecat_file_that_builds_no_changing_frame() -> None:
    """On Pipecat RTL007 reports a changing frame (Append, Update, Transform) built and never
    pushed, or an edit of a copy of the messages: a file that only runs the LLM, or names an
    `LLMContextFrame`, holds nothing for it (eight files of pipecat-ai 1.14.0 were parsed
    for that alone)."""
    ruleset = RuleSet(Config(root=Path.cwd()).enabled_rules(None), Config(root=Path.cwd()).settings())
    runs = (
        b"from pipecat.frames.frames import LLMContextFrame, LLMRunFrame\n"
        b"async def go(task, context):\n    await task.queue_frames([LLMRunFrame(), LLMContextFrame(context)])\n"
    )
    builds = b"from pipecat.frames.frames import LLMMessagesAppendFrame\ndef go(m):\n    LLMMessagesAppendFrame([m])\n"
    assert "RTL007" not in [r.code for r in ruleset.applicable(runs)]
    assert "RTL007" in [r.code for r in ruleset.applicable(builds)]


def test_no_cyclic_collection_runs_while_a_file_is_checked() -> None:
    """A file's tree and index stay alive while its rules run; automatic collections walked
    them again and again. They are off during a lint, and as they were after it."""
    import gc

    from rtlint.engine.linter import lint_text

    seen: list[bool] = []

    class Probe:
        code = "RTL999"

        def check(self, file):
            seen.append(gc.isenabled())
            return iter(())

    settings = Config(root=Path.cwd()).settings()
    assert gc.isenabled()
    assert lint_text("x = 1\n", "a.py", [Probe()], settings) == []
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        lint_text("x = 1\n", "a.py", [Probe()], settings)
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


def test_a_context_parameter_under_any_name_is_admitted_for_its_messages(tmp_path: Path) -> None:
    """The analysis takes `.messages` of a parameter annotated with a context type as the live
    list whatever its name (`ctx: LLMContext`); the pre-filter admitted `.messages` only on the
    configured names, so RTL007 (and RTL008) never saw such a file: `ctx.messages.copy().append(note)`
    was reported by `check_source` and not by `rtlint`. (pipecat-ai 1.14.0: 56 files checked
    before and after.)"""
    from tests.support.cli import run_cli

    ruleset = RuleSet(Config(root=Path.cwd()).enabled_rules(None), Config(root=Path.cwd()).settings())
    head = b"from pipecat.processors.aggregators.llm_context import LLMContext\n\n\n"
    body = b"    ctx.messages.copy().append(note)\n"
    annotated = [b"def remind(ctx: LLMContext, note):\n", b'def remind(ctx: "Optional[LLMContext]", note):\n']
    for signature in annotated:
        assert {"RTL007", "RTL008"} <= {r.code for r in ruleset.applicable(head + signature + body)}, signature
    for signature in [b"def remind(ctx, note):\n", b"def remind(ctx: int, other: LLMContext, note):\n"]:
        assert "RTL007" not in {r.code for r in ruleset.applicable(head + signature + body)}, signature
    sample = tmp_path / "remind.py"
    sample.write_bytes(head + annotated[0] + body)
    run = run_cli("--no-cache", "--select", "RTL007", str(sample), cwd=tmp_path)
    assert run.exit_code == 1 and "remind.py:5:5: RTL007" in run.stdout, run.stdout
