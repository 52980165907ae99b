"""The realtime vocabulary on top of `rules._analysis`: sessions, mirrors, snapshots, pushes
and the push lock (design.md's terms), built from the rule options.

- `vocabulary`: the options and the words (session names and types, mirror properties,
  push methods, the push lock), how a chat context travels through calls.
- `sessions`: `analyse(file)` -> `Module`: sessions (names, annotations, assignments,
  aliases, closures), `snapshots` and `pushes`.
- `pushlock`: a class's push lock, `under_push_lock`, `serialized`, `stale_snapshots`
  (RTL001's defect, which RTL004 does not report again), `lock_takers`, snapshot `flow`.
- `contexts`: the contexts a push sends, the items added to them, commits to a local
  context (RTL002, RTL003).
"""

from __future__ import annotations

from ...._analysis.index import Function, FunctionNode, dotted, final_name, walk_function
from .pushlock import (
    StaleSnapshot,
    flow,
    push_lock,
    reported_pushes,
    serialized,
    stale_snapshots,
    under_push_lock,
    unserialized_pushes,
)
from .sessions import Module, Push, Snapshot, analyse
from .vocabulary import OPTIONS, required_tokens


def body_statements(node):
    """Statements of a function body in source order, not entering nested definitions."""
    import ast

    return (child for child in walk_function(node) if isinstance(child, ast.stmt))


__all__ = [
    "OPTIONS",
    "Function",
    "FunctionNode",
    "Module",
    "Push",
    "Snapshot",
    "StaleSnapshot",
    "analyse",
    "body_statements",
    "dotted",
    "final_name",
    "flow",
    "push_lock",
    "reported_pushes",
    "required_tokens",
    "serialized",
    "stale_snapshots",
    "under_push_lock",
    "unserialized_pushes",
    "walk_function",
]
