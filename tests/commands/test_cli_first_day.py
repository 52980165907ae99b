"""What a new user meets on the first day (issue 14): colour, documentation URLs, help, and
the thirteen command-line defects, each reproduced as the issue reports it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.engine import registry
from rtlint.report import docs
from tests.support.cli import REPO, run_cli, run_main
from tests.support.samples import BUGGY, clean_env

EXAMPLE = REPO / "examples" / "realtime_agent.py"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
UNSAFE_ONLY = BUGGY.replace("    def __init__(self, session):\n        self._rt_session = session\n\n", "")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "a.py").write_text(BUGGY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


# -- colour ------------------------------------------------------------------------------


def test_color_always_never_and_auto(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = run_main("--no-cache", "--color", "never", "a.py").stdout
    coloured = run_main("--no-cache", "--color", "always", "a.py").stdout
    assert not ANSI.search(plain)
    assert "\x1b[1;31mRTL001\x1b[0m" in coloured and ANSI.sub("", coloured) == plain
    assert run_main("--no-cache", "a.py").stdout == plain  # auto: not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert run_main("--no-cache", "a.py").stdout == coloured
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins over FORCE_COLOR in auto
    assert run_main("--no-cache", "a.py").stdout == plain
    assert run_main("--no-cache", "--color", "always", "a.py").stdout == coloured  # explicit wins
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set
    assert run_main("--no-cache", "a.py").stdout == plain


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_color_auto_on_a_terminal(project: Path) -> None:
    import pty

    def on_terminal(**env: str) -> bytes:
        main, secondary = pty.openpty()
        subprocess.run(
            [sys.executable, "-m", "rtlint", "--no-cache", "--no-show-source", "a.py"],
            stdout=secondary,
            stderr=subprocess.DEVNULL,
            cwd=project,
            env=clean_env(**env),
            timeout=300,
        )
        import os

        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(main)
        return b"".join(chunks)

    assert b"\x1b[1;31mRTL001" in on_terminal(TERM="xterm")
    assert b"\x1b[" not in on_terminal(TERM="xterm", NO_COLOR="1")


# -- documentation URLs ------------------------------------------------------------------


def test_json_and_sarif_carry_the_rule_page(project: Path) -> None:
    [finding] = json.loads(run_main("--no-cache", "--format", "json", "a.py").stdout)
    assert finding["url"] == docs.rule_url("RTL001")
    sarif = json.loads(run_main("--no-cache", "--format", "sarif", "a.py").stdout)
    descriptors = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert {d["id"]: d["helpUri"] for d in descriptors} == {
        code: docs.rule_url(code) for code in registry.known_codes()
    }
    for descriptor in descriptors:
        # every URL points at a page the repository has
        assert (REPO / "docs" / "rules" / descriptor["helpUri"].rsplit("/", 1)[1]).is_file()


def test_rule_pages_in_the_repository_do_not_drift() -> None:
    folder = REPO / "docs" / "rules"
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    assert on_disk == docs.rendered_pages(), "docs/rules drifted: run `python -m rtlint.report.docs --write docs/rules`"
    for name, page in on_disk.items():
        assert page == run_main("explain", name[:-3]).stdout  # the same source as `rtlint explain`


def test_rule_pages_are_rendered_by_a_command(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    (folder).mkdir()
    (folder / "RTL999.md").write_text("a rule that no longer exists\n")
    run = subprocess.run(
        [sys.executable, "-m", "rtlint.report.docs", "--write", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(docs.rendered_pages())
    assert f"{folder}/RTL999.md" in run.stdout.splitlines()
    again = subprocess.run(
        [sys.executable, "-m", "rtlint.report.docs", "--write", str(folder)], capture_output=True, text=True
    )
    assert again.stdout == ""  # nothing to change


# -- the thirteen defects ----------------------------------------------------------------


def test_1_statistics_as_json(project: Path) -> None:
    (project / "b.py").write_text(BUGGY)
    run = run_main("--no-cache", "--statistics", "--format", "json", ".")
    assert run.exit_code == 1
    assert json.loads(run.stdout) == [
        {"code": "RTL001", "name": "stale-mirror-snapshot", "count": 2, "fixable": 2, "url": docs.rule_url("RTL001")}
    ]


def test_2_exit_zero_with_diff(project: Path) -> None:
    run = run_main("--no-cache", "--exit-zero", "--diff", "a.py")
    assert run.exit_code == 0 and run.stdout.startswith("--- a/a.py")
    assert run_main("--no-cache", "--diff", "a.py").exit_code == 1


def test_3_missing_file_is_not_all_checks_passed(project: Path) -> None:
    run = run_main("--no-cache", "nosuch.py")
    assert run.exit_code == 2
    assert "nosuch.py: no such file or directory" in run.stderr
    assert "All checks passed" not in run.stderr


def test_4_an_ignored_folder_is_said_to_be_unchecked(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("generated/\n")
    (project / "generated").mkdir()
    (project / "generated" / "agent.py").write_text(BUGGY)
    run = run_main("--no-cache", "generated")
    assert run.exit_code == 0
    assert "All checks passed" not in run.stderr
    assert "generated: no Python file checked" in run.stderr and "No file checked." in run.stderr
    # one folder checked, one not: the other one is still named
    both = run_main("--no-cache", "generated", "a.py")
    assert "generated: no Python file checked" in both.stderr and "Found 1 finding." in both.stderr


def test_5_fix_counts_what_fixing_uncovers(project: Path) -> None:
    (project / "agent.py").write_text(EXAMPLE.read_text(encoding="utf-8"))
    before = run_main("--no-cache", "agent.py")
    # RTL003's fix drains a stream not known to end: unsafe
    assert "[*] 3 fixable with --fix.\n1 more fixable with --fix --unsafe-fixes.\n" in before.stderr
    fixed = run_main("--no-cache", "--fix", "agent.py")
    assert (
        "Fixed 5 findings in 1 file (2 more than reported: fixing uncovers findings that the same run fixes)."
        in fixed.stderr
    )
    assert (
        run_main("--no-cache", "--fix", "a.py").stderr == "Checked 1 file.\nFixed 1 finding in 1 file.\n"
    )  # no note when none


def test_6_a_single_unsafe_finding_is_not_one_more(project: Path) -> None:
    (project / "a.py").write_text(UNSAFE_ONLY)
    run = run_main("--no-cache", "a.py")
    assert run.stderr == "Checked 1 file.\nFound 1 finding.\n1 fixable with --fix --unsafe-fixes.\n"
    (project / "b.py").write_text(BUGGY)
    both = run_main("--no-cache", ".")
    assert (
        both.stderr
        == "Checked 2 files.\nFound 2 findings.\n[*] 1 fixable with --fix.\n1 more fixable with --fix --unsafe-fixes.\n"
    )


def test_7_unsafe_fixes_without_fix_keeps_the_hint(project: Path) -> None:
    (project / "a.py").write_text(UNSAFE_ONLY)
    run = run_main("--no-cache", "--unsafe-fixes", "a.py")
    assert run.stderr == "Checked 1 file.\nFound 1 finding.\n[*] 1 fixable with --fix (unsafe fixes are enabled).\n"


def test_8_help_of_the_subcommands(project: Path) -> None:
    explain = run_main("explain", "--help")
    assert explain.exit_code == 0 and explain.stdout.startswith("usage: rtlint explain CODE")
    assert "rule name" in explain.stdout and explain.stderr == ""
    rules = run_main("rules", "--help")
    assert rules.exit_code == 0 and "List every code" in rules.stdout
    assert run_main("rules", "extra").exit_code == 2
    assert run_cli("explain", "-h").stdout.startswith("usage: rtlint explain CODE")


def test_9_every_option_has_help_and_the_terminal_default_is_said(project: Path) -> None:
    text = run_main("--help").stdout
    assert run_main("--help").exit_code == 0
    for option in (
        "--format",
        "--show-source",
        "--no-show-source",
        "--color",
        "--stdin-filename",
        "--add-noqa",
        "--show-fixes",
    ):
        block = text[text.index(option) :].split("\n  -", 1)[0]
        assert len(block.split()) > 3, f"{option} has no help"
    flat = " ".join(text.split())
    assert "default: when the output is a terminal" in flat
    assert "on a terminal, unless NO_COLOR is set" in flat


def test_10_config_file_with_a_tool_rtlint_table(project: Path) -> None:
    (project / "r.toml").write_text('[tool.rtlint]\nignore = ["RTL001"]\n')
    assert run_main("--no-cache", "--config", "r.toml", "a.py").exit_code == 0
    (project / "flat.toml").write_text('ignore = ["RTL001"]\n')
    assert run_main("--no-cache", "--config", "flat.toml", "a.py").exit_code == 0
    (project / "other.toml").write_text("[tool.ruff]\nline-length = 99\n")
    run = run_main("--no-cache", "--config", "other.toml", "a.py")
    assert run.exit_code == 2 and "has no [tool.rtlint] table" in run.stderr


def test_11_readme_names_ruf102_for_unknown_noqa_codes() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "RUF102" in readme and "removes `# noqa` codes it does not know" not in readme
    assert 'external = ["RTL"]' in readme


def test_12_readme_pre_commit_rev_is_a_ref_that_exists_and_one_hook_is_on() -> None:
    """The repository has no tags: the snippet names the branch (tests/distribution runs it
    with pre-commit), enables one hook and comments the other, and the hooks file agrees."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    [rev] = re.findall(r"^\s+rev: (\S+)", readme, re.M)
    assert rev == "main"
    assert "pre-commit try-repo" in readme
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "#     rev: main" in hooks and "#       - id: rtlint  #" in hooks and "#       # - id: rtlint-fix" in hooks


