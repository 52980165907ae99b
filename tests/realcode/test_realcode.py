"""The proof on real code: livekit-agents releases, downloaded at test time."""

from __future__ import annotations

import ast
import difflib
import shutil
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.source import Source
from rtlint.engine.config import Config
from tests.support.cli import run_main
from tests.support.wheels import agent_activity


def read(path: Path) -> str:
    return Source.from_bytes(path.read_bytes()).text


@pytest.fixture(scope="module")
def v188() -> str:
    return read(agent_activity("1.8.8"))


# LiveKit's own formatter settings (ruff, line length 100): fixed code is broken to fit them.
# LiveKit closes a generation's `message_stream` when the response is done (cancelled by an
# interruption too), at a reconnection and at close (`_close_current_generation`); 1.8 reads
# it through a tee, `msg_stream`, whose other half it drains itself ("the provider closes both
# streams when it ends the response"). So RTL003's drain of them ends: what a LiveKit user
# says with `ending-streams` to make that fix safe.
STREAMS = ["message_stream", "msg_stream"]
ENDING = '[tool.rtlint]\nending-streams = ["message_stream", "msg_stream"]\n'
LIVEKIT = Config(root=Path.cwd(), line_length=100, options={"ending-streams": STREAMS})


@pytest.fixture(scope="module")
def v188_fixed(v188: str) -> str:
    result = fix_source(v188, "agent_activity.py", config=LIVEKIT)
    assert result.failure is None
    return result.text


def by_code(findings) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for f in findings:
        found.setdefault(f.code, []).append(f.line)
    return found


def test_188_findings_are_exactly_the_known_bugs(v188: str) -> None:
    # snapshots near 4157, 4737, 4850; late commit near 4172; guard near 4689 (design.md)
    assert by_code(check_source(v188, "agent_activity.py")) == {
        "RTL001": [4157, 4737, 4850],
        "RTL002": [4172],
        "RTL003": [4689],
    }


def test_188_messages_name_the_lines(v188: str) -> None:
    messages = {f.line: f.message for f in check_source(v188, "agent_activity.py")}
    assert "update_chat_ctx at line 4160" in messages[4157]
    assert "push at line 4160" in messages[4172]
    assert "cleanup push at line 4691" in messages[4689]


def test_188_fix_parses_converges_and_is_clean(v188: str, v188_fixed: str) -> None:
    ast.parse(v188_fixed)
    assert check_source(v188_fixed, "agent_activity.py") == []
    assert fix_source(v188_fixed, "agent_activity.py").text == v188_fixed


def _self_pushes_under_lock(source: str, class_name: str) -> tuple[int, int]:
    """(pushes of self._rt_session in the class, those inside `async with self._rt_chat_ctx_lock`)."""
    tree = ast.parse(source)
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == class_name)
    parents = {id(c): p for p in ast.walk(cls) for c in ast.iter_child_nodes(p)}
    total = locked = 0
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Await)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "self._rt_session.update_chat_ctx"
        ):
            total += 1
            current = parents.get(id(node))
            while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if isinstance(current, ast.AsyncWith) and any(
                    ast.unparse(i.context_expr) == "self._rt_chat_ctx_lock" for i in current.items
                ):
                    locked += 1
                    break
                current = parents.get(id(current))
    return total, locked


def test_188_fix_puts_all_five_pushes_under_one_lock(v188: str, v188_fixed: str) -> None:
    assert _self_pushes_under_lock(v188, "AgentActivity") == (5, 0)
    assert _self_pushes_under_lock(v188_fixed, "AgentActivity") == (5, 5)
    assert "        self._rt_chat_ctx_lock = asyncio.Lock()\n" in v188_fixed


def test_188_fix_leaves_every_line_outside_the_edits_unchanged(v188: str, v188_fixed: str) -> None:
    before, after = v188.splitlines(keepends=True), v188_fixed.splitlines(keepends=True)
    # the sites of the edits, as line ranges of the original (1-based, inclusive)
    sites = [(797, 797), (4157, 4172), (4537, 4546), (4689, 4691), (4737, 4745), (4850, 4862)]
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            # pure insertions: the lock in __init__, the abandon flag beside message_outputs,
            # the id of a skipped entry where `any_skipped` is set
            assert i1 in (342, 4450, 4655) or any(lo <= i1 <= hi for lo, hi in sites), (i1, after[j1:j2])
            continue
        assert any(lo <= i1 + 1 and i2 <= hi for lo, hi in sites), (tag, i1 + 1, i2)
        # a changed line is the original re-indented (and broken to LiveKit's line length
        # where re-indenting made it too long), or a line the fix adds; only the guard
        # itself is rewritten (RTL003 ORs the abandon flag into it)
        originals = [line for line in before[i1:i2] if "and any_skipped and" not in line]
        region = "".join("".join(after[j1:j2]).split())
        assert all("".join(line.split()) in region for line in originals), (i1 + 1, i2)
        assert max(len(line.rstrip("\n")) for line in after[j1:j2]) <= 100 or any(
            "noqa: E501" in line for line in after[j1:j2]
        )


