"""Writing `# noqa: CODE` comments: placement as flake8 reads them, merging, idempotence,
and every byte outside the insertion kept."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rtlint.suppress.comments import NoqaError, token_ranges
from rtlint.suppress.noqa import add_noqa, noqa_edits
from rtlint.suppress.suppression import Suppressions
from tests.support.cli import FIXTURES
from tests.support.samples import BUGGY, BUGGY_LINE, flake8


def inserted_only(before: str, after: str) -> bool:
    """`after` is `before` with text inserted (every original character kept, in order)."""
    position = 0
    for char in before:
        position = after.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


@pytest.mark.parametrize(
    "before, pairs, after",
    [
        ("x = 1\n", [(1, "RTL001")], "x = 1  # noqa: RTL001\n"),
        ("x = 1", [(1, "RTL001")], "x = 1  # noqa: RTL001"),  # no final newline
        ("x = 1 \n", [(1, "RTL001")], "x = 1  # noqa: RTL001\n"),  # trailing space counted
        ("x = 1\r\ny = 2\r\n", [(2, "RTL001")], "x = 1\r\ny = 2  # noqa: RTL001\r\n"),
        ("x = 1\ry = 2\r", [(1, "RTL002")], "x = 1  # noqa: RTL002\ry = 2\r"),
        # two codes on one line: one comment
        ("x = 1\n", [(1, "RTL004"), (1, "RTL001"), (1, "RTL004")], "x = 1  # noqa: RTL004, RTL001\n"),
        # merged into an existing noqa, before the words that follow its codes
        ("x = 1  # noqa: E501\n", [(1, "RTL001")], "x = 1  # noqa: E501, RTL001\n"),
        ("x = 1  # noqa:E501,W291 long\n", [(1, "RTL001")], "x = 1  # noqa:E501,W291, RTL001 long\n"),
        ("x = 1  # NOQA: E501, \n", [(1, "RTL001")], "x = 1  # NOQA: E501, RTL001, \n"),
        # already suppressed: a blanket noqa, the code, or a prefix of it
        ("x = 1  # noqa\n", [(1, "RTL001")], "x = 1  # noqa\n"),
        ("x = 1  # noqa: RTL001\n", [(1, "RTL001")], "x = 1  # noqa: RTL001\n"),
        ("x = 1  # noqa: RTL\n", [(1, "RTL001")], "x = 1  # noqa: RTL\n"),
        # another comment: the noqa goes after it, where flake8 still finds it
        ("x = 1  # type: ignore\n", [(1, "RTL001")], "x = 1  # type: ignore  # noqa: RTL001\n"),
        # a line inside a multi-line string: at the end of the string's last line
        ('s = """a\nb\nc"""\n', [(2, "RTL001")], 's = """a\nb\nc"""  # noqa: RTL001\n'),
        ('s = f"""a\n{x}\n"""  # why\n', [(1, "RTL001")], 's = f"""a\n{x}\n"""  # why  # noqa: RTL001\n'),
        # a backslash continuation: at the end of the continued line
        ("x = 1 + \\\n    2\n", [(1, "RTL001")], "x = 1 + \\\n    2  # noqa: RTL001\n"),
        # brackets: each physical line is its own range, as for flake8
        ("f(\n    a,\n)\n", [(2, "RTL001")], "f(\n    a,  # noqa: RTL001\n)\n"),
        # lines that are not in the text give nothing
        ("x = 1\n", [(7, "RTL001")], "x = 1\n"),
    ],
)
def test_placement_and_merging(before: str, pairs: list[tuple[int, str]], after: str) -> None:
    assert add_noqa(before, pairs) == after
    assert add_noqa(after, pairs) == after  # idempotent
    assert inserted_only(before, after)


def test_no_comment_where_a_string_holds_the_noqa_flake8_reads() -> None:
    # flake8 reads the first noqa comment of the range: the one in the string, not a new comment
    text = 'x = "# noqa: E501"\n'
    assert add_noqa(text, [(1, "RTL001")]) == text


def test_edits_are_insertions_at_one_point() -> None:
    [edit] = noqa_edits("x = 1  # noqa: E501\n", [(1, "RTL001")])
    assert (edit.line, edit.column, edit.end_line, edit.end_column, edit.content) == (1, 20, 1, 20, ", RTL001")


def test_untokenizable_text_is_an_error() -> None:
    with pytest.raises(NoqaError):
        token_ranges('s = """never closed\n')


def fixture_sources() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("RTL*/*.py"))


