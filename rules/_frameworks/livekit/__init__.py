"""LiveKit Agents' application vocabulary (design.md, "Rules for application code"):
`agents` (agents, tasks, sessions, local contexts, snapshots, write-backs, spawners)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .agents import (
    ADDITIVE_EDITS,
    ADDITIVE_ITEM_EDITS,
    OPTIONS,
    OTHER_EDITS,
    OTHER_ITEM_EDITS,
    AppModule,
    Snapshot,
    Vocabulary,
    analyse,
    push_tokens,
    session_update_tokens,
)

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

NAME = "livekit"


def owns(file: FileContext) -> bool:
    """Every file Pipecat does not own (see rules._frameworks.framework_of)."""
    from .. import pipecat

    return not pipecat.owns(file)


def tokens(settings) -> list[tuple]:
    return push_tokens(settings)


__all__ = [
    "ADDITIVE_EDITS",
    "ADDITIVE_ITEM_EDITS",
    "NAME",
    "OPTIONS",
    "OTHER_EDITS",
    "OTHER_ITEM_EDITS",
    "AppModule",
    "Snapshot",
    "Vocabulary",
    "analyse",
    "owns",
    "push_tokens",
    "session_update_tokens",
    "tokens",
]
