"""Configuration that inherits (issue 24, "Why" 1 and 2): `extend`, the `extend-*` keys,
`fixable`/`unfixable`, a nested configuration used alone (and said so), `--show-settings`,
and one resolution for the command line, flake8 and the language server (issue 25, "Why" 1:
a file linted once, under its real path's configuration)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rtlint.engine import config as config_module
from tests.support.cli import run_main
from tests.support.samples import BUGGY, flake8, rtlint

# three RTL006 findings, each found only with the root's vocabulary: the agent is `bot`, the
# push `push_ctx`, and two of the spawns `spawn(...)`
VOCABULARY_APP = """import asyncio


class Helper:
    async def remember(self, fact):
        ctx = self.bot.chat_ctx.copy()
        ctx.add_message(role="assistant", content=fact)
        spawn(self.bot.push_ctx(ctx))

    async def recall(self, fact):
        ctx = self.bot.chat_ctx.copy()
        ctx.add_message(role="assistant", content=fact)
        spawn(self.bot.push_ctx(ctx))

    async def note(self, fact):
        ctx = self.bot.chat_ctx.copy()
        ctx.add_message(role="assistant", content=fact)
        asyncio.create_task(self.bot.push_ctx(ctx))
"""
ROOT = """[tool.rtlint]
agent-names = ["bot", "agent"]
task-spawners = ["create_task", "ensure_future", "spawn"]
push-methods = ["update_chat_ctx", "push_ctx"]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(ROOT)
    (tmp_path / "src" / "legacy").mkdir(parents=True)
    (tmp_path / "src" / "legacy" / "app.py").write_text(VOCABULARY_APP)
    return tmp_path


def lines(run) -> list[str]:
    return [line.split(":")[0] + ":" + line.split(":")[1] for line in run.stdout.splitlines()]


def test_extend_keeps_the_root_vocabulary(project: Path) -> None:
    nested = project / "src" / "legacy" / ".rtlint.toml"
    nested.write_text('extend = "../../pyproject.toml"\nignore = ["RTL001"]\n')
    run = run_main("--no-cache", "src/legacy")
    assert run.exit_code == 1, run.stderr
    assert lines(run) == ["src/legacy/app.py:8", "src/legacy/app.py:13", "src/legacy/app.py:18"]
    assert "used alone" not in run.stderr


def test_a_nested_configuration_without_extend_is_used_alone_and_said_so(project: Path) -> None:
    (project / "src" / "legacy" / ".rtlint.toml").write_text('ignore = ["RTL001"]\n')
    run = run_main("--no-cache", "src/legacy")
    # as ruff: the nearest configuration alone, so the vocabulary of the root does not apply...
    assert run.exit_code == 0 and run.stdout == ""
    # ... and the summary says so, with the line that would inherit it
    assert "src/legacy/.rtlint.toml is used alone" in run.stderr
    assert 'extend = "../../pyproject.toml"' in run.stderr
    assert "used alone" not in run_main("--no-cache", "--quiet", "src/legacy").stderr


def test_extend_select_ignore_and_per_file_ignores_add_to_the_extended(project: Path) -> None:
    (project / "pyproject.toml").write_text(ROOT + 'ignore = ["RTL005"]\n[tool.rtlint.per-file-ignores]\n"x.py" = []\n')
    legacy = project / "src" / "legacy"
    (legacy / "tests").mkdir()
    (legacy / "tests" / "t.py").write_text(VOCABULARY_APP)
    (legacy / "app.py").write_text(
        VOCABULARY_APP.replace("spawn(self.bot.push_ctx(ctx))\n", "spawn(self.bot.push_ctx(ctx))  # noqa: RTL006\n", 1)
    )
    (legacy / ".rtlint.toml").write_text(
        'extend = "../../pyproject.toml"\nextend-select = ["RTL100"]\n'
        '[extend-per-file-ignores]\n"tests/*" = ["RTL006"]\n'
    )
    config = config_module.load(None, legacy / "app.py")
    codes = [rule.code for rule in config.enabled_rules()]
    assert "RTL005" not in codes and "RTL006" in codes  # the root's ignore still applies
    assert config.selects("RTL100")  # added to the defaults, not replacing them
    run = run_main("--no-cache", "src/legacy")
    assert lines(run) == ["src/legacy/app.py:13", "src/legacy/app.py:18"]  # tests/* ignore RTL006
    # a `select` of the nested file starts again from its codes (as ruff applies them)
    (legacy / ".rtlint.toml").write_text('extend = "../../pyproject.toml"\nselect = ["RTL002"]\n')
    assert run_main("--no-cache", "src/legacy").stdout == ""


