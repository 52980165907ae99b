"""Behavioural tests of the rules on Pipecat (RTL005, RTL006, RTL008): application modules
(apps/pipecat_*.py) run in Pipecat 1.14.0's real pipeline (its LLMContextAggregatorPair,
Pipeline, PipelineWorker and frames, a scripted LLM service), as a Pipecat user wrote them,
as fixed by hand from design.md's fix text (apps/handfixed/), and as `rtlint --fix` rewrites
them. Each scenario loses a message on the pristine code: the tests say which, and that the
fixed code keeps it.

- RTL005, a direct write: a memory processor copies the context, awaits a recall and writes
  the copy back; the user turn committed meanwhile is gone (apps/pipecat_memory.py).
- RTL005, the same with a prepend (`insert(0, note)`), fixed by a `transform_messages` that
  puts the note first on the live list (apps/pipecat_memory_prepend.py).
- RTL005, a frame write: a tool hands the call over by an Update frame built from a copy,
  before the assistant aggregator has recorded the tool call; the Update erases the call
  and its result (apps/pipecat_handover.py).
- RTL005, `copy + [new]` as an Update while an Append is queued: the Append's message is
  gone (apps/pipecat_greeting.py).
- RTL008: a save tool pops the request from what it takes for its own list, which is the
  live one (apps/pipecat_save.py).
- RTL006: a detached Append overtaken by an LLMRunFrame at the start of the call: the
  greeting is generated without it (apps/pipecat_intro.py). The same detached push in the
  middle of a call (apps/pipecat_keypad.py) loses nothing: the LLMContextFrame carries the
  live context and the completion reads it after the Append has landed. A guard, true
  before the fix and after.
- RTL009: a processor placed after the assistant aggregator pushes an Append downstream
  (push_frame's default) when the caller presses 0: it reaches the worker's sink and is
  dropped, the note and the completion it asks for never happen (apps/pipecat_operator.py,
  which builds its own pipeline, as the rule reads it).
- Not a finding: the memory processor editing the live list (apps/pipecat_memory_live.py)
  keeps the turn, and rtlint must leave it alone.

The hand-fixed variant checks the harness itself (the scenario keeps the message when the
code is right); the rtlint-fixed one checks rtlint, and must behave as the hand-fixed one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
from pathlib import Path

import pcenv
import pytest
from pcenv import APP_TABLE, App
from venvs import BuildError

from tests.support.cli import run_cli

pytestmark = pytest.mark.behaviour


def until_merged(app: App) -> pytest.MarkDecorator:
    # the rules for Pipecat are written on another branch (issue 21): remove at merge
    return pytest.mark.xfail(
        strict=True,
        reason=f"{app.code} on Pipecat is not on this branch yet (issue 21, branch pipecat): "
        "rtlint reports and fixes nothing in this file",
    )


MERGED = {"RTL005", "RTL006", "RTL008", "RTL009"}  # the rules on Pipecat this branch has


def each_app(*, buggy: bool, pending: bool = False) -> list:
    """The apps that have a bug (buggy) or are correct as written, as test parameters."""
    return [
        pytest.param(
            app, id=app.file.removesuffix(".py"), marks=until_merged(app) if pending and app.code not in MERGED else ()
        )
        for app in APP_TABLE
        if (app.code is not None) == buggy
    ]


BUGGY = [app for app in APP_TABLE if app.code is not None]
RULES = ["RTL005", "RTL006", "RTL007", "RTL008", "RTL009"]  # the rules for application code


# -- the variants --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pc_python() -> Path:
    """The python of the cached pipecat-ai venv; a failed build fails the tests."""
    try:
        return pcenv.ensure_venv()
    except pcenv.UnsupportedPython as e:
        pytest.skip(str(e))
    except BuildError as e:
        pytest.fail(f"cannot build the pipecat-ai venv: {e}", pytrace=False)


def _run(python: Path, files: dict[App, Path]) -> dict:
    run = pcenv.run_apps(python, files)
    expected = {app.module: file.resolve() for app, file in files.items()}
    assert run["modules"] == {name: str(file) for name, file in expected.items()}, (
        "a scenario ran another module than the variant under test"
    )
    assert run["module_sha256"] == {name: hashlib.sha256(f.read_bytes()).hexdigest() for name, f in expected.items()}
    return run


@pytest.fixture(scope="session")
def pristine(pc_python: Path) -> dict:
    return _run(pc_python, {app: app.pristine for app in APP_TABLE})


@pytest.fixture(scope="session")
def handfixed(pc_python: Path) -> dict:
    return _run(pc_python, {app: app.handfixed for app in BUGGY})


def _findings(file: Path) -> list[dict]:
    run = run_cli("--no-cache", "--format", "json", str(file), cwd=file.parent)
    assert run.exit_code in (0, 1), f"rtlint failed on {file.name}: exit {run.exit_code}\n{run.stderr}"
    return json.loads(run.stdout)


@pytest.fixture(scope="session")
def rtlint_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[App, dict]:
    """Per app, on a copy of the pristine file: rtlint's findings, `rtlint --fix` (with the
    app's fix arguments), and the findings on what it wrote."""
    folder = tmp_path_factory.mktemp("rtlint-pipecat-apps")
    out = {}
    for app in APP_TABLE:
        copy = shutil.copyfile(app.pristine, folder / app.file)
        before = _findings(copy)
        fix = run_cli("--no-cache", "--fix", *app.fix_args, str(copy), cwd=folder)
        changed = copy.read_bytes() != app.pristine.read_bytes()
        out[app] = {
            "file": copy,
            "findings": before,
            "fix": fix,
            "changed": changed,
            "after": _findings(copy) if changed else before,
        }
    return out


