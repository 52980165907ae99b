"""The contract between the engine and a rule.

A rule is one class in a module of the `rtlint.rules` package. Its docstring is its
documentation page; VALID and INVALID are examples that the test-suite runs. The engine
calls `check` with the file's syntax tree and, only when a fix is wanted, `fix` with the
file's LibCST tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rtlint.core.findings import Applicability, Finding
from rtlint.core.fixplan import FixPlan, safety_note
from rtlint.core.settings import Option, Settings

if TYPE_CHECKING:
    from rtlint.core.context import FileContext, FixContext


@dataclass(frozen=True)
class Invalid:
    """An INVALID example: code, the expected (line, code) findings, and the expected fix."""

    code: str
    lines: tuple[int, ...] = ()
    expected_fix: str | None = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # "none", "sometimes" or "always": shown by `rtlint rules`
    fix_availability: ClassVar[str] = "none"
    default_enabled: ClassVar[bool] = True
    options: ClassVar[tuple[Option, ...]] = ()
    VALID: ClassVar[Sequence[str]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def required_tokens(self) -> list[tuple[Any, ...]]:
        """What a file must contain for the rule to match, checked on its raw bytes before
        anything is parsed: each tuple lists alternatives of which the file must contain one
        (a substring; a compiled bytes pattern; or a pair (substrings, pattern): the pattern
        is searched only in a file holding one of the substrings, which every match of it
        contains). The engine looks for each token once per file, shared tokens and
        substrings first. An empty list means "parse every file"."""
        return []

    def check(self, file: FileContext) -> Iterable[Finding]:
        raise NotImplementedError

    def fix(self, finding: Finding, file: FixContext) -> None:
        """Record the edits that fix `finding` on `file.editor`: by default, its plan's
        (`finding.data`, see rtlint.core.fixplan). Raise `rtlint.core.fixplan.CannotFix` when the fix
        cannot be built."""
        if finding.data is not None and hasattr(finding.data, "apply"):
            finding.data.apply(file.editor)
            return
        from rtlint.core.fixplan import CannotFix

        raise CannotFix(f"{self.code} has no fix")

    # -- helpers for rules ---------------------------------------------------------------
    def report(
        self,
        file: FileContext,
        node: ast.AST,
        message: str,
        *,
        fixable: Applicability | None = None,
        symbol: str = "",
        data: Any = None,
        plan: FixPlan | None = None,
    ) -> Finding:
        """A finding at `node`. With a `plan`, the finding carries it as `data`, its
        `fixable` is the plan's applicability and the message gets the plan's safety note."""
        if plan is not None:
            message += safety_note(plan)
            fixable, data = plan.applicability, plan
        line, column = file.position(node.lineno, node.col_offset)
        end_line, end_column = file.position(
            getattr(node, "end_lineno", None) or node.lineno,
            getattr(node, "end_col_offset", None) or node.col_offset,
        )
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            line=line,
            column=column,
            end_line=end_line,
            end_column=end_column,
            path=file.display_path,
            fixable=fixable,
            symbol=symbol,
            data=data,
        )

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


def iter_rule_classes(module: Any) -> Iterator[type[Rule]]:
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Rule)
            and value is not Rule
            and value.__module__ == module.__name__
            and getattr(value, "code", None)
        ):
            yield value
