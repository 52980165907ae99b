"""Fixes a reviewer accepts (issue 24, item 6): no rollback hides a NameError, RTL003's drain
is unsafe unless the stream is known to end, and the two rules' pages show what the fixes
write. Checked on every fixture's expected output and on the seven releases' fixes."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.engine import registry
from rtlint.engine.config import Config
from rtlint.report import docs
from tests.support.cli import FIXTURES
from tests.support.wheels import agent_activity

RELEASES = ("1.6.5", "1.7.0", "1.8.0", "1.8.5", "1.8.8", "1.8.9", "2.0.0b1")


def suppressed_name_errors(text: str) -> list[int]:
    """Lines of `suppress(..., NameError, ...)` and `except NameError` in `text`."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("suppress"):
            caught = node.args
        elif isinstance(node, ast.ExceptHandler) and node.type is not None:
            caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        else:
            continue
        if any(ast.unparse(c) in ("NameError", "builtins.NameError") for c in caught):
            found.append(node.lineno)
    return found


def test_no_expected_fix_suppresses_a_name_error() -> None:
    outputs = sorted(FIXTURES.glob("RTL*/*.fixed.py"))
    assert len(outputs) > 50
    for path in outputs:
        assert suppressed_name_errors(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("version", RELEASES)
def test_no_fix_of_a_release_suppresses_a_name_error(version: str) -> None:
    source = agent_activity(version).read_text(encoding="utf-8")
    assert suppressed_name_errors(source) == []  # the release itself has none
    fixed = fix_source(source, "agent_activity.py", unsafe=True)
    assert fixed.failure is None
    assert suppressed_name_errors(fixed.text) == []


def test_the_rollback_of_an_item_made_in_the_try_binds_it_first() -> None:
    """livekit-agents 1.8.9 near line 4244: the item is made inside the try whose handler
    rolls the commit back, so the handler can run before it exists."""
    fixed = fix_source(agent_activity("1.8.9").read_text(encoding="utf-8"), "agent_activity.py", select=["RTL002"])
    lines = fixed.text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "if user_input is not None:")
    window = [line.strip() for line in lines[start : start + 25]]
    assert window[1:3] == ["msg = None", "try:"]
    rollback = window.index("if msg is not None:")
    assert window[rollback + 1 : rollback + 3] == [
        "with contextlib.suppress(ValueError):",
        "self._agent._chat_ctx.remove(msg)",
    ]


def _page_blocks(code: str, section: str) -> list[str]:
    """The Python code blocks of a section of a rule's page."""
    text = docs.section(registry.rule_by_code(code), section)
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def _in_a_method(block: str) -> str:
    return "class Activity:\n    async def respond(self, stream, interrupted, play, text):\n" + textwrap.indent(
        block, " " * 8
    )


def _squash(code: str) -> str:
    return "".join(code.split())


def test_rtl002_page_shows_the_rollback_the_fix_writes() -> None:
    [bound_first] = _page_blocks("RTL002", "Fix")
    before = bound_first.replace("msg = None\n", "").replace("        self._agent._chat_ctx._upsert_item(msg)\n", "")
    before = before.replace(
        "    if msg is not None:\n        with contextlib.suppress(ValueError):\n"
        "            self._agent._chat_ctx.remove(msg)\n",
        "",
    )
    before += "self._agent._chat_ctx._upsert_item(msg)\n"
    source = "import contextlib\n\n" + _in_a_method(before)
    assert [f.code for f in check_source(source, "page.py", select=["RTL002"])] == ["RTL002"]
    fixed = fix_source(source, "page.py", select=["RTL002"])
    assert fixed.applied and _squash(bound_first) in _squash(fixed.text)


def test_rtl003_page_shows_what_the_fix_writes_and_says_when_it_is_safe() -> None:
    [example, use_instead] = _page_blocks("RTL003", "Example")
    source = _in_a_method(example)
    [finding] = check_source(source, "page.py", select=["RTL003"])
    assert finding.fixable == "unsafe" and "drains `stream`" in finding.message
    # the page shows rtlint's own layout: this checkout's [tool.ruff] would have ruff format it
    fallback = Config(root=Path.cwd(), fix_formatter="none")
    assert fix_source(source, "page.py", select=["RTL003"], config=fallback).text == source  # --fix leaves it
    unsafe = fix_source(source, "page.py", select=["RTL003"], config=fallback, unsafe=True)
    assert _squash(unsafe.text) == _squash(_in_a_method(use_instead))
    # a stream known to end: the same fix, safe
    ending = Config(root=Path.cwd(), fix_formatter="none", options={"ending-streams": ["stream"]})
    [finding] = check_source(source, "page.py", select=["RTL003"], config=ending)
    assert finding.fixable == "safe" and "(fix is unsafe" not in finding.message
    assert fix_source(source, "page.py", select=["RTL003"], config=ending).text == unsafe.text
    safety = docs.section(registry.rule_by_code("RTL003"), "Fix safety")
    assert "unsafe" in safety and "`ending-streams`" in safety


@pytest.mark.parametrize("version", RELEASES)
def test_releases_rtl003_fix_drains_only_when_unsafe_fixes_are_on(version: str) -> None:
    source = agent_activity(version).read_text(encoding="utf-8")
    guards = [f for f in check_source(source, "agent_activity.py") if f.code == "RTL003"]
    safe = fix_source(source, "agent_activity.py")
    assert "_rtlint_abandoned" not in safe.text
    for guard in guards:
        drains = "(fix is unsafe: at the early exit it drains" in guard.message
        assert guard.fixable == ("unsafe" if drains else "safe")