@pytest.mark.parametrize("sample", fixture_sources(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_line_of_every_fixture(sample: Path) -> None:
    """A noqa on every line keeps the program (same syntax tree), suppresses every line as
    rtlint reads it, and a second run changes nothing."""
    text = sample.read_text(encoding="utf-8")
    count = len(text.splitlines())
    pairs = [(line, "RTL001") for line in range(1, count + 1)]
    once = add_noqa(text, pairs)
    assert ast.dump(ast.parse(once)) == ast.dump(ast.parse(text))
    assert inserted_only(text, once)
    suppressions = Suppressions(once)
    assert all(suppressions.suppressed(line, "RTL001") for line in range(1, count + 1))
    assert add_noqa(once, pairs) == once
    merged = add_noqa(once, [(line, "RTL004") for line in range(1, count + 1)])
    assert all(Suppressions(merged).suppressed(line, "RTL004") for line in range(1, count + 1))


def flake8_findings(path: Path, select: str) -> list[tuple[int, str]]:
    run = flake8("--select", select, "--max-line-length", "40", path.name, cwd=path.parent)
    return [(int(m[1]), m[2]) for m in re.finditer(r"^[^:]+:(\d+):\d+: ([A-Z]+\d+)", run.stdout, re.M)]


def test_flake8_reads_the_comments_back(tmp_path: Path) -> None:
    """Real flake8, with codes it reports itself at lines inside strings and continuations
    (E501), and the RTL plugin's finding: every one is suppressed after `add_noqa`."""
    long = "x" * 50
    source = BUGGY + f'\nDOC = """\n{long}\n"""\nTOTAL = 1 + \\\n    len("{long}")\nCALL = print(\n    "{long}",\n)\n'
    target = tmp_path / "agent.py"
    target.write_text(source)
    found = flake8_findings(target, "E501,RTL")
    assert (BUGGY_LINE, "RTL001") in found and sum(code == "E501" for _, code in found) >= 3
    target.write_text(add_noqa(source, found))
    assert flake8_findings(target, "E501,RTL") == []
    assert add_noqa(target.read_text(), found) == target.read_text()


# -- reading them back: RTL100's removal edits --------------------------------------------


@pytest.mark.parametrize(
    "before, unused, after",
    [
        ("x = 1  # noqa: RTL001\n", {"RTL001"}, "x = 1\n"),
        ("x = 1  # noqa: RTL001, RTL002\n", {"RTL002"}, "x = 1  # noqa: RTL001\n"),
        ("x = 1  # noqa:RTL001,RTL002,E501\n", {"RTL001", "RTL002"}, "x = 1  # noqa:E501\n"),
        ("x = 1  # noqa: RTL001 flaky on CI\n", {"RTL001"}, "x = 1\n"),  # its reason goes with it
        ("x = 1  # noqa: RTL001  # type: ignore\n", {"RTL001"}, "x = 1  # type: ignore\n"),
        ("x = 1  # type: ignore  # noqa: RTL001\n", {"RTL001"}, "x = 1  # type: ignore\n"),
        ("x = 1  # rtlint: ignore[RTL001, RTL003]\n", {"RTL003"}, "x = 1  # rtlint: ignore[RTL001]\n"),
        ("x = 1  # rtlint: ignore[RTL003]\r\n", {"RTL003"}, "x = 1\r\n"),
        ('s = """a\nb"""  # noqa: RTL001\n', {"RTL001"}, 's = """a\nb"""\n'),
        ("    # noqa: RTL001\n", {"RTL001"}, "\n"),
    ],
)
def test_removal_of_unused_codes(before: str, unused: set[str], after: str) -> None:
    from rtlint.core.findings import Finding
    from rtlint.suppress.unused import directives, remove_unused

    reported = [
        Finding("RTL100", "unused-suppression", "", d.last, start + 1, d.last, end + 1)
        for d in directives(before)
        for code, start, end in d.codes
        if code in unused
    ]
    assert len(reported) == len(unused)
    assert remove_unused(before, reported) == after


def test_unused_suppressions_report_codes_of_rules_not_enabled() -> None:
    """As ruff's RUF100 (issue 24): a code of a rule not enabled for the file is reported,
    saying so, rather than left alone."""
    from rtlint.core.findings import Finding
    from rtlint.engine.registry import known_codes
    from rtlint.suppress.unused import unused_suppressions

    text = "x = 1  # noqa: RTL001, RTL002, RTL777, RTL9, E501\ny = 2  # rtlint: ignore[rtl003]\n"
    found = Finding("RTL001", "stale-mirror-snapshot", "m", 1, 1, 1, 2)
    reported = unused_suppressions(text, "a.py", [found], enabled={"RTL001", "RTL003"}, known=known_codes())
    assert [(f.line, f.column, f.message) for f in reported] == [
        (
            1,
            24,
            "unused suppression: RTL002 is not enabled for this file (not selected, ignored, or a per-file ignore)",
        ),
        (1, 32, "unused suppression: RTL777 is not an rtlint code"),
        (2, 25, "unused suppression: nothing reports rtl003 on line 2"),
    ]
    assert all(f.fix is not None and f.fixable == "safe" for f in reported)


def test_cli_reads_a_backslash_continuation_as_flake8_does(tmp_path: Path) -> None:
    """A noqa at the end of a continued statement covers its first line, for flake8 and
    for rtlint alike (what add_noqa relies on)."""
    from tests.support.cli import run_main

    continued = BUGGY.replace(
        "ctx = self._rt_session.chat_ctx.copy()", "ctx = self._rt_session \\\n            .chat_ctx.copy()"
    )
    target = tmp_path / "agent.py"
    target.write_text(continued)
    assert flake8_findings(target, "RTL") == [(BUGGY_LINE, "RTL001")]
    target.write_text(add_noqa(continued, [(BUGGY_LINE, "RTL001")]))
    assert target.read_text().splitlines()[BUGGY_LINE] == "            .chat_ctx.copy()  # noqa: RTL001"
    assert flake8_findings(target, "RTL") == []
    assert run_main("--no-cache", str(target)).exit_code == 0


@pytest.mark.parametrize(
    "snapshot",
    [
        # implicitly concatenated strings are one node over two lines but two tokens: flake8
        # reads each line alone, so the noqa on the second does not cover the first
        '        ctx = self._rt_session.chat_ctx.copy(); note = ("first "\n            "second")  # noqa: RTL001',
        # a multi-line string ends on the snapshot's line: flake8 reads both lines (here the
        # statement's own line does not tokenize alone, and the whole file is tokenized)
        '        note = """first  # noqa: RTL001\n        """; ctx = self._rt_session.chat_ctx.copy()',
    ],
    ids=["implicit-concatenation", "string-ending-on-the-line"],
)
def test_cli_reads_strings_near_a_finding_as_flake8_does(tmp_path: Path, snapshot: str) -> None:
    from tests.support.cli import run_main

    target = tmp_path / "agent.py"
    target.write_text(BUGGY.replace("        ctx = self._rt_session.chat_ctx.copy()", snapshot))
    # the rules' codes (flake8's `--select RTL` also selects RTL100, as `rtlint --select RTL` does)
    by_flake8 = flake8_findings(target, "RTL0")
    by_cli = [
        (int(line.split(":")[1]), line.split()[1])
        for line in run_main("--no-cache", str(target)).stdout.splitlines()
        if ": RTL" in line
    ]
    assert by_cli == by_flake8


@pytest.mark.parametrize("module", ["pickletools", "ipaddress", "pathlib", "email._header_value_parser", "enum"])
def test_the_tree_mapping_is_flake8s_on_every_line(module: str) -> None:
    """The cheap mapping (syntax tree, then the statement's tokens) equals the tokenizer's
    mapping of the whole file, which is flake8's, on every line of real modules."""
    import ast
    import importlib

    from rtlint.suppress.suppression import Suppressions

    text = Path(importlib.import_module(module).__file__).read_text(encoding="utf-8")
    assert "\\\n" not in text  # (a backslash continuation takes the tokenizer's path anyway)
    cheap, exact = Suppressions(text, True, ast.parse(text)), Suppressions(text, True, None)
    lines = text.splitlines()
    assert [cheap._line_text(n) for n in range(1, len(lines) + 1)] == [
        exact._line_text(n) for n in range(1, len(lines) + 1)
    ]


# -- lines ended by \r, \r\n and \n alike (issue 25, item 10) ------------------------------------

SPLIT_NOQA = BUGGY.replace(
    "ctx = self._rt_session.chat_ctx.copy()", "ctx = self._rt_session.chat_ctx \\\n            .copy()  # noqa: RTL001"
)


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_noqa_on_a_multiline_statement_with_any_line_ending(ending: str, tmp_path: Path) -> None:
    from tests.support.cli import run_main

    text = SPLIT_NOQA.replace("\n", ending)
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "a.py").write_bytes(text.encode())
    assert not Suppressions(text, True, ast.parse(text)).suppressed(BUGGY_LINE, "RTL002")
    assert Suppressions(text, True, ast.parse(text)).suppressed(BUGGY_LINE, "RTL001")
    assert Suppressions(text, True, None).suppressed(BUGGY_LINE, "RTL001")  # flake8's own way, the whole file
    # flake8 agrees: no finding
    assert flake8("--select", "RTL", "a.py", cwd=tmp_path).stdout.strip() == ""
    # --add-noqa on a file with one more finding: it runs, and adds one comment
    (tmp_path / "b.py").write_bytes(
        (text + BUGGY.replace("class Activity", "class Other").replace("\n", ending)).encode()
    )
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        added = run_main("--no-cache", "--add-noqa", "b.py")
    finally:
        os.chdir(here)
    assert added.exit_code in (0, 1), added.stderr
    fixed = (tmp_path / "b.py").read_bytes().decode()
    assert fixed.count("# noqa: RTL001") == 2 and fixed.replace("  # noqa: RTL001", "", 1) != fixed
    assert fixed.count(ending) == text.count(ending) + BUGGY.count("\n")
