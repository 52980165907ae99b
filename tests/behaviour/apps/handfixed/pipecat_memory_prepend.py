"""Application code under test, fixed by hand from design.md's fix text: a memory processor placed between the user
aggregator and the LLM, which recalls what is known about the caller before each
completion and puts it first in the context, as a system message (`insert(0, ...)`).

The behaviour tests run it as written here and as `rtlint --fix` rewrites it (RTL005: the
prepend is replayed on the live list by `transform_messages`)."""

from __future__ import annotations

from pipecat.frames.frames import Frame, LLMContextFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class MemoryProcessor(FrameProcessor):
    def __init__(self, store, **kwargs) -> None:  # noqa: ANN001, ANN003
        super().__init__(**kwargs)
        self._store = store

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            messages = list(frame.context.get_messages())
            query = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
            memories = await self._store.recall(query)
            note = {"role": "system", "content": f"About the caller: {memories}"}
            frame.context.transform_messages(lambda messages: [note, *messages])
        await self.push_frame(frame, direction)
