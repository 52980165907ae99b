"""rtlint at a git ref, laid out to run without touching any checkout: `git archive REF` of
rtlint/, rules/, pyproject.toml and README.md is unpacked under bench/.corpora/ecosystem/refs/<commit>/
(rules/ as rtlint/rules/, as the wheel installs it; bench's snapshot approach) and imported
through PYTHONPATH. Its dependencies come from a venv built from that ref's pyproject.toml
(one venv per distinct pyproject.toml, so two refs that agree share it). No worktree is made
and no branch is checked out, so any branch of the shared repository can be named, even one
checked out in another engineer's worktree. REF "." is this checkout's working tree as it is."""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from bench.ecosystem.fetch import ROOT
from bench.peers import _make_venv

REPO = Path(__file__).resolve().parents[2]
WORKTREE = "."


@dataclass
class Version:
    ref: str  # as given
    commit: str  # full commit, or "working tree"
    describe: str  # short commit and subject, for the report
    python: str  # the venv's interpreter
    pythonpath: Path  # the folder holding rtlint/


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()


def default_base() -> str:
    """The last tag if there is one, else main~1."""
    tag = subprocess.run(["git", "-C", str(REPO), "describe", "--tags", "--abbrev=0"], capture_output=True, text=True)
    return tag.stdout.strip() if tag.returncode == 0 and tag.stdout.strip() else "main~1"


def _extract(commit: str, folder: Path) -> None:
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    data = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", commit, "rtlint", "rules", "pyproject.toml", "README.md"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        # the "data" filter (no absolute paths, links out, devices) where this Python has it
        archive.extractall(partial, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    _layout(partial)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


def _copy_worktree(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "rtlint", folder / "rtlint", ignore=skip)
    shutil.copytree(REPO / "rules", folder / "rules", ignore=skip)
    for name in ("pyproject.toml", "README.md"):  # what `pip install` of the tree needs
        shutil.copy2(REPO / name, folder / name)
    _layout(folder)


def _layout(folder: Path) -> None:
    # the import path: rtlint/ with rules/ inside it as rtlint/rules/, as the wheel installs it
    target = folder / "import" / "rtlint"
    shutil.copytree(folder / "rtlint", target)
    shutil.copytree(folder / "rules", target / "rules")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "import")], check=True)


def _venv(tree: Path, log) -> str:
    digest = hashlib.sha256((tree / "pyproject.toml").read_bytes()).hexdigest()[:12]
    folder = ROOT / f"venv-{digest}"
    # a regular install of that tree gives the dependencies it declares; its code is shadowed by PYTHONPATH
    source = ROOT / f"venv-{digest}.source"
    if not (folder / ".requirements").exists():
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(tree, source, ignore=shutil.ignore_patterns("import"))
    _make_venv(folder, [str(source)], log, stamp=digest)
    return str(folder / "bin" / "python")


def materialise(ref: str, log=print) -> Version:
    if ref == WORKTREE:
        folder = ROOT / "refs" / "worktree"
        _copy_worktree(folder)
        commit, describe = "working tree", f"working tree of {REPO.name} at {git('rev-parse', '--short', 'HEAD')}"
    else:
        commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
        describe = git("log", "-1", "--format=%h %s", commit)
        folder = ROOT / "refs" / commit
        if not (folder / "import" / "rtlint").is_dir():
            log(f"extracting rtlint at {ref} ({describe})")
            _extract(commit, folder)
    return Version(ref, commit, describe, _venv(folder, log), folder / "import")
