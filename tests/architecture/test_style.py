"""The project's own style, as CI checks it: `ruff check` and `ruff format --check` with the
configuration in pyproject.toml, and vulture (dead code) over the shipped packages and the
bench with tests/architecture/vulture_whitelist.py. ruff and vulture are pinned in the test
extras, so every machine judges by the same version."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.engine.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
WHITELIST = Path(__file__).with_name("vulture_whitelist.py")


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize("command", [("check", "--no-cache", "."), ("format", "--check", "--no-cache", ".")])
def test_ruff(command: tuple[str, ...]) -> None:
    pytest.importorskip("ruff", reason="ruff is in the test extras")
    result = _run("ruff", *command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_dead_code(tmp_path: Path) -> None:
    pytest.importorskip("vulture", reason="vulture is in the test extras")
    # the registry finds the rule classes and their examples by reflection: they are used
    registry = tmp_path / "registry_whitelist.py"
    registry.write_text("".join(f"_.{rule.__name__}\n" for rule in all_rules()) + "_.VALID\n_.INVALID\n")
    # bench/.corpora holds downloaded third-party code (git-ignored): not ours to judge
    paths = ("rtlint", "rules", "bench", str(WHITELIST), str(registry))
    result = _run("vulture", *paths, "--min-confidence", "60", "--exclude", "*/.corpora/*")
    assert result.returncode == 0, result.stdout + result.stderr


def test_vulture_sees_dead_code(tmp_path: Path) -> None:
    """The check can fail: a function nothing calls is reported."""
    pytest.importorskip("vulture", reason="vulture is in the test extras")
    (tmp_path / "module.py").write_text("def used():\n    pass\n\n\ndef unused():\n    pass\n\n\nused()\n")
    result = subprocess.run(
        [sys.executable, "-m", "vulture", str(tmp_path / "module.py"), "--min-confidence", "60"],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "unused function 'unused'" in result.stdout
