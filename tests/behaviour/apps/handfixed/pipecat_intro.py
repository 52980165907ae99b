"""Hand-fixed from design.md's RTL006 fix: await the push in place. The behaviour tests use
it to check the harness: the scenario keeps the message with it."""

from __future__ import annotations

from pipecat.frames.frames import Frame, LLMMessagesAppendFrame, LLMRunFrame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class CallerIntroduction(FrameProcessor):
    def __init__(self, caller: dict, **kwargs) -> None:  # noqa: ANN003
        super().__init__(**kwargs)
        self._caller = caller

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            profile = f"The caller is {self._caller['name']}, on the {self._caller['plan']} plan."
            await self.push_frame(LLMMessagesAppendFrame(messages=[{"role": "system", "content": profile}]))
            await self.push_frame(LLMRunFrame())
