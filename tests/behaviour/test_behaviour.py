"""Behavioural tests: three realtime chat-context bugs of LiveKit Agents 1.8.8
(voice/agent_activity.py), each shown on the pristine file and gone from the file that
`rtlint --fix` produces.

The scenarios (scenarios/) drive LiveKit's real AgentSession and the real OpenAI realtime
engine against a scripted websocket server on 127.0.0.1; these tests only read the JSON
each scenario prints: the server's final conversation, the deletes it received, and the
agent's local context.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import lkenv
import pytest

pytestmark = pytest.mark.behaviour

# Dev only: a file to use as the fixed variant instead of running rtlint (a hand-patched
# copy kept outside the repository), to check the harness while rtlint is being written.
FIXED_FILE_OVERRIDE = "RTLINT_BEHAVIOUR_FIXED_FILE"


def fixed_agent_activity(tmp_path: Path) -> Path:
    """The one place rtlint runs: `rtlint --fix` on a copy of the pristine file."""
    pristine = lkenv.pristine_agent_activity(lkenv.ensure_venv())
    if override := os.environ.get(FIXED_FILE_OVERRIDE):
        return Path(override).resolve()
    copy = tmp_path / "agent_activity.py"
    shutil.copyfile(pristine, copy)
    # RTL003's fix drains the message stream at the interruption: safe only for a stream known
    # to end, which LiveKit's is (the provider closes it when the response is done, cancelled
    # too, and at a reconnection or close; 1.8 reads it through the tee `msg_stream`). A
    # LiveKit user says so in the configuration, as here; without it the fix is unsafe
    (tmp_path / "pyproject.toml").write_text('[tool.rtlint]\nending-streams = ["message_stream", "msg_stream"]\n')
    # rtlint must be installed in this environment (`pip install -e .`): rtlint.rules is
    # mapped from rules/ by the package metadata, so the bare source tree does not import
    proc = subprocess.run(
        [sys.executable, "-m", "rtlint", "--fix", str(copy)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode in (0, 1), f"rtlint --fix failed: {report}"
    # exit 1 also means "findings remain", and a crash exits 1 too: the file must change
    assert copy.read_bytes() != pristine.read_bytes(), f"rtlint --fix changed nothing: {report}"
    return copy


@pytest.fixture(scope="session")
def fixed_variant(lk_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fixed_agent_activity(tmp_path_factory.mktemp("rtlint-fixed"))


@pytest.fixture(scope="session")
def fixed(lk_python: Path, fixed_variant: Path) -> dict:
    """Every scenario's result with agent_activity.py loaded from the fixed variant."""
    return lkenv.run_scenarios(lk_python, fixed_variant, lkenv.SCENARIOS)


# -- helpers ---------------------------------------------------------------------------------


def scenario(run: dict, name: str) -> dict:
    """One scenario's result; a scenario that could not run fails the test, never passes."""
    result = run["scenarios"][name]
    if "error" in result:
        pytest.fail(
            f"scenario {name} did not run to the end: {result['error']}\n"
            f"{result['traceback']}\n--- stderr ---\n{run['stderr_tail']}"
        )
    return result


def server_ids(r: dict) -> list[str]:
    return [i["id"] for i in r["server_items"]]


def local_ids(r: dict) -> list[str]:
    return [i["id"] for i in r["local_items"]]


