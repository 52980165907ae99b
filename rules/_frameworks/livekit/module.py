"""The LiveKit view of one file: `analyse(file)` gives one `Module`, built once per file
however many rules ask, with one `Vocabulary` (the file's settings).

Its realtime side (`realtime.sessions.Sessions`: realtime sessions, `mirror_snapshots`,
`pushes`, for RTL001-RTL004) and its application side (`agents.Agents`: agents, tasks,
agent sessions, `context_snapshots`, write-backs, spawners, for RTL005-RTL007) are each
computed the first time a rule asks a question of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._analysis.index import index
from .agents import Agents
from .realtime.sessions import Sessions
from .vocabulary import vocabulary

if TYPE_CHECKING:
    from rtlint.core.context import FileContext


class Module(Sessions, Agents):
    """LiveKit's sessions, mirrors, pushes, agents, snapshots and write-backs of one file."""

    def __init__(self, file: FileContext) -> None:
        self.file = file
        self.index = index(file)
        self.vocabulary = vocabulary(file)
        self._init_sessions()
        self._init_agents()


def analyse(file: FileContext) -> Module:
    return file.memo("livekit.module", lambda: Module(file))
