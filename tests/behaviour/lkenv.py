"""The livekit-agents venv the behaviour scenarios run in, and how to run them.

The rtlint test process never imports livekit: it builds (once, cached) a separate venv
with the pinned releases and runs each scenario as a subprocess with that venv's python.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

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
SCENARIO_RUNNER = HERE / "scenarios" / "run.py"
APPS = HERE / "apps"  # our own pristine application modules, by the module name they load as
APP_MODULES = {"app_rag_agent": APPS / "rag_agent.py", "app_detached_push": APPS / "detached_push.py"}
RESULT_PREFIX = "RTLINT-BEHAVIOUR-RESULT "
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


def cache_root() -> Path:
    env = os.environ.get("RTLINT_TEST_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "rtlint-tests"


def venv_dir() -> Path:
    # keyed by the pinned versions and the interpreter's minor version: a venv is only
    # valid for the python it was made with
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    return cache_root() / f"lk-{LIVEKIT_AGENTS}-oai-{LIVEKIT_PLUGINS_OPENAI}-{py}"


def venv_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _ready(root: Path) -> bool:
    return (root / ".rtlint-complete").is_file() and venv_python(root).exists()


@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive lock so two pytest processes don't build the same venv at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        try:
            import fcntl
        except ImportError:  # no flock: the temp-dir-and-rename below still keeps it safe
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/livekit-agents/", timeout=15):
            return True
    except Exception:
        return False


def ensure_venv() -> Path:
    """Return the python of the cached livekit venv, building it if needed."""
    root = venv_dir()
    if _ready(root):
        return venv_python(root)
    with _file_lock(root.with_name(root.name + ".lock")):
        if _ready(root):  # another process built it while we waited
            return venv_python(root)
        # build into a temp dir and rename, so a killed build never looks complete
        tmp = Path(tempfile.mkdtemp(prefix=root.name + ".tmp-", dir=root.parent))
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; a shared cache should stay readable
        try:
            subprocess.run([sys.executable, "-m", "venv", str(tmp)], check=True, capture_output=True)
            pip = subprocess.run(
                [str(venv_python(tmp)), "-m", "pip", "install", "-q", "--disable-pip-version-check", *REQUIREMENTS],
                capture_output=True,
                text=True,
                timeout=900,
            )
            if pip.returncode != 0:
                if not _pypi_reachable():
                    raise PyPIUnreachable(pip.stderr[-2000:])
                raise RuntimeError(f"pip install failed:\n{pip.stdout}\n{pip.stderr}")
            (tmp / ".rtlint-complete").write_text("\n".join(REQUIREMENTS) + "\n")
            if root.exists():  # a stale, incomplete venv
                shutil.rmtree(root)
            os.rename(tmp, root)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return venv_python(root)


def ensure_app_packages(python: Path) -> Path:
    """The folder (cached) holding APP_PACKAGES, for run.py's --path."""
    root = python.parent.parent.with_name(python.parent.parent.name + "-apps")
    if (root / ".rtlint-complete").is_file():
        return root
    with _file_lock(root.with_name(root.name + ".lock")):
        if (root / ".rtlint-complete").is_file():
            return root
        tmp = Path(tempfile.mkdtemp(prefix=root.name + ".tmp-", dir=root.parent))
        os.chmod(tmp, 0o755)
        try:
            pip = subprocess.run(
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "--no-deps",
                    "--target",
                    str(tmp),
                    *APP_PACKAGES,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if pip.returncode != 0:
                if not _pypi_reachable():
                    raise PyPIUnreachable(pip.stderr[-2000:])
                raise RuntimeError(f"pip install failed:\n{pip.stdout}\n{pip.stderr}")
            (tmp / ".rtlint-complete").write_text("\n".join(APP_PACKAGES) + "\n")
            if root.exists():
                shutil.rmtree(root)
            os.rename(tmp, root)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return root


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
    cmd = [str(python), str(SCENARIO_RUNNER), *names]
    if agent_activity is not None:
        cmd += ["--agent-activity", str(agent_activity)]
    for name, file in (modules or {}).items():
        cmd += ["--module", f"{name}={file}"]
    for folder in paths:
        cmd += ["--path", str(folder)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", OPENAI_API_KEY="sk-fake-local-only")
    for var in ("PYTHONPATH", "PYTHONHOME", "OPENAI_BASE_URL"):
        env.pop(var, None)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30 + SCENARIO_BUDGET * len(names))
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"scenario runner timed out: {cmd}\n{_text(e.stderr)[-8000:]}") from e
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            out = json.loads(line[len(RESULT_PREFIX) :])
            out["stderr_tail"] = proc.stderr[-6000:]
            return out
    raise RuntimeError(
        f"scenario runner produced no result (exit {proc.returncode})\n"
        f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-8000:]}"
    )


def _text(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""
