"""Adding an import, the one place that does it (as ruff's `get_or_import_symbol`): where
a fix's import goes, and how many blank lines separate it from what follows (isort's
sections, PEP 8's two blank lines before a definition)."""

from __future__ import annotations

import re
import sys

_IMPORTED = re.compile(r"\s*(?:from\s+(\.*)\s*([\w.]*)|import\s+([\w.]+))")


def _standard(code: str) -> bool | None:
    """Whether an import line imports from the standard library (None: not an import)."""
    found = _IMPORTED.match(code)
    if found is None:
        return None
    dots, source, plain = found.groups()
    if dots:
        return False  # a relative import: the package's own section
    top = (source or plain or "").split(".")[0]
    return top in getattr(sys, "stdlib_module_names", ()) or top == "__future__"


def blank_lines_between(new_import: str, target_code: str, target_is_definition: bool) -> int:
    """How many blank lines separate an import inserted before a statement from it: none
    within an isort section, one between sections (a standard-library import before a
    third-party one) and before code, two before a definition (PEP 8)."""
    target = _standard(target_code)
    if target is None:
        return 2 if target_is_definition else 1
    return 0 if target == _standard(new_import) else 1
