"""The fix-plan Editor protocol (rtlint.core.fixplan) declares everything rules call on the
editor, and the fixer's editor (rtlint.fix.editor) has everything the protocol declares."""

from __future__ import annotations

import re
from pathlib import Path

from rtlint.core.fixplan import Editor as Protocol
from rtlint.fix.editor import Editor

ROOT = Path(__file__).resolve().parents[2]


def _declared() -> set[str]:
    names = {n for n in vars(Protocol) if not n.startswith("_")}
    return names | set(getattr(Protocol, "__annotations__", {}))


def test_rules_call_only_what_the_protocol_declares() -> None:
    used = {m for path in (ROOT / "rules").rglob("*.py") for m in re.findall(r"\beditor\.(\w+)", path.read_text())}
    assert used, "no editor calls found: the pattern is wrong"
    assert used - _declared() == set()


def test_the_editor_has_what_the_protocol_declares() -> None:
    missing = {
        name for name in _declared() if not hasattr(Editor, name) and name not in Editor.__init__.__code__.co_names
    }
    assert missing == set()