def user_texts(items: list[dict]) -> list[str]:
    return [i.get("text", "") for i in items if i.get("role") == "user"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the variants --------------------------------------------------------------------------------


def test_scenarios_load_the_variant_under_test(pristine, fixed, pristine_agent_activity, fixed_variant):
    assert Path(pristine["loaded_agent_activity"]) == pristine_agent_activity.resolve()
    assert pristine["loaded_sha256"] == sha256(pristine_agent_activity)
    assert Path(fixed["loaded_agent_activity"]) == fixed_variant.resolve()
    assert fixed["loaded_sha256"] == sha256(fixed_variant)
    assert fixed["loaded_sha256"] != pristine["loaded_sha256"]


# -- issue 7880: stale mirror snapshot (RTL001) and unserialized pushes (RTL004) --------------


@pytest.mark.parametrize("name", ["7880_tool_output", "7880_interrupted_tool_output"])
def test_7880_text_turn_keeps_the_tool_output(pristine, fixed, name):
    """A text turn queued while a tool-output push awaits its ack (agent_activity.py:4850,
    and :4737 for an interrupted generation)."""
    p = scenario(pristine, name)
    (output,) = p["pushed_output"]
    assert p["client_deletes"] == [output], "pristine: the text turn deletes the tool output"
    assert [d["type"] for d in p["server_deleted"]] == ["function_call_output"]
    assert output not in server_ids(p)
    assert output in local_ids(p), "pristine: the local context still has it (divergence)"

    f = scenario(fixed, name)
    (output,) = f["pushed_output"]
    assert f["client_deletes"] == []
    assert output in server_ids(f)
    call_ids = {i["call_id"] for i in f["server_items"] if i["type"] == "function_call"}
    assert {i["call_id"] for i in f["server_items"] if i["type"] == "function_call_output"} == call_ids


def test_7880_replace_then_append(pristine, fixed):
    """PR 7905: AgentActivity.update_chat_ctx pushes an item and awaits its ack; a text
    turn must not snapshot the mirror before that ack."""
    p = scenario(pristine, "7880_replace_then_append")
    assert p["client_deletes"] == [p["pushed_item"]], "pristine: the text turn deletes it"
    assert p["pushed_item"] not in server_ids(p)
    assert p["pushed_item"] in local_ids(p)

    f = scenario(fixed, "7880_replace_then_append")
    assert f["client_deletes"] == []
    assert f["pushed_item"] in server_ids(f)


# -- issue 7906: late local commit (RTL002) ----------------------------------------------------


def test_7906_copy_taken_in_flight_holds_the_user_message(pristine, fixed):
    """agent.chat_ctx copied while the text turn's push is in flight, applied after it
    returned: the copy must hold the user message, or the replacement deletes it."""
    p = scenario(pristine, "7906_copy_in_flight_apply_after")
    assert p["copy_had_user_msg"] is False
    assert p["client_deletes"] == [p["user_msg"]], "pristine: the replacement deletes it"
    assert p["user_msg"] not in server_ids(p)

    f = scenario(fixed, "7906_copy_in_flight_apply_after")
    assert f["copy_had_user_msg"] is True
    assert f["client_deletes"] == []
    assert f["user_msg"] in server_ids(f)
    assert f["user_msg"] in local_ids(f)


@pytest.mark.parametrize("variant", ["pristine", "fixed"])
def test_7906_literal_interleaving_keeps_the_message(request, variant):
    """The issue's literal interleaving (copy and apply at once, while in flight) does not
    lose the message: update_chat_ctx assigns the agent context before it blocks, and the
    late upsert lands in that object. A guard: true before the fix and after."""
    r = scenario(request.getfixturevalue(variant), "7906_copy_and_apply_in_flight")
    assert r["client_deletes"] == []
    assert r["user_msg"] in server_ids(r)
    assert r["user_msg"] in local_ids(r)


@pytest.mark.parametrize("variant", ["pristine", "fixed"])
def test_7906_failed_push_leaves_no_user_message(request, variant):
    """The push raises an unexpected exception: the turn is abandoned, and the local
    context keeps no user message for it (the fix commits before the push, so it must
    remove the message again on that path)."""
    r = scenario(request.getfixturevalue(variant), "7906_push_fails")
    assert r["speech_error"] == "ValueError"
    assert user_texts(r["local_items"]) == []
    assert user_texts(r["server_items"]) == []


# -- never-played message leak (RTL003) ------------------------------------------------------


def test_never_played_message_is_deleted(pristine, fixed):
    """Interrupted after message A played and before B was pulled: B, never heard, must
    be deleted server-side and not linger in the local context."""
    p = scenario(pristine, "never_played_abandoned")
    assert p["b_id"] in server_ids(p), "pristine: B survives server-side"
    assert p["client_deletes"] == []
    assert p["a_id"] in server_ids(p)

    f = scenario(fixed, "never_played_abandoned")
    assert f["client_deletes"] == [f["b_id"]]
    assert f["b_id"] not in server_ids(f)
    assert f["b_id"] not in local_ids(f), "the echoed placeholder of B must go too"
    assert f["a_id"] in server_ids(f)
    assert f["a_id"] in local_ids(f)


def test_cleanup_is_not_undone_by_a_late_tool_output(pristine, fixed):
    """PR 7905: while the cleanup push deleting B awaits its ack, the tool of an earlier
    interrupted generation pushes its output; that push must not re-create B."""
    p = scenario(pristine, "never_played_cleanup_then_late_tool")
    assert p["cleanup_push"] is False, "pristine: no cleanup push at all (the RTL003 guard)"
    assert p["b_id"] in server_ids(p)

    f = scenario(fixed, "never_played_cleanup_then_late_tool")
    assert f["cleanup_push"] is True
    assert f["client_deletes"] == [f["b_id"]]
    assert f["b_creates"] == [], "the late tool output push re-created B"
    assert f["b_id"] not in server_ids(f)
    assert "function_call_output" in [i["type"] for i in f["server_items"]]
