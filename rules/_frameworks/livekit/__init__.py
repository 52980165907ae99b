"""LiveKit Agents behind the framework seam: one vocabulary (`vocabulary`: every option and
word), one analysis per file (`analyse(file)` -> `Module`, `module`), its application side
(`agents`: agents, tasks, sessions, local contexts, snapshots, write-backs, spawners) and its
realtime side (`realtime`: sessions, mirrors, pushes, the push lock, provider sessions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .agents import ContextSnapshot
from .module import Module, analyse
from .realtime.pushlock import (
    StaleSnapshot,
    flow,
    lock_takers,
    push_lock,
    reported_pushes,
    stale_snapshots,
    unserialized_pushes,
)
from .realtime.sessions import MirrorSnapshot, Push
from .vocabulary import (
    APPLICATION_OPTIONS,
    OPTIONS,
    PROVIDER_OPTIONS,
    REALTIME_OPTIONS,
    Vocabulary,
    push_tokens,
    session_update_tokens,
    vocabulary,
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
    "APPLICATION_OPTIONS",
    "NAME",
    "OPTIONS",
    "PROVIDER_OPTIONS",
    "REALTIME_OPTIONS",
    "ContextSnapshot",
    "MirrorSnapshot",
    "Module",
    "Push",
    "StaleSnapshot",
    "Vocabulary",
    "analyse",
    "flow",
    "lock_takers",
    "owns",
    "push_lock",
    "push_tokens",
    "reported_pushes",
    "session_update_tokens",
    "stale_snapshots",
    "tokens",
    "unserialized_pushes",
    "vocabulary",
]
