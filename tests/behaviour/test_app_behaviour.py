"""Behavioural tests of the rules for application code (RTL005, RTL006): application modules
that write a stale context back or detach a push, run on LiveKit's real AgentSession, pristine
and as `rtlint --fix` (RTL006: `--fix --unsafe-fixes`) rewrites them.

- memorysync 1.1.1's own `on_user_turn(..., agent=...)` with `persist_injection=True`, on the
  real OpenAI realtime engine with client-side turn detection (the hook runs after
  commit_audio(); the scripted server turns the committed audio into the user's item);
- the pipeline-nodes documentation's recipe (apps/rag_agent.py) on a plain LLM;
- a push handed to asyncio.create_task before generate_reply() (apps/detached_push.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import lkenv
import pytest

from tests.support.offline import unavailable

pytestmark = pytest.mark.behaviour


def rtlint_fix(file: Path, *extra: str) -> Path:
    """`rtlint --fix` on `file` (a copy); the file must change."""
    before = file.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--fix", *extra, str(file)],
        cwd=file.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode in (0, 1), f"rtlint --fix failed: {report}"
    assert file.read_bytes() != before, f"rtlint --fix changed nothing: {report}"
    return file


@pytest.fixture(scope="session")
def app_packages(lk_python: Path) -> Path:
    try:
        return lkenv.ensure_app_packages(lk_python)
    except lkenv.PyPIUnreachable as e:
        unavailable("the application packages", str(e))


@pytest.fixture(scope="session")
def app_variants(app_packages: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    """module name -> file, for the pristine and the fixed run."""
    folder = tmp_path_factory.mktemp("rtlint-apps")
    memory = shutil.copyfile(app_packages / lkenv.MEMORYSYNC_MEMORY_REL, folder / "memory.py")
    rag = shutil.copyfile(lkenv.APP_MODULES["app_rag_agent"], folder / "rag_agent.py")
    detached = shutil.copyfile(lkenv.APP_MODULES["app_detached_push"], folder / "detached_push.py")
    return {
        "pristine": {lkenv.MEMORYSYNC_MODULE: app_packages / lkenv.MEMORYSYNC_MEMORY_REL, **lkenv.APP_MODULES},
        "fixed": {
            lkenv.MEMORYSYNC_MODULE: rtlint_fix(memory),
            "app_rag_agent": rtlint_fix(rag),
            "app_detached_push": rtlint_fix(detached, "--unsafe-fixes"),
        },
    }


def _run(lk_python: Path, app_packages: Path, modules: dict[str, Path]) -> dict:
    run = lkenv.run_scenarios(lk_python, None, lkenv.APP_SCENARIOS, modules=modules, paths=[app_packages])
    assert run["modules"] == {name: str(file.resolve()) for name, file in modules.items()}, (
        "a scenario ran another module than the variant under test"
    )
    return run


@pytest.fixture(scope="session")
def app_pristine(lk_python, app_packages, app_variants) -> dict:
    return _run(lk_python, app_packages, app_variants["pristine"])


@pytest.fixture(scope="session")
def app_fixed(lk_python, app_packages, app_variants) -> dict:
    return _run(lk_python, app_packages, app_variants["fixed"])


def scenario(run: dict, name: str) -> dict:
    result = run["scenarios"][name]
    if "error" in result:
        pytest.fail(
            f"scenario {name} did not run to the end: {result['error']}\n"
            f"{result['traceback']}\n--- stderr ---\n{run['stderr_tail']}"
        )
    return result


def ids(items: list[dict]) -> list[str]:
    return [i["id"] for i in items]


def test_realtime_memory_writeback_deletes_the_users_turn_until_fixed(app_pristine, app_fixed):
    p = scenario(app_pristine, "app_realtime_memory_writeback")
    user = p["user_item"]
    assert user is not None and p["user_item_was_local"] is False
    assert p["client_deletes"] == [user], "pristine: the write-back deletes the user's turn"
    assert ids(p["server_deleted"]) == [user]
    assert user not in p["response_contexts"][-1], "pristine: the reply is generated without it"
    assert user not in ids(p["local_items"])
    assert p["server_memory"] and p["server_memory"] == p["local_memory"]

    f = scenario(app_fixed, "app_realtime_memory_writeback")
    user = f["user_item"]
    assert f["client_deletes"] == [] and f["server_deleted"] == []
    assert user in ids(f["server_items"]) and user in ids(f["local_items"])
    (memory,) = f["server_memory"]
    assert f["local_memory"] == [memory]
    assert {user, memory} <= set(f["response_contexts"][-1])
    assert f["response_contexts"][-1].index(user) < f["response_contexts"][-1].index(memory)


def _texts(request: list[dict]) -> list[str]:
    return [m["text"] for m in request]


def test_pipeline_writeback_loses_an_item_committed_during_the_hook_until_fixed(app_pristine, app_fixed):
    p = scenario(app_pristine, "app_pipeline_rag_writeback")
    assert p["committed_id"] not in p["local_ids"], "pristine: the write-back drops the commit"
    f = scenario(app_fixed, "app_pipeline_rag_writeback")
    assert f["committed_id"] in f["local_ids"]
    for r in (p, f):  # the injection is in this turn's request and in the agent's context
        assert "Additional information: the caller prefers tea" in _texts(r["llm_requests"][-1])
        assert ("assistant", "Additional information: the caller prefers tea") in map(tuple, r["local_messages"])
        assert ("user", "what do I usually drink in the morning") in map(tuple, r["local_messages"])


def test_detached_push_reply_misses_the_pushed_message_until_fixed(app_pristine, app_fixed):
    fact = "The caller's name is Ada."
    p = scenario(app_pristine, "app_detached_push_then_reply")
    assert fact not in _texts(p["llm_requests"][-1]), "pristine: the reply ran before the push"
    assert fact in p["local_texts"], "the push did land, later"
    f = scenario(app_fixed, "app_detached_push_then_reply")
    assert fact in _texts(f["llm_requests"][-1])