@pytest.fixture(scope="session")
def rtlint_fixed(pc_python: Path, rtlint_runs: dict[App, dict]) -> dict:
    """Every scenario's result on the files `rtlint --fix` changed (the others are not run)."""
    changed = {app: r["file"] for app, r in rtlint_runs.items() if r["changed"]}
    return _run(pc_python, changed) if changed else {"scenarios": {}, "stderr_tail": ""}


def scenario(run: dict, app: App) -> dict:
    """One scenario's result; a scenario that could not run fails the test, never passes."""
    if app.scenario not in run["scenarios"]:
        pytest.fail(f"{app.scenario} did not run on this variant (rtlint --fix did not change {app.file})")
    result = run["scenarios"][app.scenario]
    if "error" in result:
        pytest.fail(
            f"scenario {app.scenario} did not run to the end: {result['error']}\n"
            f"{result['traceback']}\n--- stderr ---\n{run['stderr_tail']}"
        )
    return result


# -- what each scenario loses, and keeps when the code is fixed ---------------------------------


def contents(messages: list[dict]) -> list:
    return [m.get("content") for m in messages]


def lost_memory(r: dict) -> None:
    _, party = r["said"]
    assert party in r["committed_during_recall"], "the user aggregator commits the turn during the recall"
    assert party not in contents(r["messages"]), "pristine: the write-back of the copy deleted the user's turn"
    assert all(party not in contents(request) for request in r["requests"]), "no completion saw it"
    _memory_is_there(r)


def kept_memory(r: dict) -> None:
    booking, party = r["said"]
    assert party in r["committed_during_recall"]
    assert contents(r["messages"])[1:3] == [booking, party]
    assert party in contents(r["requests"][-1])
    _memory_is_there(r)


def kept_prepended_memory(r: dict) -> None:
    booking, party = r["said"]
    assert party in r["committed_during_recall"]
    messages = contents(r["messages"])
    notes = len(list(itertools.takewhile(lambda c: r["memory"] in (c or ""), messages)))
    assert notes >= 1, "the recalled notes are first, as the processor put them (one per completion)"
    assert messages[notes + 1 : notes + 3] == [booking, party], "then the system prompt and both user turns"
    assert party in contents(r["requests"][-1])
    _memory_is_there(r)


