"""The behaviour suites' cached venvs (venvs.py, pcenv.py): how a build fails, and what it
leaves behind. Fast, no framework and no network: not marked `behaviour`."""

from __future__ import annotations

import sys
from pathlib import Path

import pcenv
import pytest
import venvs


def test_a_cached_folder_is_built_once(tmp_path: Path) -> None:
    calls = []

    def build(tmp: Path) -> None:
        calls.append(tmp)
        (tmp / "payload").write_text("built")

    root = tmp_path / "env"
    assert venvs.cached_folder(root, build, "stamp\n") == root
    assert venvs.cached_folder(root, build, "stamp\n") == root
    assert len(calls) == 1 and calls[0] != root, "built in a temporary folder, renamed into place"
    assert (root / "payload").read_text() == "built"
    assert (root / venvs.COMPLETE).read_text() == "stamp\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env", "env.lock"]


def test_a_failed_build_leaves_nothing_that_looks_complete(tmp_path: Path) -> None:
    root = tmp_path / "env"
    root.mkdir()  # a stale build from a killed run, without its marker

    def failing(tmp: Path) -> None:
        (tmp / "half").write_text("x")
        raise venvs.BuildError("cannot install it", index_reachable=True)

    with pytest.raises(venvs.BuildError, match="cannot install it"):
        venvs.cached_folder(root, failing, "stamp\n")
    assert not venvs.is_complete(root)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env", "env.lock"], "the temporary folder is removed"

    def build(tmp: Path) -> None:
        (tmp / "payload").write_text("built")

    venvs.cached_folder(root, build, "stamp\n")  # the stale folder is replaced
    assert venvs.is_complete(root) and (root / "payload").exists()


def test_a_failed_pip_install_is_an_error_that_quotes_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(venvs, "_index_reachable", lambda: False)
    with pytest.raises(venvs.BuildError) as raised:
        venvs.pip_install(
            Path(sys.executable), ["--no-index", "rtlint-absent-package==1.0"], what="the test venv", timeout=120
        )
    message = str(raised.value)
    assert message.startswith("cannot install the test venv (the package index")
    assert "rtlint-absent-package" in message, "pip's own message is quoted"
    assert raised.value.index_reachable is False


def test_pipecat_needs_python_3_11(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pcenv, "MIN_PYTHON", (99, 0))
    with pytest.raises(pcenv.UnsupportedPython, match=r"pipecat-ai 1\.14\.0 needs Python 99\.0 or newer"):
        pcenv.ensure_venv()


def test_a_venv_without_a_pinned_package_fails_its_build() -> None:
    # this interpreter has no pipecat: the smoke import that ends every build fails, and says so
    with pytest.raises(venvs.BuildError, match="cannot import what the scenarios use") as raised:
        pcenv._smoke(Path(sys.executable))
    assert "ModuleNotFoundError" in str(raised.value)


def test_every_requirement_is_pinned() -> None:
    for requirement in pcenv.REQUIREMENTS:
        name, _, rest = requirement.partition("==")
        assert rest and name and " " not in name, f"not pinned: {requirement}"
