"""The livekit-agents venv the behaviour scenarios run in, and how to run them.

The rtlint test process never imports livekit: it builds (once, cached) a separate venv
with the pinned releases and runs each scenario as a subprocess with that venv's python.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from venvs import (
    BuildError,
    cached_folder,
    create_venv,
    interpreter_tag,
    pip_install,
    venv_python,
)
from venvs import run_scenarios as _run_scenarios

from tests.support.wheels import cache_root

LIVEKIT_AGENTS = "1.8.8"
LIVEKIT_PLUGINS_OPENAI = "1.8.8"
REQUIREMENTS = [
    f"livekit-agents=={LIVEKIT_AGENTS}",
    f"livekit-plugins-openai=={LIVEKIT_PLUGINS_OPENAI}",
]
AGENT_ACTIVITY_REL = Path("livekit", "agents", "voice", "agent_activity.py")
# application packages the app scenarios run, installed beside the venv (not into it, so the
# shared venv stays as it is): the published memory plugin, and the HTTP client it imports
APP_PACKAGES = ["livekit-memorysync==1.1.1", "httpx==0.28.1", "httpcore==1.0.9"]
MEMORYSYNC_MEMORY_REL = Path("livekit_memorysync", "memory.py")
MEMORYSYNC_MODULE = "livekit_memorysync.memory"

HERE = Path(__file__).resolve().parent
APPS = HERE / "apps"  # our own pristine application modules, by the module name they load as
APP_MODULES = {"app_rag_agent": APPS / "rag_agent.py", "app_detached_push": APPS / "detached_push.py"}
# the names scenarios/scenario_defs.py registers
SCENARIOS = [
    "7880_tool_output",
    "7880_interrupted_tool_output",
    "7880_replace_then_append",
    "7906_copy_in_flight_apply_after",
    "7906_copy_and_apply_in_flight",
    "7906_push_fails",
    "never_played_abandoned",
    "never_played_cleanup_then_late_tool",
]
APP_SCENARIOS = [
    "app_realtime_memory_writeback",
    "app_pipeline_rag_writeback",
    "app_detached_push_then_reply",
]
SCENARIO_BUDGET = 45.0  # seconds per scenario, beyond its own 40 s safety net


class PyPIUnreachable(RuntimeError):
    """The venv cannot be built because the package index cannot be reached."""


def venv_dir() -> Path:
    # keyed by the pinned versions and the interpreter's minor version
    return cache_root() / f"lk-{LIVEKIT_AGENTS}-oai-{LIVEKIT_PLUGINS_OPENAI}-{interpreter_tag()}"


def _cached(root: Path, build: Callable[[Path], None], stamp: list[str]) -> Path:
    try:
        return cached_folder(root, build, "\n".join(stamp) + "\n")
    except BuildError as e:
        if not e.index_reachable:
            raise PyPIUnreachable(str(e)) from e
        raise


def ensure_venv() -> Path:
    """Return the python of the cached livekit venv, building it if needed."""

    def build(tmp: Path) -> None:
        pip_install(create_venv(tmp), REQUIREMENTS, what="the livekit-agents venv", timeout=900)

    return venv_python(_cached(venv_dir(), build, REQUIREMENTS))


def ensure_app_packages(python: Path) -> Path:
    """The folder (cached) holding APP_PACKAGES, for run.py's --path."""
    root = python.parent.parent.with_name(python.parent.parent.name + "-apps")

    def build(tmp: Path) -> None:
        args = ["--no-deps", "--target", str(tmp), *APP_PACKAGES]
        pip_install(python, args, what="the application packages", timeout=600)

    return _cached(root, build, APP_PACKAGES)


def pristine_agent_activity(python: Path) -> Path:
    """The installed (pristine) agent_activity.py, located without importing livekit here."""
    # find_spec imports only the `livekit` namespace package, not livekit.agents
    code = "import importlib.util as u; print(u.find_spec('livekit.agents').origin)"
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True, timeout=120)
    return Path(out.stdout.strip()).parent.parent.parent / AGENT_ACTIVITY_REL


def run_scenarios(
    python: Path,
    agent_activity: Path | None,
    names: list[str],
    *,
    modules: dict[str, Path] | None = None,
    paths: list[Path] = (),
) -> dict:
    """Run scenarios in one livekit process; `agent_activity` None means the installed file,
    `modules` maps a module name to the file it loads from, `paths` go on sys.path.

    Returns {"loaded_agent_activity", "loaded_sha256", "scenarios": {name: result},
    "stderr_tail"}; a scenario that raised has {"error", "traceback"} as its result.
    """
    options = [] if agent_activity is None else ["--agent-activity", str(agent_activity)]
    return _run_scenarios(
        python,
        names,
        registry="scenario_defs",
        options=options,
        modules=modules,
        paths=paths,
        env={"OPENAI_API_KEY": "sk-fake-local-only"},
        timeout=30 + SCENARIO_BUDGET * len(names),
    )
