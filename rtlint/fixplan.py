"""The fix-plan protocol: what a finding carries so that its fix can be built later.

A rule decides at detection time whether and how a finding can be fixed, and says so with
a plan: its `applicability` ("safe", "unsafe" or None when no sound fix exists), the
`reason` when it is not safe, and `apply(editor)`, which records the fix's edits on the
fixer's editor. A finding's `fixable` flag and its message's safety note come from the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol

from rtlint.findings import Applicability

if TYPE_CHECKING:
    from rtlint.cstedit import Editor


class FixPlan(Protocol):
    @property
    def applicability(self) -> Optional[Applicability]: ...

    @property
    def reason(self) -> str: ...

    def apply(self, editor: Editor) -> None: ...


def safety_note(plan: FixPlan | None) -> str:
    """What a finding's message adds when its fix is unsafe or impossible, and why."""
    if plan is None or plan.applicability == "safe":
        return ""
    state = "fix is unsafe" if plan.applicability == "unsafe" else "not fixable"
    return f" ({state}: {plan.reason})"
