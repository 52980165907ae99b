"""RTL010 and RTL011 on released provider plugins, downloaded at test time (never committed):
findings where the bug is (livekit-plugins-stepfun 1.8.1.post0, livekit-plugins-openai 1.4.6
for RTL010 and 1.7.0/1.8.0 for RTL011, livekit-agents 1.8.4's OpenAI engine), none after
the upstream fix (livekit-plugins-openai 1.5.0, PR 5114's emit; livekit-agents 1.8.5's
re-send of the unconfirmed item events), none once the same files are fixed by hand as
upstream fixed them, and none on other agent frameworks."""

from __future__ import annotations

import difflib
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.source import Source, UnreadableSource
from tests.support import wheels
from tests.support.cli import run_main

CODES = ["RTL010", "RTL011"]


def read(path: Path) -> str:
    return Source.from_bytes(path.read_bytes()).text


def stepfun() -> Path:
    return wheels.unpacked("livekit-plugins-stepfun==1.8.1.post0") / "livekit" / "plugins" / "stepfun" / "realtime.py"


def openai_plugin(version: str) -> Path:
    root = wheels.unpacked(f"livekit-plugins-openai=={version}")
    return root / "livekit" / "plugins" / "openai" / "realtime" / "realtime_model.py"


def engine(version: str) -> Path:
    return wheels.unpacked(f"livekit-agents=={version}") / "livekit" / "agents" / "llm" / "_realtime" / "openai.py"


def found(text: str, name: str = "realtime.py") -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in check_source(text, name, select=CODES))


def replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# -- RTL010 --------------------------------------------------------------------------------------

STEPFUN_INSERT = """            self._remote_chat_ctx.insert(
                event.previous_item_id, _openai_item_to_livekit_item(event.item)
            )
"""
STEPFUN_ECHO = """            item = _openai_item_to_livekit_item(event.item)
            self._remote_chat_ctx.insert(event.previous_item_id, item)
            self.emit(
                "remote_item_added",
                llm.RemoteItemAddedEvent(previous_item_id=event.previous_item_id, item=item),
            )
"""


def test_stepfun_session_never_echoes() -> None:
    findings = [f for f in check_source(read(stepfun()), "realtime.py", select=CODES) if f.code == "RTL010"]
    assert [(f.line, f.column, f.end_line, f.end_column) for f in findings] == [(338, 1, 338, 22)]
    (finding,) = findings
    assert finding.fixable is None and finding.symbol == "RealtimeSession"
    assert "into self._remote_chat_ctx (_handle_conversion_item_created, line 1233)" in finding.message
    assert "_create_update_chat_ctx_events deletes the diff's removals (line 924)" in finding.message
    assert fix_source(read(stepfun()), "realtime.py", select=["RTL010"], unsafe=True).applied == []


def test_stepfun_with_the_emit_is_not_reported() -> None:
    fixed = replaced(read(stepfun()), STEPFUN_INSERT, STEPFUN_ECHO)
    assert [f for f in found(fixed) if f[1] == "RTL010"] == []


@pytest.mark.parametrize(
    ("version", "expected"),
    [("1.4.6", [(663, "RTL010")]), ("1.5.0", []), ("1.7.0", []), ("1.8.0", [])],
)
def test_openai_plugin_before_and_after_pr_5114(version: str, expected: list) -> None:
    """1.5.0 added the emit of remote_item_added to the handler (PR 5114)."""
    assert [f for f in found(read(openai_plugin(version))) if f[1] == "RTL010"] == expected


# -- RTL011 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "replay", "flag"),
    [
        (lambda: openai_plugin("1.7.0"), 961, 952),
        (lambda: openai_plugin("1.8.0"), 986, 977),
        (lambda: engine("1.8.4"), 1007, 998),
        (stepfun, 437, 430),
    ],
    ids=["openai-1.7.0", "openai-1.8.0", "agents-1.8.4", "stepfun-1.8.1.post0"],
)
def test_reconnect_drops_in_flight_and_tool_calls(path, replay: int, flag: int) -> None:
    findings = [f for f in check_source(read(path()), "realtime.py", select=CODES) if f.code == "RTL011"]
    assert [(f.line, f.column) for f in findings] == [(replay, 27), (replay, 27)]
    flagged, in_flight = sorted(findings, key=lambda f: f.fixable is None)
    assert flagged.fixable == "unsafe" and f"exclude_function_call=True (line {flag})" in flagged.message
    assert in_flight.fixable is None and "outside self._update_chat_ctx_lock" in in_flight.message
    assert "not fixable: re-sending the item events" in in_flight.message
    assert flagged.symbol == in_flight.symbol == "RealtimeSession._main_task._reconnect"


