"""Application code under test (pristine): a processor at the head of the pipeline that, when
the call starts, tells the bot who is calling and has it greet them.

The behaviour tests run it as written here and as `rtlint --fix --unsafe-fixes` rewrites it
(RTL006)."""

from __future__ import annotations

import asyncio

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
            asyncio.create_task(self.push_frame(LLMMessagesAppendFrame(messages=[{"role": "system", "content": profile}])))
            await self.push_frame(LLMRunFrame())
