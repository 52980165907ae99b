"""The framework seam of the rules: one package per framework answers the rules' questions in
that framework's words, and a rule asks `framework_of(file)` which one a file speaks before
asking anything else. The two never mix in one finding.

- `livekit`: LiveKit Agents, with one vocabulary (`livekit.vocabulary`: every option and
  word) and one analysis per file (`livekit.analyse(file)`): its application side (agents,
  tasks and sessions, their `chat_ctx`, snapshots by `.copy()`, write-backs by
  `update_chat_ctx`; RTL005-RTL007) and its realtime side (`livekit.realtime`: sessions,
  mirrors, the push lock, provider sessions; RTL001-RTL004, RTL010-RTL011).
- `pipecat`: Pipecat (an `LLMContext`'s live message list, its copies, direct writes and
  context frames, pushes and queues of frames, its spawners).

Every framework module has `NAME`, `OPTIONS` (its `[tool.rtlint]` keys; Pipecat's are namespaced,
`[tool.rtlint.pipecat]`), `owns(file)`, `tokens(settings)` (the raw-bytes pre-filter of
what it can report) and `analyse(file)` (its view of the file, built once per file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from . import livekit, pipecat

if TYPE_CHECKING:
    from rtlint.core.context import FileContext
    from rtlint.core.settings import Option, Settings


class Framework(Protocol):
    NAME: str
    OPTIONS: tuple[Option, ...]

    def owns(self, file: FileContext) -> bool: ...

    def tokens(self, settings: Settings) -> list[tuple[Any, ...]]: ...

    def analyse(self, file: FileContext) -> Any: ...


def framework_of(file: FileContext) -> Framework:
    """Pipecat for a file that imports from `pipecat` (or names its types in annotations) and
    not from `livekit`; LiveKit otherwise (also for a file that imports neither: LiveKit's
    words were rtlint's only ones, and its names are what decide a finding)."""
    return file.memo("rules._frameworks.of", lambda: pipecat if pipecat.owns(file) else livekit)


__all__ = ["Framework", "framework_of", "livekit", "pipecat"]
