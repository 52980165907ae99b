"""The flake8 plugin, run through the real `flake8` command and compared with `rtlint check`."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import rtlint.flake8 as plugin_module
from rtlint.api import check_source
from rtlint.engine import linter as linter_module
from rtlint.flake8 import Plugin
from tests.support.cli import FIXTURES, REPO
from tests.support.samples import (
    BUGGY,
    BUGGY_COLUMN,
    BUGGY_LINE,
    CUSTOM_SESSION,
    TOKENLESS,
    UNSERIALIZED,
    flake8,
    rtlint,
)

LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) (?P<text>.*)$")


def flake8_lines(*paths: str, cwd: Path, select: str = "RTL") -> list[tuple[str, int, int, str, str]]:
    process = flake8("--select", select, *paths, cwd=cwd)
    assert process.returncode in (0, 1), process.stderr
    assert "failed during execution" not in process.stderr, process.stderr
    found = []
    for line in process.stdout.splitlines():
        match = LINE.match(line)
        assert match, f"not a flake8 line: {line!r}"
        found.append(
            (
                str(Path(cwd, match["path"]).resolve()),
                int(match["line"]),
                int(match["column"]),
                match["code"],
                match["text"],
            )
        )
    return found


def rtlint_json(*paths: str, cwd: Path) -> list[dict]:
    process = rtlint("check", "--no-cache", "--format", "json", *paths, cwd=cwd)
    assert process.returncode in (0, 1), process.stderr
    return json.loads(process.stdout)


def as_flake8(finding: dict, cwd: Path) -> tuple[str, int, int, str, str]:
    text = f"[{finding['name']}] {finding['message']}"
    return str(Path(cwd, finding["path"]).resolve()), finding["line"], finding["column"], finding["code"], text


def test_same_findings_as_rtlint_check(tmp_path: Path) -> None:
    # the fixtures (other samples are added all the time, so nothing is counted here) plus
    # one sample that certainly has a finding
    (tmp_path / "buggy.py").write_text(BUGGY)
    paths = [str(FIXTURES), str(tmp_path)]

    reported = flake8_lines(*paths, cwd=REPO, select="RTL,E999")
    expected = [as_flake8(f, REPO) for f in rtlint_json(*paths, cwd=REPO)]

    # a file this interpreter's parser rejects is flake8's E999 (never an RTL900 too) and
    # cannot be analysed by the plugin; rtlint check may still read it (newer syntax)
    unparsable = {r[0] for r in reported if r[3] == "E999"}
    engine_only = {e[0] for e in expected if e[3] in ("RTL900", "RTL901")}
    assert engine_only <= unparsable
    reported = [r for r in reported if r[0] not in unparsable]
    expected = [e for e in expected if e[0] not in unparsable]

    assert sorted(reported) == sorted(expected)
    buggy = str((tmp_path / "buggy.py").resolve())
    assert (buggy, BUGGY_LINE, BUGGY_COLUMN) in {r[:3] for r in reported}


def test_printed_line_is_rtlint_text_line(tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(BUGGY)
    printed = flake8("--select", "RTL", "buggy.py", cwd=tmp_path)
    text = rtlint("check", "--no-cache", "buggy.py", cwd=tmp_path)
    assert printed.returncode == 1 and text.returncode == 1
    # identical but for rtlint's own "[*] fixable" mark
    assert printed.stdout.splitlines() == [line.removesuffix(" [*]") for line in text.stdout.splitlines()]
    assert printed.stdout.startswith(
        f"buggy.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot] snapshot of"
    )


def test_suppression_comments_in_both(tmp_path: Path) -> None:
    lines = BUGGY.splitlines(keepends=True)

    def with_comment(comment: str) -> str:
        copy = list(lines)
        copy[BUGGY_LINE - 1] = copy[BUGGY_LINE - 1].rstrip("\n") + f"  {comment}\n"
        return "".join(copy)

    (tmp_path / "noqa.py").write_text(with_comment("# noqa: RTL001"))
    (tmp_path / "noqa_bare.py").write_text(with_comment("# noqa"))
    (tmp_path / "rtlint_ignore.py").write_text(with_comment("# rtlint: ignore[RTL001]"))
    (tmp_path / "other_code.py").write_text(with_comment("# noqa: E501"))

    reported = {Path(r[0]).name for r in flake8_lines(".", cwd=tmp_path)}
    checked = {Path(f["path"]).name for f in rtlint_json(".", cwd=tmp_path)}
    assert reported == checked == {"other_code.py"}


def test_file_without_tokens_yields_nothing(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(TOKENLESS)
    process = flake8("--select", "RTL", "plain.py", cwd=tmp_path)
    assert (process.returncode, process.stdout) == (0, "")


def test_prefilter_skips_analysis_and_tree_is_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    # in-process, to see what the plugin does: no rule runs on a token-less file, and a
    # file that is analysed uses flake8's tree rather than a second parse
    calls = []
    real = plugin_module.lint_text
    monkeypatch.setattr(plugin_module, "lint_text", lambda *a, **k: calls.append(a) or real(*a, **k))

    def parse_again(*args, **kwargs):
        raise AssertionError("the plugin parsed the file a second time")

    monkeypatch.setattr(linter_module, "parse", parse_again)

    plain = Plugin(ast.parse(TOKENLESS), "plain.py", TOKENLESS.splitlines(keepends=True))
    assert list(plain.run()) == []
    assert calls == []

    buggy = Plugin(ast.parse(BUGGY), "buggy.py", BUGGY.splitlines(keepends=True))
    results = list(buggy.run())
    assert len(calls) == 1
    assert [(line, column, kind) for line, column, _, kind in results] == [(BUGGY_LINE, BUGGY_COLUMN - 1, Plugin)]
    assert results[0][2].startswith("RTL001 [stale-mirror-snapshot] ")


def test_syntax_error_is_only_e999(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(BUGGY + "\n    def (\n")
    codes = [r[3] for r in flake8_lines("broken.py", cwd=tmp_path, select="RTL,E999")]
    assert codes == ["E999"]
    assert [f["code"] for f in rtlint_json("broken.py", cwd=tmp_path)] == ["RTL900"]


def test_tool_rtlint_configuration(tmp_path: Path) -> None:
    """Vocabulary, ignore and per-file-ignores from [tool.rtlint], as `rtlint check` reads them."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.rtlint]\nsession-names = ["_voice"]\nignore = ["RTL004"]\n'
        '[tool.rtlint.per-file-ignores]\n"legacy/*" = ["RTL001"]\n'
    )
    (tmp_path / "app").mkdir()
    (tmp_path / "legacy").mkdir()
    (tmp_path / "app" / "voice.py").write_text(CUSTOM_SESSION)
    (tmp_path / "legacy" / "voice.py").write_text(CUSTOM_SESSION)
    # an unlocked push in a class with a locked one: RTL004, ignored by the configuration
    (tmp_path / "app" / "replace.py").write_text(UNSERIALIZED)
    assert [f.code for f in check_source(UNSERIALIZED)] == ["RTL004"]

    reported = flake8_lines(".", cwd=tmp_path)
    expected = [as_flake8(f, tmp_path) for f in rtlint_json(".", cwd=tmp_path)]
    assert sorted(reported) == sorted(expected)
    assert [(Path(r[0]).relative_to(tmp_path.resolve()).as_posix(), r[3]) for r in reported] == [
        ("app/voice.py", "RTL001")
    ]

    # the rtlint-config option points the plugin at another configuration
    (tmp_path / "other.toml").write_text("select = []\n")
    process = flake8("--select", "RTL", "--rtlint-config", "other.toml", ".", cwd=tmp_path)
    assert (process.returncode, process.stdout) == (0, "")


def test_entry_point_is_registered() -> None:
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="flake8.extension") if ep.name == "RTL"]
    assert [ep.value for ep in found] == ["rtlint.flake8:Plugin"]
    process = flake8("--version", cwd=REPO)
    assert "rtlint:" in process.stdout


def test_configuration_error_is_reported_like_the_cli(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\nsesion-names = ['_voice']\n")
    (tmp_path / "voice.py").write_text(BUGGY)
    process = flake8("--select", "RTL", "voice.py", cwd=tmp_path)
    cli = rtlint("check", "--no-cache", "voice.py", cwd=tmp_path)
    assert cli.returncode == 2
    assert process.returncode != 0 and "Traceback" not in process.stderr
    message = "unknown configuration key(s)"
    assert message in cli.stderr and message in process.stdout and "sesion-names" in process.stdout
