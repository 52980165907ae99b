"""The engine's architecture: the layers contract of pyproject.toml ([tool.importlinter]),
checked by the real import-linter on this checkout, and shown to fail on a wrong arrow."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.cli import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    # import-linter finds `rtlint` and `rules` on the path: the checkout's own, not an install
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def test_the_layers_contract_holds() -> None:
    run = _lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 1 kept, 0 broken." in run.stdout


def test_an_import_from_a_higher_layer_breaks_it(tmp_path: Path) -> None:
    for folder in ("rtlint", "rules"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    core = tmp_path / "rtlint" / "core" / "findings.py"
    core.write_text(core.read_text() + "\nfrom rtlint.engine import registry  # a wrong arrow\n")
    run = _lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "rtlint.core is not allowed to import rtlint.engine" in run.stdout
