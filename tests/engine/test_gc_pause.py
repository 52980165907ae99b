"""Cyclic garbage collection is paused while a file is parsed, linted and fixed (its automatic
collections walked the file's tree again and again: a third of a big file's fix), and a fix
frees what each re-lint's analyses left in cycles before the next, so that pausing the
collector does not keep a tree alive per re-lint (rtlint.engine.linter.gc_paused,
rtlint.engine.fixer._verify)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from rtlint.core.parsing import parse
from rtlint.engine import fixer, runner
from rtlint.engine.config import Config
from rtlint.engine.fixer import fix_text
from rtlint.engine.linter import RuleSet, gc_paused, lint_text

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "realtime_agent.py"


@pytest.fixture
def ruleset() -> RuleSet:
    config = Config(root=EXAMPLE.parent)
    return RuleSet(config.enabled_rules(None), config.settings())


@pytest.fixture
def collector_off():
    """The collector off for the test's own code: what is freed is freed by reference counts."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if enabled:
        gc.enable()


def test_a_lint_keeps_nothing_of_its_tree_alive(ruleset, collector_off) -> None:
    # what it leaves in cycles is the collector's, once the pause is over
    text = EXAMPLE.read_text()
    tree = parse(text, "agent.py")
    kept = weakref.ref(tree)
    findings = lint_text(text, "agent.py", ruleset.rules, ruleset.settings, tree=tree)
    assert {f.code for f in findings} >= {"RTL001", "RTL002", "RTL003"}  # the analyses ran
    del tree
    gc.collect()
    assert kept() is None


# three cases of each rule's, its invalid ones first: every framework's analyses run
FIXTURES = [
    path
    for folder in sorted((Path(__file__).resolve().parents[2] / "fixtures").glob("RTL*"))
    for path in sorted(folder.glob("*.py"), key=lambda p: (p.name.startswith("clean"), ".fixed" in p.name, p.name))[:3]
]


def test_a_lint_leaves_no_cycles_to_the_collector(ruleset, collector_off) -> None:
    # its analyses are released at the end (FileContext.release) and the lists kept on
    # nodes never hold the node itself (index.walk_function): a big file's tree and
    # analyses are freed by reference counts, not by a collection that visits them all
    assert len(FIXTURES) >= 30
    lint_text(EXAMPLE.read_text(), "warm.py", ruleset.rules, ruleset.settings)  # imports and caches
    gc.collect()
    leftover = {}
    for path in FIXTURES:
        text = path.read_text(encoding="utf-8")
        lint_text(text, path.name, ruleset.rules, ruleset.settings, parse_always=True)
        cycles = gc.collect()
        if cycles:
            leftover[path.name] = cycles
    assert leftover == {}


def test_a_fix_keeps_no_tree_of_its_re_lints(ruleset, collector_off, monkeypatch) -> None:
    text = EXAMPLE.read_text()
    trees: list[weakref.ref] = []
    real_parse = fixer.parse

    def parsed(source, path):
        tree = real_parse(source, path)
        trees.append(weakref.ref(tree))
        return tree

    monkeypatch.setattr(fixer, "parse", parsed)
    outcome = fix_text(text, "agent.py", ruleset.rules, ruleset.settings)
    assert outcome.applied and outcome.failure is None
    assert len(trees) >= 2  # the text's and each verified pass's
    alive = [ref() for ref in trees if ref() is not None]
    assert alive in ([], [outcome.tree])  # at most the tree of the text returned


def test_collection_is_paused_for_a_fix_and_restored_after(ruleset, monkeypatch) -> None:
    states: list[bool] = []
    real_parse = fixer.parse
    monkeypatch.setattr(fixer, "parse", lambda source, path: states.append(gc.isenabled()) or real_parse(source, path))
    assert gc.isenabled()
    fix_text(EXAMPLE.read_text(), "agent.py", ruleset.rules, ruleset.settings)
    assert states and not any(states)
    assert gc.isenabled()


def test_the_runner_parses_for_the_fixes_with_collection_paused(tmp_path, monkeypatch, capsys) -> None:
    from rtlint.cli import main

    states: list[bool] = []
    real_tree = runner._ast_tree
    monkeypatch.setattr(
        runner, "_ast_tree", lambda text, display: states.append(gc.isenabled()) or real_tree(text, display)
    )
    target = tmp_path / "agent.py"
    target.write_text(EXAMPLE.read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--jobs", "1", "--diff", "agent.py"]) == 1
    assert "+++ b/agent.py" in capsys.readouterr().out
    assert states == [False]
    assert gc.isenabled()


def test_a_paused_block_inside_another_leaves_it_paused() -> None:
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