def test_188_text_turn_commits_before_its_push_and_rolls_back(v188_fixed: str) -> None:
    lines = v188_fixed.splitlines()
    start = next(i for i, line in enumerate(lines) if 'msg = chat_ctx.add_message(role="user"' in line)
    window = "\n".join(lines[start : start + 20])
    assert window.index("self._agent._chat_ctx._upsert_item(msg)") < window.index(
        "await self._rt_session.update_chat_ctx(chat_ctx)"
    )
    assert "self._agent._chat_ctx.remove(msg)" in window
    # the companion event stays after the push
    assert window.index("self._session._conversation_item_added(msg)") > window.index("speech_handle._mark_done")


def test_188_drain_is_unsafe_unless_the_stream_is_known_to_end(v188: str) -> None:
    """Issue 24: the drain was marked safe although the page warns that a stream that never
    ends holds up the cleanup. Unsafe by default, and the message says why and what to set."""
    [guard] = [f for f in check_source(v188, "agent_activity.py") if f.code == "RTL003"]
    assert guard.fixable == "unsafe"
    assert "drains `msg_stream`" in guard.message and "`ending-streams`" in guard.message
    safe = fix_source(v188, "agent_activity.py", config=Config(root=Path.cwd(), line_length=100))
    assert [f.code for f in safe.remaining] == ["RTL003"] and "_rtlint_abandoned" not in safe.text
    unsafe = fix_source(v188, "agent_activity.py", config=Config(root=Path.cwd(), line_length=100), unsafe=True)
    known = fix_source(v188, "agent_activity.py", config=LIVEKIT)
    assert unsafe.text == known.text and "async for _rtlint_abandoned in msg_stream:" in known.text
    [guard] = [f for f in check_source(v188, "agent_activity.py", config=LIVEKIT) if f.code == "RTL003"]
    assert guard.fixable == "safe" and "(fix is unsafe" not in guard.message


def test_188_cli_fix_in_place(tmp_path: Path) -> None:
    target = tmp_path / "agent_activity.py"
    shutil.copy(agent_activity("1.8.8"), target)
    (tmp_path / "pyproject.toml").write_text(ENDING)
    first = run_main("--no-cache", "--fix", str(target))
    assert first.exit_code == 0, first.stderr
    fixed = target.read_bytes()
    assert run_main("--no-cache", "--fix", str(target)).exit_code == 0
    assert target.read_bytes() == fixed
    assert run_main("--no-cache", str(target)).exit_code == 0


def test_189_new_unlocked_snapshot_and_the_remaining_bugs() -> None:
    """1.8.9 added the push lock, but a new spoken-text push copies the mirror outside it."""
    source = read(agent_activity("1.8.9"))
    found = by_code(check_source(source, "agent_activity.py"))
    assert found == {"RTL001": [3456], "RTL002": [4244], "RTL003": [4755]}
    fixed = fix_source(source, "agent_activity.py", config=LIVEKIT)
    assert fixed.failure is None
    assert check_source(fixed.text, "agent_activity.py", config=LIVEKIT) == []
    total, locked = _self_pushes_under_lock(fixed.text, "AgentActivity")
    assert total == locked == 6


def test_188_commit_companions_move_with_the_commit(tmp_path: Path) -> None:
    """`commit-companions` names calls that move with a late commit: both go before the push
    in one edit (two moves to one place once conflicted, and the RTL002 fix was dropped)."""
    target = tmp_path / "agent_activity.py"
    shutil.copy(agent_activity("1.8.8"), target)
    (tmp_path / "pyproject.toml").write_text(ENDING + 'commit-companions = ["_conversation_item_added"]\n')
    run = run_main("--no-cache", "--fix", str(target))
    assert run.exit_code == 0, run.stderr
    lines = target.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if 'msg = chat_ctx.add_message(role="user"' in line)
    window = "\n".join(lines[start : start + 20])
    push = window.index("await self._rt_session.update_chat_ctx(chat_ctx)")
    assert (
        window.index("self._agent._chat_ctx._upsert_item(msg)")
        < window.index("self._session._conversation_item_added(msg)")
        < push
    )
    assert not [f for f in check_source(target.read_text(), str(target)) if f.code == "RTL002"]
