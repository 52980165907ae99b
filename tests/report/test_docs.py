"""Rule documentation: `rtlint explain`, `rtlint rules`, and their single source, the rule
modules."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from rtlint.engine import registry
from rtlint.report import docs
from tests.support.cli import REPO, run_cli, run_main

SECTIONS = [
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "Use instead:",
    "## Fix",
    "## Fix safety",
    "## Configuration",
]
RULES = registry.all_rules()


def test_explain_rtl001_prints_the_page() -> None:
    run = run_cli("explain", "RTL001")  # as a user runs it
    assert (run.exit_code, run.stderr) == (0, "")
    page = run.stdout
    assert page.startswith("# RTL001 stale-mirror-snapshot\n")
    positions = [page.index(heading) for heading in SECTIONS]
    assert positions == sorted(positions), "sections out of order"
    assert "issue 7880" in page  # why it is a bug: the seed's story
    example = page[page.index("## Example") : page.index("## Fix\n")]
    assert example.count("```python") == 2  # the bad and the fixed code
    assert "async with self._rt_chat_ctx_lock:" in example.split("Use instead:")[1]
    configuration = page[page.index("## Configuration") :]
    for option in ("session-names", "mirror-properties", "push-methods", "push-lock"):
        assert f"`{option}`" in configuration


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_page_comes_from_its_rule_module(rule) -> None:
    run = run_main("explain", rule.code.lower())  # codes are case-insensitive
    assert run.exit_code == 0
    assert run.stdout == docs.page(rule)
    # the page is the rule class's docstring, rendered: written once, in rules/
    module_file = Path(inspect.getsourcefile(rule)).resolve()
    assert module_file.parent == (REPO / "rules").resolve()
    assert rule.__doc__ and rule.documentation() in run.stdout
    assert run.stdout.startswith(f"# {rule.code} {rule.name}\n\n{rule.summary}\n")
    for heading in SECTIONS[:3] + SECTIONS[4:6]:
        assert heading in rule.documentation(), f"{rule.code} has no '{heading}' section"
    if rule.options:
        for option in rule.options:  # a namespaced option under its table: `[tool.rtlint.pipecat]`
            namespace, _, key = option.name.rpartition(".")
            shown = f"`{key}` in `[tool.rtlint.{namespace}]`" if namespace else f"`{option.name}`"
            assert f"{shown} (default " in run.stdout


def test_rules_table() -> None:
    run = run_cli("rules")
    assert run.exit_code == 0
    header, *rows = run.stdout.splitlines()
    assert header.split()[:4] == ["code", "name", "default", "fixable"]
    # the rules, then the engine's codes (RTL100, RTL900-RTL902)
    assert len(rows) == len(RULES) + len(registry.ENGINE_CODES)
    assert [row.split()[0] for row in rows[len(RULES) :]] == list(registry.ENGINE_CODES)
    for row, rule in zip(rows, RULES):
        code, name, default, fixable = row.split()[:4]
        assert (code, name) == (rule.code, rule.name)
        assert default == ("on" if rule.default_enabled else "off")
        assert fixable == docs.FIX_LABELS[rule.fix_availability]
        assert row.rstrip().endswith(rule.summary)


@pytest.mark.parametrize("args", [["explain", "RTL999"], ["explain", "stale-mirror"], ["explain", "RTL9"]])
def test_unknown_code_is_a_usage_error(args: list[str]) -> None:
    run = run_cli(*args)
    assert run.exit_code == 2
    assert run.stdout == ""
    assert f"unknown rule code: {args[1]}" in run.stderr
    assert "rtlint rules" in run.stderr  # where to look instead


def test_explain_needs_one_code() -> None:
    run = run_main("explain")
    assert run.exit_code == 2 and "usage: rtlint explain CODE" in run.stderr


def test_section_extraction() -> None:
    rule = registry.rule_by_code("RTL001")
    assert docs.section(rule, "What it does").startswith("Finds a snapshot")
    assert "##" not in docs.section(rule, "What it does")
    assert docs.section(rule, "No such section") == ""


def test_markdown_table_matches_the_rules() -> None:
    """The README's rule table is docs.table(); where the README has one, it must not drift."""
    table = docs.table(markdown=True)
    lines = table.splitlines()
    assert lines[0] == "| code | name | default | fixable | summary |"
    assert [line.split(" | ")[0].strip("| ") for line in lines[2:]] == [r.code for r in RULES]
    readme = REPO / "README.md"
    if not readme.exists():
        pytest.skip("no README.md yet")
    rows = [line for line in readme.read_text(encoding="utf-8").splitlines() if re.match(r"\|\s*RTL\d{3}\s*\|", line)]
    assert rows == lines[2:], "README rule table drifted from the rule modules; paste `docs.table()`"


def test_engine_codes_have_pages() -> None:
    for code, name in (("RTL900", "syntax-error"), ("RTL901", "unreadable-file"), ("RTL902", "internal-error")):
        run = run_cli("explain", code)
        assert run.exit_code == 0
        assert run.stdout.startswith(f"# {code} {name}\n")


def test_explain_accepts_the_rule_name() -> None:
    by_name = run_cli("explain", "stale-mirror-snapshot")
    assert by_name.exit_code == 0
    assert by_name.stdout == run_cli("explain", "RTL001").stdout
