"""Hand-fixed from design.md's RTL006 fix: await the push in place. The behaviour tests use
it to check the harness: the scenario keeps the message with it."""

from __future__ import annotations

from pipecat.audio.dtmf.types import KeypadEntry
from pipecat.frames.frames import Frame, InputDTMFFrame, LLMMessagesAppendFrame, LLMRunFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class AccountNumberEntry(FrameProcessor):
    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__(**kwargs)
        self._digits = ""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, InputDTMFFrame):
            await self.push_frame(frame, direction)
        elif frame.button == KeypadEntry.POUND:
            message = {"role": "user", "content": f"My account number is {self._digits}."}
            self._digits = ""
            await self.push_frame(LLMMessagesAppendFrame(messages=[message]))
            await self.push_frame(LLMRunFrame())
        else:
            self._digits += frame.button.value
