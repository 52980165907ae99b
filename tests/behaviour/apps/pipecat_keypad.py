"""Application code under test (pristine): a processor placed before the user aggregator that
collects the digits a phone caller types and, at '#', gives the account number to the bot
and runs it.

The behaviour tests run it as written here and as `rtlint --fix --unsafe-fixes` rewrites it
(RTL006)."""

from __future__ import annotations

import asyncio

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
            asyncio.create_task(self.push_frame(LLMMessagesAppendFrame(messages=[message])))
            await self.push_frame(LLMRunFrame())
        else:
            self._digits += frame.button.value
