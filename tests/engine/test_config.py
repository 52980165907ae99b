"""[tool.rtlint]: discovery of the file, validation, and what each key does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.samples import BUGGY, CUSTOM_SESSION


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def configure(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.rtlint]\n{body}\n")


def test_vocabulary_names_a_session(project: Path) -> None:
    (project / "a.py").write_text(CUSTOM_SESSION)
    configure(project, "")
    assert run_main("--no-cache", "a.py").exit_code == 0  # `_voice` is not known by default
    configure(project, 'session-names = ["_voice"]')
    run = run_main("--no-cache", "a.py")
    assert run.exit_code == 1 and "snapshot of self._voice.chat_ctx" in run.stdout


def test_push_lock_name_is_configurable(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    configure(project, 'push-lock = "_push_lock"')
    run = run_main("--no-cache", "--fix", "a.py")
    assert run.exit_code == 0
    assert "async with self._push_lock:" in (project / "a.py").read_text()


def test_select_and_ignore_in_config(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    configure(project, 'ignore = ["RTL001"]')
    assert run_main("--no-cache", "a.py").exit_code == 0
    configure(project, 'select = ["RTL002"]')
    assert run_main("--no-cache", "a.py").exit_code == 0
    configure(project, 'select = ["RTL002"]')
    assert run_main("--no-cache", "--select", "RTL001", "a.py").exit_code == 1  # the command line wins


def test_per_file_ignores(project: Path) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "t.py").write_text(BUGGY)
    (project / "a.py").write_text(BUGGY)
    configure(project, '[tool.rtlint.per-file-ignores]\n"tests/*" = ["RTL001"]')
    run = run_main("--no-cache", ".")
    assert run.exit_code == 1
    assert [line.split(":")[0] for line in run.stdout.splitlines()] == ["a.py"]


def test_per_file_ignores_cover_syntax_errors(project: Path) -> None:
    (project / "bad.py").write_text("def f(:\n")
    configure(project, '[tool.rtlint.per-file-ignores]\n"bad.py" = ["RTL900"]')
    assert run_main("--no-cache", "bad.py").exit_code == 0


@pytest.mark.parametrize(
    "body, message",
    [
        ("sessoin-names = []", "unknown configuration key(s)"),
        ('select = ["RTL777"]', "unknown rule code(s)"),
        ('[tool.rtlint.per-file-ignores]\n"x.py" = ["NOPE1"]', "unknown rule code(s)"),
        ('session-names = "rt"', "'session-names' must be a list of strings"),
        ("force-exclude = 1", "'force-exclude'"),
        ("select = [", "is not valid TOML"),
    ],
)
def test_bad_configuration_exits_two_naming_the_problem(project: Path, body: str, message: str) -> None:
    (project / "a.py").write_text(BUGGY)
    configure(project, body)
    run = run_main("--no-cache", "a.py")
    assert run.exit_code == 2
    assert message in run.stderr and "Traceback" not in run.stderr
    assert "pyproject.toml" in run.stderr


def test_explicit_config_file(project: Path) -> None:
    (project / "a.py").write_text(CUSTOM_SESSION)
    (project / "rtlint.toml").write_text('session-names = ["_voice"]\n')
    assert run_main("--no-cache", "--config", "rtlint.toml", "a.py").exit_code == 1
    missing = run_main("--no-cache", "--config", "nope.toml", "a.py")
    assert missing.exit_code == 2 and "configuration file not found: nope.toml" in missing.stderr


def test_nearest_configuration_per_path(project: Path) -> None:
    for name, vocabulary in (("one", '["_voice"]'), ("two", '["_other"]')):
        (project / name).mkdir()
        (project / name / "pyproject.toml").write_text(f"[tool.rtlint]\nsession-names = {vocabulary}\n")
        (project / name / "a.py").write_text(CUSTOM_SESSION)
    run = run_main("--no-cache", "one", "two")
    assert [line.split(":")[0] for line in run.stdout.splitlines()] == ["one/a.py"]


def test_exclude_and_force_exclude(project: Path) -> None:
    (project / "generated").mkdir()
    (project / "generated" / "g.py").write_text(BUGGY)
    configure(project, 'extend-exclude = ["generated"]')
    assert run_main("--no-cache", ".").exit_code == 0
    # a file named explicitly is linted, unless --force-exclude (how pre-commit passes files)
    assert run_main("--no-cache", "generated/g.py").exit_code == 1
    assert run_main("--no-cache", "--force-exclude", "generated/g.py").exit_code == 0


def test_unknown_key_in_pyproject_without_rtlint_table_is_ignored(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    (project / "a.py").write_text(BUGGY)
    assert run_main("--no-cache", "a.py").exit_code == 1


PIPECAT_WRITE = """\
from pipecat.frames.frames import LLMMessagesUpdateFrame


async def f(self):
    await self.push_frame(LLMMessagesUpdateFrame(messages=self._memory.get_messages() + [NOTE]))
"""


def test_a_framework_namespace_is_a_table_of_its_own(project: Path) -> None:
    """`[tool.rtlint.pipecat]` holds Pipecat's keys (`pipecat.<key>` to the rules); its unknown
    keys are named with the namespace, and the flat `[tool.rtlint]` keys still work beside it."""
    (project / "a.py").write_text(PIPECAT_WRITE)
    configure(project, 'push-methods = ["update_chat_ctx"]')
    assert run_main("--no-cache", "a.py").exit_code == 0  # `_memory` is no context by default
    configure(project, 'push-methods = ["update_chat_ctx"]\n[tool.rtlint.pipecat]\ncontext-names = ["_memory"]')
    run = run_main("--no-cache", "a.py")
    assert run.exit_code == 1 and "RTL005" in run.stdout
    configure(project, '[tool.rtlint.pipecat]\ncontext-nmaes = ["_memory"]')
    run = run_main("--no-cache", "a.py")
    assert run.exit_code == 2 and "pipecat.context-nmaes" in run.stderr