def test_none_after_the_upstream_fix() -> None:
    assert found(read(engine("1.8.5"))) == []


def test_unsafe_fix_of_184_is_185s_change_of_the_copy() -> None:
    before, after = read(engine("1.8.4")), read(engine("1.8.5"))
    result = fix_source(before, "openai.py", select=["RTL011"], unsafe=True)
    assert result.failure is None and [f.line for f in result.applied] == [1007]
    changed = [line for line in difflib.ndiff(before.splitlines(), result.text.splitlines()) if line[:1] in "+-"]
    assert changed == ["- " + " " * 16 + "exclude_function_call=True,"]
    copy = re.compile(r"chat_ctx = self\.chat_ctx\.copy\([^)]*\)")
    assert copy.search(result.text).group() == copy.search(after).group()  # 1.8.5 dropped the same line
    assert [(f.line, f.fixable) for f in result.remaining if f.code == "RTL011"] == [(1006, None)]
    assert fix_source(result.text, "openai.py", select=["RTL011"], unsafe=True).text == result.text


def _resend_by_hand(text: str) -> str:
    """The fix of livekit-agents 1.8.5 written into an older file: no flag, and the item
    events a push sent are kept until confirmed and sent again after the replay."""
    text = re.sub(r"\n +exclude_function_call=True,(?=\n)", "", text, count=1)
    replay = re.search(r"\n( +)events\.extend\(self\._create_update_chat_ctx_events\(chat_ctx\)\)\n", text)
    indent = replay.group(1)
    text = text[: replay.end()] + f"{indent}events.extend(self._unconfirmed.values())\n" + text[replay.end() :]
    push = text.index("async def update_chat_ctx(")
    send = re.compile(r"\n( +)self\.send_event\(ev\)\n").search(text, push)
    line = f"{send.group(1)}self._unconfirmed[ev.event_id] = ev\n"
    return text[: send.end()] + line + text[send.end() :]


@pytest.mark.parametrize("path", [lambda: openai_plugin("1.8.0"), stepfun], ids=["openai-1.8.0", "stepfun"])
def test_none_once_fixed_as_upstream_did(path) -> None:
    text = read(path())
    fixed = _resend_by_hand(text)
    assert fixed.count("\n") == text.count("\n") + 1  # one line out, two in
    assert [f for f in found(fixed) if f[1] == "RTL011"] == []


# -- whole wheels and other frameworks -------------------------------------------------------------


def _cli(*paths: Path) -> list[tuple[str, int, str]]:
    import json

    run = run_main("--no-cache", "--format", "json", "--select", ",".join(CODES), *map(str, paths))
    assert run.exit_code in (0, 1), run.stderr
    return [(f["path"].rsplit("livekit/", 1)[-1], f["line"], f["code"]) for f in json.loads(run.stdout)]


def test_agents_wheels_through_the_command_line() -> None:
    """The whole 1.8.4 wheel (the pre-filter on): the engine's reconnect only; 1.8.5: none."""
    assert _cli(wheels.unpacked("livekit-agents==1.8.4") / "livekit") == [
        ("agents/llm/_realtime/openai.py", 1007, "RTL011"),
        ("agents/llm/_realtime/openai.py", 1007, "RTL011"),
    ]
    assert _cli(wheels.unpacked("livekit-agents==1.8.5") / "livekit") == []


def _plugin_findings(path: str) -> list[str]:
    try:
        text = Source.from_bytes(Path(path).read_bytes()).text
    except UnreadableSource:
        return []
    return [f"{path}:{f.line}: {f.code} {f.message}" for f in check_source(text, path, select=CODES)]


@pytest.mark.parametrize("requirement", ["pipecat-ai==1.14.0", "openai-agents==0.24.0"])
def test_no_findings_on_other_agent_frameworks(requirement: str) -> None:
    files = sorted(wheels.unpacked(requirement).rglob("*.py"))
    assert len(files) > 100
    with ProcessPoolExecutor(max_workers=2) as pool:
        lines = [line for found in pool.map(_plugin_findings, map(str, files), chunksize=16) for line in found]
    assert lines == [], "false positives:\n" + "\n".join(lines)
