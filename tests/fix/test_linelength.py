"""Which line length fixed code respects (rtlint/fix/linelength.py): rtlint's own setting, then
the nearest ruff or black configuration, then 88."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlint.engine import config as config_module
from rtlint.fix.linelength import DEFAULT, line_length
from tests.support.cli import run_main


def _file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.py"
    path.write_text("x = 1\n")
    return path


def test_default_is_88(tmp_path: Path) -> None:
    assert line_length(None, _file(tmp_path / "nothing")) == DEFAULT == 88


def test_rtlint_setting_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert line_length(72, _file(tmp_path)) == 72


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n", 100),
        ("pyproject.toml", "[tool.ruff.format]\nquote-style = 'single'\n", 88),  # ruff's default
        ("pyproject.toml", "[tool.black]\nline-length = 79\n", 79),
        ("pyproject.toml", "[tool.ruff]\nline-length = 110\n[tool.black]\nline-length = 79\n", 110),
        ("ruff.toml", "line-length = 120\n", 120),
        (".ruff.toml", "line-length = 99\n", 99),
    ],
)
def test_formatter_configuration(tmp_path: Path, name: str, content: str, expected: int) -> None:
    (tmp_path / name).write_text(content)
    assert line_length(None, _file(tmp_path / "src")) == expected


def test_the_nearest_folder_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (tmp_path / "sub" / "pyproject.toml").parent.mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.black]\n")
    (tmp_path / "other" / "pyproject.toml").parent.mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no formatter: passed
    assert line_length(None, _file(tmp_path / "sub" / "pkg")) == 88
    assert line_length(None, _file(tmp_path / "other")) == 100


def test_rtlint_line_length_is_validated(tmp_path: Path) -> None:
    config = config_module.from_table({"line-length": 64}, tmp_path)
    assert config.line_length == 64
    for bad in (0, "100", True):
        with pytest.raises(config_module.ConfigError, match="line-length"):
            config_module.from_table({"line-length": bad}, tmp_path)


SAMPLE = """import asyncio


class Agent:
    def __init__(self, session):
        self._rt_session = session

    async def say(self, text):
        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role="user", content=text + " and more")
        await self._rt_session.update_chat_ctx(ctx)
"""


def test_cli_fix_uses_tool_rtlint_line_length(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\nline-length = 60\n")
    (tmp_path / "agent.py").write_text(SAMPLE)
    run = run_main("--no-cache", "--fix", "agent.py")
    assert run.exit_code == 0, run.stderr
    fixed = (tmp_path / "agent.py").read_text()
    assert (
        '            ctx.add_message(\n                role="user", content=text + " and more"\n            )\n'
        in fixed
    )
    assert max(len(line) for line in fixed.splitlines()) <= 60
    assert run_main("--no-cache", "--fix", "agent.py").exit_code == 0
    assert (tmp_path / "agent.py").read_text() == fixed  # a second --fix changes nothing


APP = """from livekit.agents import Agent


class KnowledgeAgent(Agent):
    async def on_user_turn_completed(self, turn_ctx, new_message):
        docs = await self._kb.search(new_message.text_content)
        for doc in docs:
            turn_ctx.add_message(role="assistant", content=doc.text)
        await self.update_chat_ctx(turn_ctx)
"""


def test_findings_left_after_broken_lines_cite_the_written_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fix above grows by the lines it breaks; a finding it leaves below says "the await at
    # line N": N must be the line in the file as written, as a fresh check reports it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\nline-length = 60\n")
    (tmp_path / "agent.py").write_text(SAMPLE + "\n\n" + APP)
    fixed = run_main("--no-cache", "--fix", "agent.py")
    assert "Fixed 1 finding" in fixed.stderr + fixed.stdout
    fresh = run_main("--no-cache", "agent.py")
    left = [line for line in fixed.stdout.splitlines() if "RTL005" in line]
    assert len(left) == 1 and "the await at line 23" in left[0]  # 21 before the fix broke a line
    assert left == [line for line in fresh.stdout.splitlines() if "RTL005" in line]


def test_an_edited_configuration_is_read_again(tmp_path: Path) -> None:
    # the language server lives long: a line length changed in pyproject.toml applies to the
    # next fix without a restart
    target = _file(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 99\n")
    assert line_length(None, target) == 99
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120  # wider\n")  # another size
    assert line_length(None, target) == 120
    (tmp_path / "pyproject.toml").unlink()
    assert line_length(None, target) == DEFAULT
