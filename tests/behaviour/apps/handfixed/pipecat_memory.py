"""Hand-fixed from design.md's RTL005 fix: the direct write of the copy becomes
transform_messages after the last await, replaying the edit (an append) on the live list.
The behaviour tests use it to check the harness: the scenario keeps the message with it."""

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
            messages = frame.context.get_messages().copy()
            query = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
            memories = await self._store.recall(query)
            if memories:
                note = {"role": "system", "content": f"What you remember about the caller: {memories}"}
                frame.context.transform_messages(lambda messages: [*messages, note])
        await self.push_frame(frame, direction)
