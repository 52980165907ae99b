"""RTL005-RTL007 on published packages, downloaded at test time (never committed):
livekit-memorysync 1.1.1 (its memory write-back), the livekit-agents 1.8.9 wheel (its task
group), and code with no such bug (pipecat-ai 1.14.0, openai-agents 0.24.0; the standard
library is covered by tests/realcode/test_corpora.py, which runs every rule on every file)."""

from __future__ import annotations

import ast
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.source import Source, UnreadableSource
from tests.support import wheels
from tests.support.cli import run_main

APP_CODES = ("RTL005", "RTL006", "RTL007")


def read(path: Path) -> str:
    return Source.from_bytes(path.read_bytes()).text


def findings_of(*paths: Path) -> list[dict]:
    run = run_main("--no-cache", "--format", "json", *map(str, paths))
    assert run.exit_code in (0, 1), run.stderr
    return json.loads(run.stdout)


# -- livekit-memorysync 1.1.1 ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def memorysync() -> Path:
    return wheels.unpacked("livekit-memorysync==1.1.1") / "livekit_memorysync"


def test_memorysync_has_exactly_the_write_back(memorysync: Path) -> None:
    found = findings_of(memorysync)
    assert [(Path(f["path"]).name, f["line"], f["code"]) for f in found] == [("memory.py", 154, "RTL005")]
    (finding,) = found
    assert "agent.update_chat_ctx" in finding["message"] and "`turn_ctx`" in finding["message"]
    assert "await at line 143" in finding["message"]
    assert finding["fix"]["applicability"] == "safe"


def test_memorysync_fix_keeps_the_injection_and_writes_back_a_fresh_copy(memorysync: Path) -> None:
    source = read(memorysync / "memory.py")
    result = fix_source(source, "memory.py")
    assert result.failure is None
    fixed = result.text
    lines = fixed.splitlines()
    # the injection stays in turn_ctx for the current turn, now bound to a name
    assert '                added_message = turn_ctx.add_message(role="assistant", content=content)' in lines
    start = lines.index("                        await agent.update_chat_ctx(fresh_ctx)")
    assert lines[start - 2 : start] == [
        "                        fresh_ctx = agent.chat_ctx.copy()",
        "                        fresh_ctx.items.append(added_message)",
    ]
    # nothing else changed: three lines added, one rewritten
    assert len(lines) == len(source.splitlines()) + 2
    assert [line for line in source.splitlines() if line not in lines] == [
        '                turn_ctx.add_message(role="assistant", content=content)',
        "                        await agent.update_chat_ctx(turn_ctx)",
    ]
    ast.parse(fixed)
    assert check_source(fixed, "memory.py") == []
    assert fix_source(fixed, "memory.py").text == fixed


def test_memorysync_cli_fix_in_place(memorysync: Path, tmp_path: Path) -> None:
    target = tmp_path / "memory.py"
    target.write_bytes((memorysync / "memory.py").read_bytes())
    assert run_main("--no-cache", "--fix", str(target)).exit_code == 0
    assert "fresh_ctx = agent.chat_ctx.copy()" in target.read_text()
    assert run_main("--no-cache", str(target)).exit_code == 0


# -- livekit-agents 1.8.9 --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def agents189() -> list[dict]:
    return findings_of(wheels.unpacked("livekit-agents==1.8.9") / "livekit")


def test_189_wheel_application_findings(agents189: list[dict]) -> None:
    """Every RTL005-RTL007 finding of the whole wheel: the task group's summary write-back,
    and (issue 23, item 1) the fallback adapter's `_swap`, which reads the agent's context,
    closes the old realtime session and replays the read into the new one from
    `_bring_up`: no fix, since without an agent session it replays the old mirror."""
    found = [f for f in agents189 if f["code"] in APP_CODES]
    assert [(f["path"].split("livekit/agents/")[-1], f["line"], f["code"]) for f in found] == [
        ("beta/workflows/task_group.py", 159, "RTL005"),
        ("llm/realtime_fallback_adapter.py", 341, "RTL005"),
    ]
    finding, swap = found
    assert swap["fix"] is None
    assert "`self._agent_session.current_agent.chat_ctx` read (a copy) at line 328" in swap["message"]
    assert "into the realtime session `self._active`" in swap["message"]
    assert "the await at line 361" in swap["message"]  # `await self._active.aclose()`, before `_bring_up`
    assert "not fixable: on another path the pushed context is a read of a realtime session's mirror" in swap["message"]
    assert finding["fix"] is None
    assert "`self.chat_ctx` copied at line 151" in finding["message"]
    assert "not fixable: `_summarize` at line 151 changes the snapshot" in finding["message"]


def test_189_wheel_realtime_findings_unchanged(agents189: list[dict]) -> None:
    realtime = [
        (f["path"].split("livekit/agents/")[-1], f["line"], f["code"]) for f in agents189 if f["code"] not in APP_CODES
    ]
    assert realtime == [
        ("voice/agent_activity.py", 3456, "RTL001"),
        ("voice/agent_activity.py", 4244, "RTL002"),
        ("voice/agent_activity.py", 4755, "RTL003"),
    ]


def test_189_task_group_is_left_unchanged_by_fix() -> None:
    path = wheels.unpacked("livekit-agents==1.8.9") / "livekit" / "agents" / "beta" / "workflows" / "task_group.py"
    source = read(path)
    assert fix_source(source, "task_group.py", unsafe=True).text == source


# -- code with no such bug ---------------------------------------------------------------------------


def _app_findings(path: str) -> list[str]:
    """RTL005-RTL007 findings of one file, every rule run (no pre-filter)."""
    try:
        text = Source.from_bytes(Path(path).read_bytes()).text
    except UnreadableSource:
        return []
    return [f"{path}:{f.line}: {f.code} {f.message}" for f in check_source(text, path) if f.code in APP_CODES]


@pytest.mark.parametrize("requirement", ["pipecat-ai==1.14.0", "openai-agents==0.24.0"])
def test_no_application_findings_on_other_agent_frameworks(requirement: str) -> None:
    root = wheels.unpacked(requirement)
    files = sorted(root.rglob("*.py"))
    assert len(files) > 100
    with ProcessPoolExecutor(max_workers=2) as pool:
        found = [line for lines in pool.map(_app_findings, map(str, files), chunksize=16) for line in lines]
    assert found == [], "false positives:\n" + "\n".join(found)
    # and through the command line, with the pre-filter
    assert [f for f in findings_of(root) if f["code"] in APP_CODES] == []
    print(f"\n{requirement}: {len(files)} files, 0 RTL005-RTL007 findings")
