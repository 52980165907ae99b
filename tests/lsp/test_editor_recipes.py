"""docs/editors.md's recipes for the editors other than Neovim (tests/lsp/test_server_neovim.py
runs that one): each snippet parses and names what `rtlint server` is and offers, and the
editor itself runs it where its binary is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.lsp.server import FIX_ALL
from tests.support.cli import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def section(title: str) -> str:
    guide = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    start = guide.index(f"## {title}")
    end = guide.find("\n## ", start + 1)
    return guide[start : end if end != -1 else None]


def blocks(title: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(title), re.S)


def test_vs_code_settings() -> None:
    [settings] = [json.loads(block) for block in blocks("VS Code", "json")]
    assert (settings["glspc.server.command"], settings["glspc.server.commandArguments"]) == ("rtlint", ["server"])
    assert settings["glspc.server.languageId"] == ["python"]
    assert list(settings["editor.codeActionsOnSave"]) == [FIX_ALL]  # the kind the server offers


def helix_languages() -> dict:
    [languages] = blocks("Helix", "toml")
    return tomllib.loads(languages)


def test_helix_languages_toml() -> None:
    languages = helix_languages()
    assert languages["language-server"]["rtlint"] == {"command": "rtlint", "args": ["server"]}
    [python] = [entry for entry in languages["language"] if entry["name"] == "python"]
    assert "rtlint" in python["language-servers"]


HX = shutil.which("hx") or shutil.which("helix")


@pytest.mark.skipif(HX is None, reason="Helix (hx) is not installed: no Debian 12 package")
def test_helix_finds_the_server(tmp_path: Path) -> None:  # pragma: no cover - where Helix is installed
    config = tmp_path / "config" / "helix"
    config.mkdir(parents=True)
    [languages] = blocks("Helix", "toml")
    (config / "languages.toml").write_text(languages)
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    run = subprocess.run([HX, "--health", "python"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    line = next(line for line in run.stdout.splitlines() if "rtlint" in line)
    assert "not found" not in line


def test_zed_extension_manifest_and_settings() -> None:
    """Zed itself cannot run here (no Zed, and the extension's crate cannot be fetched to
    build it), so only what Zed reads is checked: the manifest's keys, the command the Rust
    code returns, and the settings JSON."""
    [manifest] = [tomllib.loads(block) for block in blocks("Zed", "toml")]
    assert {"id", "name", "version", "schema_version"} <= set(manifest)
    assert manifest["language_servers"]["rtlint"]["languages"] == ["Python"]
    [rust] = blocks("Zed", "rust")
    assert 'worktree.which("rtlint")' in rust and 'args: vec!["server".into()]' in rust
    assert "zed::register_extension!(Rtlint);" in rust
    [settings] = [json.loads(block) for block in blocks("Zed", "json")]
    assert settings["languages"]["Python"]["language_servers"][0] == "rtlint"


def test_every_recipe_names_the_same_command() -> None:
    """One command for every editor, the one `rtlint server --help` prints."""
    guide = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    assert 'cmd = { "rtlint", "server" }' in guide
    assert "the command: `rtlint server`" in section("Other editors")