def test_13_readme_says_what_ignoring_rtl004_means_for_the_lock_fix() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    configuration = readme[readme.index("## Configuration") : readme.index("## Suppressing")]
    assert 'ignore = ["RTL004"]' in configuration
    assert "RTL004" in configuration.split('ignore = ["RTL004"]', 1)[1]  # explained below the sample


# -- the import circle -------------------------------------------------------------------


def test_commands_do_not_import_the_entry_point() -> None:
    probe = "import sys, rtlint.commands.check, rtlint.commands.reporting; print('rtlint.cli' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.stdout.strip() == "False", run.stderr


# -- the README's first command ----------------------------------------------------------


def test_readme_first_command_runs_on_both_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = readme.split("```sh\n", 1)[1].split("\n", 1)[0]
    invocations = [part.strip().split() for part in command.split("&&")[-1].split(";")]
    assert [words[0] for words in invocations] == ["rtlint", "rtlint"] and "--diff" in invocations[1]
    monkeypatch.chdir(REPO)
    lint, diff = (run_main("--no-cache", *words[1:]) for words in invocations)
    found = [(line.split(":")[0], line.split()[1]) for line in lint.stdout.splitlines()]
    assert found == [
        ("examples/app_agent.py", "RTL005"),
        ("examples/app_agent.py", "RTL006"),
        ("examples/app_agent.py", "RTL007"),
        ("examples/pipecat_app.py", "RTL005"),
        ("examples/pipecat_app.py", "RTL006"),
        ("examples/pipecat_app.py", "RTL005"),
        ("examples/pipecat_app.py", "RTL008"),
        ("examples/realtime_agent.py", "RTL001"),
        ("examples/realtime_agent.py", "RTL002"),
        ("examples/realtime_agent.py", "RTL001"),
        ("examples/realtime_agent.py", "RTL003"),
    ]
    assert lint.exit_code == 1 and lint.stderr.startswith("Checked 3 files.\nFound 11 findings.\n")
    assert "--- a/examples/app_agent.py" in diff.stdout and "--- a/examples/realtime_agent.py" in diff.stdout
    # the fixes of the application code: a fresh copy written back, the discarded copy bound
    assert "+        fresh_ctx = self.chat_ctx.copy()\n" in diff.stdout
    assert "+    chat_ctx = agent.chat_ctx.copy()\n" in diff.stdout
    # on Pipecat: a Transform of the live list, a replay after the await, a copy where bound
    assert "+            transform=lambda messages: list(map(redact, messages))\n" in diff.stdout
    assert "+            frame.context.transform_messages(lambda current: [*current, added_message])\n" in diff.stdout
    assert "+    messages = list(params.context.get_messages())\n" in diff.stdout
    # RTL006's fix is unsafe (the tool then waits for the push), and so is RTL003's (it drains
    # a stream not known to end), so --diff leaves them
    assert diff.stderr.endswith("Found 3 findings.\n3 fixable with --fix --unsafe-fixes.\n")


@pytest.mark.parametrize("seed", ["1", "3", "5"])
def test_the_examples_diff_is_the_same_under_any_hash_seed(seed: str) -> None:
    """Linting app_agent.py before pipecat_app.py in one process once chose, by object id, the
    copy an `append` derives from the bound one (no fix) or the bound copy (the transform fix):
    the diff changed with PYTHONHASHSEED. Copies are now taken in source order."""
    import os

    env = {**os.environ, "PYTHONHASHSEED": seed}
    run = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--diff", "examples/"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "+            frame.context.transform_messages(lambda current: [*current, added_message])\n" in run.stdout
