"""The tools: rtlint (from this checkout) and its peers (ruff, flake8, semgrep, Fixit) in a
venv of their own under bench/.corpora/, where rtlint is not installed, so its flake8 plugin
is absent there. The peers' RTL001 equivalents are in bench/peers/; every timed run of a
peer is checked to report exactly the three 1.8.8 snapshot sites, so a rule that finds less
(and runs faster) cannot flatter the ratio."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

from bench.corpora import CORPORA, HERE

REPO = HERE.parent
RULES = HERE / "peers"
# pinned so that runs compare; flake8 and its checkers are pinned to rtlint's own versions
PEERS = ["ruff==0.17.6", "semgrep==1.185.0", "fixit==2.1.0"]
FLAKE8_DISTS = ["flake8", "pyflakes", "pycodestyle", "mccabe"]
SITES = {4157, 4737, 4850}  # RTL001 in livekit-agents 1.8.8 voice/agent_activity.py
ACTIVITY = "voice/agent_activity.py"
# semgrep: no metrics, no version check, and any network access fails at once
SEMGREP_ENV = {
    "SEMGREP_ENABLE_VERSION_CHECK": "0",
    "SEMGREP_SEND_METRICS": "off",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "",
}


def _bin(environment: Path, name: str) -> str:
    return str(environment / "bin" / name)


def _make_venv(folder: Path, requirements: list[str], log, stamp: str = "") -> None:
    marker = folder / ".requirements"
    # built from the interpreter running this script: another interpreter means a new venv
    wanted = "\n".join([os.path.realpath(sys._base_executable), sys.version, stamp, *requirements])
    if marker.exists() and marker.read_text() == wanted:
        return
    log(f"installing into {folder.relative_to(REPO)}: {' '.join(requirements)}")
    venv.EnvBuilder(clear=True, with_pip=True).create(folder)
    subprocess.run([_bin(folder, "python"), "-m", "pip", "install", "-q", *requirements], check=True)
    marker.write_text(wanted)


@dataclass
class Tools:
    python: str  # the interpreter rtlint runs on (and the yardstick)
    peers: Path  # the peers' venv
    rtlint_env: dict[str, str] | None = None  # PYTHONPATH of the snapshot of rtlint's sources

    def peer(self, name: str) -> str:
        return _bin(self.peers, name)

    def version(self, dist: str, python: str | None = None) -> str:
        code = f"from importlib.metadata import version; print(version({dist!r}))"
        return subprocess.run(
            [python or _bin(self.peers, "python"), "-c", code], capture_output=True, text=True
        ).stdout.strip()


def snapshot(tools: Tools) -> str:
    """Copies rtlint's sources (rtlint/, and rules/ as rtlint/rules/) into the corpora folder
    and makes every rtlint command import them from there (PYTHONPATH comes before the
    editable install), so that edits to the checkout during a run do not mix two versions
    into one table. Compiled once here, so that no timed run compiles. Returns the digest."""
    folder = CORPORA / "snapshot"
    shutil.rmtree(folder, ignore_errors=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "rtlint", folder / "rtlint", ignore=skip)
    shutil.copytree(REPO / "rules", folder / "rtlint" / "rules", ignore=skip)
    subprocess.run([tools.python, "-m", "compileall", "-q", str(folder)], check=True)
    tools.rtlint_env = {"PYTHONPATH": str(folder)}
    digest = hashlib.sha256()
    for path in sorted((folder / "rtlint").rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def prepare(log=print) -> Tools:
    """rtlint's venv (a regular install of this checkout: its dependencies, its flake8 entry
    point; the code itself is imported from the snapshot) and the peers' venv, both built from
    the interpreter running this script."""
    folder = CORPORA / "venv-rtlint"
    dependencies = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:12]
    _make_venv(folder, [str(REPO)], log, stamp=dependencies)
    python = _bin(folder, "python")
    versions = subprocess.run(
        [python, "-c", f"from importlib.metadata import version as v; print(' '.join(v(d) for d in {FLAKE8_DISTS!r}))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # the peers' venv is built from the interpreter running this script, as venv-rtlint is
    folder = CORPORA / "venv-peers"
    _make_venv(folder, [*PEERS, *(f"{d}=={v}" for d, v in zip(FLAKE8_DISTS, versions))], log)
    return Tools(python, folder)


# -- checks of every run: the three sites, nothing else -----------------------------------
def _assert_sites(tool: str, found: list[tuple[str, int]], copies: int = 1) -> None:
    wanted = sorted(SITES) * copies
    wanted.sort()
    lines = sorted(line for path, line in found if path.replace(os.sep, "/").endswith(ACTIVITY))
    if lines != wanted or len(found) != len(wanted):
        raise AssertionError(f"{tool} should report exactly {ACTIVITY} lines {wanted}; it reported {sorted(found)}")


def semgrep_check(files: int):
    def check(stdout: str, stderr: str) -> None:
        data = json.loads(stdout)
        _assert_sites("semgrep", [(r["path"], r["start"]["line"]) for r in data["results"]])
        scanned = len(data["paths"]["scanned"])
        if scanned != files:
            raise AssertionError(f"semgrep scanned {scanned} files, not {files}")
        if data.get("errors"):
            raise AssertionError(f"semgrep errors: {data['errors'][:3]}")

    return check


def fixit_check(files: int):
    def check(stdout: str, stderr: str) -> None:
        found = [(m[0], int(m[1])) for m in re.findall(r"^(\S+)@(\d+):\d+ StaleMirrorSnapshot:", stdout, re.M)]
        _assert_sites("Fixit", found)
        checked = re.search(r"(\d+) files? checked", stderr)
        if not checked or int(checked.group(1)) != files:
            raise AssertionError(f"Fixit checked {checked and checked.group(1)} files, not {files}: {stderr[-500:]}")

    return check


def fix_check():
    """`rtlint --fix` on the 1.8.8 tree: it fixed the file and reports what remains."""

    def check(stdout: str, stderr: str) -> None:
        if not re.search(r"^Fixed \d+ findings? in 1 file\b", stderr, re.M):
            raise AssertionError(f"rtlint --fix fixed nothing: {stderr[-500:]}")

    return check


def diff_check():
    def check(stdout: str, stderr: str) -> None:
        added = re.findall(r"^\+\s+async with self\._rt_chat_ctx_lock:$", stdout, re.M)
        if len(added) < len(SITES):
            raise AssertionError(f"rtlint --diff shows {len(added)} locked regions, not {len(SITES)}")

    return check


def format_check(variant: str):
    """JSON and SARIF list the three RTL001 sites, each with the edits of its fix; the GitHub
    annotations name them."""

    def check(stdout: str, stderr: str) -> None:
        if variant == "json":
            found = [(f["path"], f["line"]) for f in json.loads(stdout) if f["code"] == "RTL001"]
            unfixed = [f for f in json.loads(stdout) if f["code"] == "RTL001" and not (f["fix"] and f["fix"]["edits"])]
            if unfixed:
                raise AssertionError(f"JSON findings without the edits of their fix: {unfixed[:1]}")
        elif variant == "sarif":
            results = json.loads(stdout)["runs"][0]["results"]
            found = [
                (
                    r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    r["locations"][0]["physicalLocation"]["region"]["startLine"],
                )
                for r in results
                if r["ruleId"] == "RTL001"
            ]
        else:
            found = [(m[0], int(m[1])) for m in re.findall(r"^::\w+ file=([^,]+),line=(\d+).*RTL001", stdout, re.M)]
        _assert_sites(f"rtlint --format {variant}", found)

    return check


def fixit_fix_check():
    def check(stdout: str, stderr: str) -> None:
        if not re.search(rf"{len(SITES)} fixes applied", stderr + stdout):
            raise AssertionError(f"Fixit fix did not apply {len(SITES)} fixes: {(stderr + stdout)[-500:]}")

    return check


def rtlint_check(copies: int, tool: str = "rtlint"):
    """RTL001 lines of rtlint (or of flake8 running its plugin): the three sites in each copy
    of the 1.8.8 tree, none on the standard library."""

    def check(stdout: str, stderr: str) -> None:
        found = [(m[0], int(m[1])) for m in re.findall(r"^(.+?):(\d+):\d+: RTL001 ", stdout, re.M)]
        _assert_sites(tool, found, copies)

    return check


def files_seen(tools: Tools, paths: list[Path]) -> dict[str, int]:
    """How many files ruff and rtlint look at (semgrep and Fixit are checked on every run)."""
    ruff = subprocess.run(
        [tools.peer("ruff"), "check", "--isolated", "--no-cache", "--show-files", *map(str, paths)],
        capture_output=True,
        text=True,
    ).stdout
    code = (
        "import sys; from pathlib import Path\n"
        "from rtlint.engine import config as c; from rtlint.engine.discovery import discover\n"
        "print(len(discover(sys.argv[1:], c.load(None, Path(sys.argv[1]))).targets))"
    )
    rtlint = subprocess.run(
        [tools.python, "-c", code, *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(tools.rtlint_env or {})},
    ).stdout
    return {"ruff": sum(1 for line in ruff.splitlines() if line.strip().endswith(".py")), "rtlint": int(rtlint)}
