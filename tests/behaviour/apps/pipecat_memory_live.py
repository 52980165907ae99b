"""Application code under test (correct as written): the memory processor of
pipecat_memory.py, editing the context's own list (`get_messages()` returns it) instead of
a copy. Writing it back after the await changes nothing and loses nothing.

The behaviour tests run it as written here; rtlint must report nothing and fix nothing."""

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
            messages = frame.context.get_messages()
            query = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
            memories = await self._store.recall(query)
            if memories:
                messages.append({"role": "system", "content": f"What you remember about the caller: {memories}"})
                frame.context.set_messages(messages)
        await self.push_frame(frame, direction)