def test_unfixable_reports_without_fixing(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    (project / "pyproject.toml").write_text(ROOT + 'unfixable = ["RTL001"]\n')
    before = (project / "a.py").read_text()
    run = run_main("--no-cache", "--fix", "a.py")
    assert run.exit_code == 1 and "RTL001" in run.stdout and "[*]" not in run.stdout
    assert (project / "a.py").read_text() == before
    as_json = json.loads(run_main("--no-cache", "--format", "json", "a.py").stdout)
    assert [f["fix"] for f in as_json if f["code"] == "RTL001"] == [None]
    (project / "pyproject.toml").write_text(ROOT + 'fixable = ["RTL0"]\n')
    assert run_main("--no-cache", "--fix", "a.py").exit_code == 0
    assert (project / "a.py").read_text() != before


@pytest.mark.parametrize(
    "body, message",
    [
        ('extend = "missing.toml"', "configuration file not found"),
        ("extend = 3", "'extend'"),
        ('extend = "pyproject.toml"', "configuration extends itself"),
    ],
)
def test_bad_extend_is_a_configuration_error(project: Path, body: str, message: str) -> None:
    (project / "src" / "legacy" / "pyproject.toml").write_text(f"[tool.rtlint]\n{body}\n")
    run = run_main("--no-cache", "src/legacy")
    assert run.exit_code == 2 and message in run.stderr and "Traceback" not in run.stderr


def test_show_settings_says_where_each_setting_came_from(project: Path) -> None:
    nested = project / "src" / "legacy" / ".rtlint.toml"
    nested.write_text('extend = "../../pyproject.toml"\nignore = ["RTL001"]\n')
    run = run_main("--show-settings", "src/legacy/app.py")
    assert run.exit_code == 0, run.stderr
    shown = {line.split(" = ")[0]: line for line in run.stdout.splitlines() if " = " in line}
    assert shown["agent-names"].endswith("# pyproject.toml") and '["bot", "agent"]' in shown["agent-names"]
    assert shown["ignore"].endswith("# src/legacy/.rtlint.toml")
    assert shown["push-lock"].endswith("# default")
    assert (
        "extends: pyproject.toml" in run.stdout and "RTL001" not in run.stdout.split("rules enabled:")[1].split("\n")[0]
    )
    nested.write_text('ignore = ["RTL001"]\n')
    alone = run_main("--show-settings", "src/legacy/app.py").stdout
    assert "used alone" in alone and shown["agent-names"] not in alone


def test_namespaced_tables_hold_declared_options(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[tool.rtlint.<ns>]` holds the options declared as `<ns>.<key>` (another framework's
    vocabulary), validated by their declaration and merged key by key over `extend`."""
    from rtlint.core.settings import Option
    from rtlint.engine import registry

    declared = {
        **registry.all_options(),
        "frame.names": Option("frame.names", ["a"], "test"),
        "frame.n": Option("frame.n", 1, ""),
    }
    monkeypatch.setattr(config_module.registry, "all_options", lambda: declared)
    (project / "pyproject.toml").write_text(ROOT + '[tool.rtlint.frame]\nnames = ["x"]\nn = 2\n')
    (project / "src" / "legacy" / ".rtlint.toml").write_text('extend = "../../pyproject.toml"\n[frame]\nn = 3\n')
    config = config_module.load(None, project / "src" / "legacy" / "app.py")
    assert config.options["frame.names"] == ("x",) and config.options["frame.n"] == 3
    (project / "src" / "legacy" / ".rtlint.toml").write_text('[frame]\nname = ["y"]\n')
    with pytest.raises(config_module.ConfigError, match="frame.name"):
        config_module.load(None, project / "src" / "legacy" / "app.py")
    (project / "src" / "legacy" / ".rtlint.toml").write_text('[frame]\nnames = "y"\n')
    with pytest.raises(config_module.ConfigError, match="frame.names"):
        config_module.load(None, project / "src" / "legacy" / "app.py")


# -- one resolution for the command line, flake8 and the server --------------------------


def _server_findings(path: Path, root: Path) -> list[tuple[str, int, str]]:
    from rtlint.lsp.analysis import analyse
    from rtlint.lsp.document import Document

    analysis = analyse(Document(path.resolve().as_uri(), path.read_text()), root)
    assert analysis.problem is None, analysis.problem
    return [(path.resolve().relative_to(root.resolve()).as_posix(), f.line, f.code) for f in analysis.findings]


def test_cli_flake8_and_server_agree_on_a_nested_tree(project: Path) -> None:
    """`extend`, excludes (the root's `extend-exclude`), per-file ignores (the nested file's
    `extend-per-file-ignores`) and the vocabulary, in a nested tree, in all three."""
    (project / "pyproject.toml").write_text(ROOT + 'extend-exclude = ["generated"]\n')
    legacy = project / "src" / "legacy"
    (legacy / ".rtlint.toml").write_text(
        'extend = "../../pyproject.toml"\n[extend-per-file-ignores]\n"old_*.py" = ["RTL006"]\n'
    )
    (legacy / "old_app.py").write_text(VOCABULARY_APP)
    (legacy / "generated").mkdir()
    (legacy / "generated" / "app.py").write_text(VOCABULARY_APP)
    (project / "generated").mkdir()
    (project / "generated" / "app.py").write_text(VOCABULARY_APP)
    (project / "top.py").write_text(VOCABULARY_APP)

    cli = rtlint("check", "--no-cache", "--format", "json", ".", cwd=project)
    assert cli.returncode == 1, cli.stderr
    from_cli = sorted((f["path"], f["line"], f["code"]) for f in json.loads(cli.stdout))
    expected = [(p, line, "RTL006") for p in ("src/legacy/app.py", "top.py") for line in (8, 13, 18)]
    assert from_cli == expected

    process = flake8("--select", "RTL", ".", cwd=project)
    from_flake8 = sorted(
        (line.split(":")[0].removeprefix("./"), int(line.split(":")[1]), line.split(" ")[1])
        for line in process.stdout.splitlines()
    )
    assert from_flake8 == expected, process.stdout + process.stderr

    files = [
        legacy / "app.py",
        legacy / "old_app.py",
        legacy / "generated" / "app.py",
        project / "generated" / "app.py",
    ]
    from_server = sorted(f for path in [*files, project / "top.py"] for f in _server_findings(path, project))
    assert from_server == expected


def test_a_link_takes_its_targets_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25, "Why" 1: a link in a folder that ignores every rule does not hide the
    findings of its target, and a link elsewhere does not get its target fixed against the
    target's own folder's configuration."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "src" / "agent.py").write_text(BUGGY)
    (tmp_path / "a" / ".rtlint.toml").write_text('ignore = ["RTL"]\n')
    os.symlink("../src/agent.py", tmp_path / "a" / "agent.py")
    run = run_main("--no-cache", ".")
    assert run.exit_code == 1 and "RTL001" in run.stdout
    assert run_main("--no-cache", "a/agent.py").exit_code == 1  # named, the same
    from rtlint.engine.discovery import discover

    found = discover(["."], config_module.Finder(None))
    assert len(found.targets) == 1  # once, under one name
    server = _server_findings(tmp_path / "a" / "agent.py", tmp_path)
    assert [code for _, _, code in server] == ["RTL001"]
    by_flake8 = flake8("--select", "RTL0", "a/agent.py", cwd=tmp_path).stdout
    assert "RTL001" in by_flake8, by_flake8

    # reversed: the file lives in the folder that ignores every rule; a link to it elsewhere
    # must not get it fixed
    for path in (tmp_path / "a" / "agent.py", tmp_path / "src" / "agent.py"):
        path.unlink()
    (tmp_path / "a" / "agent.py").write_text(BUGGY)
    os.symlink("../a/agent.py", tmp_path / "src" / "agent.py")
    assert run_main("--no-cache", "--fix", ".").exit_code == 0
    assert run_main("--no-cache", "--fix", "src").exit_code == 0
    assert (tmp_path / "a" / "agent.py").read_text() == BUGGY


def test_the_readmes_configuration_sample_is_valid(tmp_path: Path) -> None:
    from tests.support.cli import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sample = readme[readme.index("## Configuration") :].split("```toml\n", 1)[1].split("```", 1)[0]
    assert "extend-select" in sample and "unfixable" in sample
    (tmp_path / "pyproject.toml").write_text(sample.replace('# extend = "../pyproject.toml"', ""))
    config = config_module.load(None, tmp_path / "a.py")
    assert config.selects("RTL100") and not config.fix_allowed("RTL006")
