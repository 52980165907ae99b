"""A real editor: headless Neovim attaches `rtlint server` to a buffer and reads back its
diagnostics (skipped where `nvim` is not installed; Debian's package is enough)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rtlint.report.docs import rule_url
from tests.support.cli import REPO, run_cli
from tests.support.lsp_client import server_command

NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_shows_the_diagnostics_of_rtlint_check(tmp_path: Path) -> None:
    path = tmp_path / "agent.py"
    shutil.copyfile(REPO / "examples" / "realtime_agent.py", path)
    out = tmp_path / "diagnostics.json"
    env = {**os.environ, "RTLINT_FILE": str(path), "RTLINT_OUT": str(out), "RTLINT_CMD": json.dumps(server_command())}
    subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {REPO / 'tests' / 'support' / 'nvim_diagnostics.lua'}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=180,
        check=True,
    )
    result = json.loads(out.read_text())
    assert result["arrived"] is True
    expected = json.loads(run_cli("check", "--no-cache", "--format", "json", str(path)).stdout)
    shown = sorted(result["diagnostics"], key=lambda d: (d["line"], d["col"]))
    # the sample is ASCII: Neovim's byte columns are the LSP's UTF-16 ones
    assert [(d["code"], d["line"], d["col"], d["end_line"], d["end_col"]) for d in shown] == [
        (f["code"], f["line"] - 1, f["column"] - 1, f["end_line"] - 1, f["end_column"] - 1) for f in expected
    ]
    assert all(d["source"] == "rtlint" for d in shown)
    assert [d["href"] for d in shown] == [rule_url(f["code"]) for f in expected]
    assert [d["message"] for d in shown] == [f"[{f['name']}] {f['message']}" for f in expected]