def _memory_is_there(r: dict) -> None:
    # the processor's own edit lands in both: the recall's note is in the context and the requests
    notes = [c for c in contents(r["messages"]) if r["memory"] in (c or "")]
    assert notes and all(any(r["memory"] in (c or "") for c in contents(q)) for q in r["requests"])


def _tool_messages(messages: list[dict]) -> list[dict]:
    return [m for m in messages if m.get("tool_calls") or m.get("role") == "tool"]


def lost_handover(r: dict) -> None:
    assert contents(r["messages"])[0] == r["billing_prompt"], "the handover itself happened"
    assert _tool_messages(r["messages"]) == [], "pristine: the Update erased the tool call and its result"
    assert _tool_messages(r["requests"][-1]) == [], "the completion after the tool ran without them"


def kept_handover(r: dict) -> None:
    assert contents(r["messages"])[0] == r["billing_prompt"]
    call, result = _tool_messages(r["messages"])
    assert [c["function"]["name"] for c in call["tool_calls"]] == ["transfer_to_billing"]
    assert result["tool_call_id"] == call["tool_calls"][0]["id"]
    assert json.loads(result["content"]) == {"transferred": True}
    assert _tool_messages(r["requests"][-1]) == [call, result]


def lost_greeting(r: dict) -> None:
    assert r["profile"] not in r["context_when_greeting"], "the Append was still queued when the Update was built"
    assert r["profile"] not in contents(r["messages"]), "pristine: the Update replaced the context without it"
    assert r["profile"] not in contents(r["requests"][-1]), "the greeting was generated without it"


def kept_greeting(r: dict) -> None:
    assert r["profile"] not in r["context_when_greeting"]
    greeting = contents(r["requests"][-1])
    assert r["profile"] in greeting and greeting.index(r["profile"]) == len(greeting) - 2, "then the instruction"
    assert r["profile"] in contents(r["messages"])


def lost_save(r: dict) -> None:
    assert r["request"] not in contents(r["messages"]), "pristine: the pop deleted the user's request from the context"
    assert r["request"] in contents(r["requests"][1]), "the tool call was made from a context that had it"
    assert all(r["request"] not in contents(q) for q in r["requests"][2:]), "the answer after the tool misses it"
    _saved_without_the_request(r)


def kept_save(r: dict) -> None:
    assert r["request"] in contents(r["messages"])
    assert r["request"] in contents(r["requests"][-1])
    _saved_without_the_request(r)


def _saved_without_the_request(r: dict) -> None:
    # what the tool was for works in both: the file holds the conversation up to the request
    (saved,) = r["saved"]
    assert [m["role"] for m in saved] == ["system", "user", "assistant"]
    assert r["request"] not in contents(saved)


def lost_intro(r: dict) -> None:
    (greeting,) = r["requests"]
    assert r["profile"] not in contents(greeting), "pristine: the LLMRunFrame overtook the detached Append"
    assert r["profile"] in contents(r["messages"]), "the Append did land, after the completion read the context"


def kept_intro(r: dict) -> None:
    (greeting,) = r["requests"]
    assert contents(greeting)[1] == r["profile"]


def keypad_sees_the_account(r: dict) -> None:
    (request,) = r["requests"]
    assert r["account"] in contents(request)
    assert r["account"] in contents(r["messages"])


def lost_operator_note(r: dict) -> None:
    assert r["dropped"] == [[{"role": "system", "content": r["note"]}]], "pristine: the Append reached the sink"
    assert r["note"] not in contents(r["messages"]), "so the note never reached the context"
    assert r["requests"] == [] and r["replies"] == [], "and the LLM it asked for never ran"


def kept_operator_note(r: dict) -> None:
    assert r["dropped"] == [], "the Append stopped at the assistant aggregator"
    assert contents(r["messages"])[-2:] == [r["note"], r["replies"][-1]], "the note, then the bot's answer to it"
    (request,) = r["requests"]
    assert contents(request)[-1] == r["note"], "the completion ran on the context with the note"


