"""Fixtures of the LiveKit behaviour suite: the cached livekit venv and the pristine run
(the Pipecat suite's are in test_pipecat_behaviour.py).

The rtlint test process never imports a framework: lkenv and pcenv run the scenarios in a
subprocess with the venv's python. Run only this suite with `pytest -m behaviour tests/behaviour`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.offline import unavailable

sys.path.insert(0, str(Path(__file__).resolve().parent))  # lkenv, whatever the import mode

import lkenv


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "behaviour: drives LiveKit's real AgentSession against a scripted realtime server, or "
        "Pipecat's real pipeline (builds cached livekit-agents and pipecat-ai venvs from PyPI on first use)",
    )


@pytest.fixture(scope="session")
def lk_python() -> Path:
    """The python of the cached livekit-agents venv; PyPI unreachable fails the tests
    (tests.support.offline)."""
    try:
        return lkenv.ensure_venv()
    except lkenv.PyPIUnreachable as e:
        unavailable("the livekit-agents venv", str(e))


@pytest.fixture(scope="session")
def pristine_agent_activity(lk_python: Path) -> Path:
    return lkenv.pristine_agent_activity(lk_python)


@pytest.fixture(scope="session")
def pristine(lk_python: Path) -> dict:
    """Every scenario's result on the installed, unmodified agent_activity.py."""
    return lkenv.run_scenarios(lk_python, None, lkenv.SCENARIOS)
