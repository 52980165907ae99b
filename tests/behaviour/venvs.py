"""What the behaviour suites share: a cached folder built once (a framework's venv, packages
installed beside it) and the scenario runner, run with that venv's python.

The rtlint test process never imports a framework: each suite builds its venv here and runs
its scenarios as a subprocess (scenarios/run.py), which prints its results as one JSON line.
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
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIO_RUNNER = HERE / "scenarios" / "run.py"
RESULT_PREFIX = "RTLINT-BEHAVIOUR-RESULT "
COMPLETE = ".rtlint-complete"
INDEX_PROBE = "https://pypi.org/simple/pip/"


class BuildError(RuntimeError):
    """A cached folder could not be built. `index_reachable` says whether the package index
    answered at all (False: no network), for the suites that skip rather than fail then."""

    def __init__(self, message: str, *, index_reachable: bool) -> None:
        super().__init__(message)
        self.index_reachable = index_reachable


def interpreter_tag() -> str:
    # a venv is only valid for the python it was made with
    return f"py{sys.version_info.major}{sys.version_info.minor}"


def venv_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def is_complete(root: Path) -> bool:
    return (root / COMPLETE).is_file()


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock so two pytest processes don't build the same folder at once."""
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


def cached_folder(root: Path, build: Callable[[Path], None], stamp: str) -> Path:
    """`root`, built once by `build(tmp)` and reused after: under an exclusive lock, into a
    temporary folder renamed into place, so a killed build never looks complete. `stamp`
    (what it holds) is written into its completion marker."""
    if is_complete(root):
        return root
    with _file_lock(root.with_name(root.name + ".lock")):
        if is_complete(root):  # another process built it while we waited
            return root
        tmp = Path(tempfile.mkdtemp(prefix=root.name + ".tmp-", dir=root.parent))
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; a shared cache should stay readable
        try:
            build(tmp)
            (tmp / COMPLETE).write_text(stamp)
            if root.exists():  # a stale, incomplete build
                shutil.rmtree(root)
            os.rename(tmp, root)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return root


def _index_reachable() -> bool:
    try:
        with urllib.request.urlopen(INDEX_PROBE, timeout=15):
            return True
    except Exception:
        return False


def create_venv(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    return venv_python(folder)


def pip_install(python: Path, args: list[str], *, what: str, timeout: float) -> None:
    """`pip install ARGS` with `python`; a failure is a BuildError that names `what` and
    quotes pip."""
    cmd = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise BuildError(
            f"cannot install {what}: pip did not finish in {timeout:.0f} s\n{_text(e.stderr)[-2000:]}",
            index_reachable=_index_reachable(),
        ) from None
    if proc.returncode != 0:
        reachable = _index_reachable()
        why = "" if reachable else f" (the package index, {INDEX_PROBE}, cannot be reached)"
        raise BuildError(
            f"cannot install {what}{why}: pip exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}",
            index_reachable=reachable,
        )


def run_scenarios(
    python: Path,
    names: list[str],
    *,
    registry: str,
    options: list[str] = (),
    modules: dict[str, Path] | None = None,
    paths: list[Path] = (),
    env: dict[str, str] | None = None,
    timeout: float,
) -> dict:
    """Run scenarios (by name, from the scenarios/ module `registry`) in one process of
    `python`; `modules` maps a module name to the file it loads from, `paths` go on sys.path,
    `options` are more arguments for run.py, `env` more environment variables.

    Returns run.py's JSON result, with "stderr_tail" added; a scenario that raised has
    {"error", "traceback"} as its result.
    """
    cmd = [str(python), str(SCENARIO_RUNNER), *names, "--registry", registry, *options]
    for name, file in (modules or {}).items():
        cmd += ["--module", f"{name}={file}"]
    for folder in paths:
        cmd += ["--path", str(folder)]
    full_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    for var in ("PYTHONPATH", "PYTHONHOME", "OPENAI_BASE_URL"):
        full_env.pop(var, None)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
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