CHECKS = {
    "pc_memory_writeback": (lost_memory, kept_memory),
    "pc_memory_prepend_writeback": (lost_memory, kept_prepended_memory),
    # correct as written: the live list edited and written back
    "pc_memory_live_writeback": (kept_memory, kept_memory),
    "pc_handover_update": (lost_handover, kept_handover),
    "pc_greeting_update": (lost_greeting, kept_greeting),
    "pc_save_conversation": (lost_save, kept_save),
    "pc_intro_detached_append": (lost_intro, kept_intro),
    # a guard: the same detached push mid-call loses nothing, before the fix or after it
    "pc_keypad_detached_append": (keypad_sees_the_account, keypad_sees_the_account),
    "pc_operator_misrouted_append": (lost_operator_note, kept_operator_note),
}


def test_every_app_has_checks() -> None:
    assert set(CHECKS) == {app.scenario for app in APP_TABLE}
    assert sorted(p.name for p in pcenv.APPS.glob("pipecat_*.py")) == sorted(app.file for app in APP_TABLE)
    assert sorted(p.name for p in pcenv.HANDFIXED.glob("pipecat_*.py")) == sorted(app.file for app in BUGGY)


# -- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("app", each_app(buggy=True))
def test_pristine_code_loses_the_message(pristine: dict, app: App) -> None:
    lost, _ = CHECKS[app.scenario]
    lost(scenario(pristine, app))


@pytest.mark.parametrize("app", each_app(buggy=False))
def test_correct_code_keeps_it_and_rtlint_leaves_it_alone(pristine: dict, rtlint_runs: dict, app: App) -> None:
    """Precision: what design.md calls not stale (a write through a live alias) loses nothing
    in the pipeline, and rtlint neither reports nor rewrites it."""
    _, kept = CHECKS[app.scenario]
    kept(scenario(pristine, app))
    run = rtlint_runs[app]
    assert [f for f in run["findings"] if f["code"] in RULES] == []
    assert not run["changed"], f"rtlint --fix rewrote correct code:\n{run['fix'].stdout}{run['fix'].stderr}"


@pytest.mark.parametrize("app", each_app(buggy=True))
def test_hand_fixed_code_keeps_it(handfixed: dict, app: App) -> None:
    """The harness can tell: the fix design.md describes, made by hand, keeps the message."""
    _, kept = CHECKS[app.scenario]
    kept(scenario(handfixed, app))


@pytest.mark.parametrize("app", each_app(buggy=True, pending=True))
def test_rtlint_reports_the_pristine_code(rtlint_runs: dict[App, dict], app: App) -> None:
    run = rtlint_runs[app]
    lines = app.pristine.read_text().splitlines()
    at = [i for i, line in enumerate(lines, 1) if app.at in line]
    found = [(f["code"], f["line"]) for f in run["findings"]]
    assert (app.code, at[0]) in found, f"{app.code} expected on line {at[0]} ({lines[at[0] - 1].strip()}); got {found}"


@pytest.mark.parametrize("app", each_app(buggy=True, pending=True))
def test_rtlint_fixed_code_keeps_it(rtlint_runs: dict, rtlint_fixed: dict, handfixed: dict, app: App) -> None:
    run, fix = rtlint_runs[app], rtlint_runs[app]["fix"]
    assert fix.exit_code in (0, 1), f"rtlint --fix failed: exit {fix.exit_code}\n{fix.stderr}"
    assert run["changed"], f"{' '.join(['rtlint --fix', *app.fix_args])} changed nothing:\n{fix.stdout}{fix.stderr}"
    assert app.code not in [f["code"] for f in run["after"]], "the fixed file is still reported"
    _, kept = CHECKS[app.scenario]
    fixed = scenario(rtlint_fixed, app)
    kept(fixed)
    by_hand = scenario(handfixed, app)
    # what rtlint wrote behaves as design.md's fix does: the same conversation, the same requests
    assert (fixed["messages"], fixed["requests"]) == (by_hand["messages"], by_hand["requests"])
