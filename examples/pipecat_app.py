"""A Pipecat application with the context races rtlint finds (RTL005, RTL006, RTL008).

`context.get_messages()` returns the context's own list, and the aggregators write it in
other tasks while this code awaits.
"""

import asyncio
import json

from pipecat.frames.frames import (
    LLMContextFrame,
    LLMMessagesAppendFrame,
    LLMMessagesUpdateFrame,
    LLMRunFrame,
)
from pipecat.processors.frame_processor import FrameProcessor
from pipecat.services.llm_service import FunctionCallParams


class MemoryProcessor(FrameProcessor):
    """Adds a recalled memory to the conversation before the completion."""

    async def process_frame(self, frame, direction):
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            messages = list(frame.context.get_messages())
            recalled = await self.recall(messages[-1])
            messages.append({"role": "system", "content": recalled})
            # RTL005: the user's turn committed during the recall is lost
            frame.context.set_messages(messages)
        await self.push_frame(frame, direction)

    async def recall(self, message):
        await asyncio.sleep(0.1)
        return f"the user once said {message['content']!r}"

    async def nudge(self, task):
        # RTL006: the LLMRunFrame queued next can run before the Append is applied
        hello = [{"role": "user", "content": "hi"}]
        asyncio.create_task(self.push_frame(LLMMessagesAppendFrame(messages=hello)))
        await task.queue_frame(LLMRunFrame())


async def redact_history(params: FunctionCallParams):
    # RTL005: the Update replaces what the frames queued ahead of it add
    await params.llm.push_frame(
        LLMMessagesUpdateFrame(
            messages=list(map(redact, params.context.get_messages()))
        )
    )
    await params.result_callback({"redacted": True})


async def save_conversation(params: FunctionCallParams):
    messages = params.context.get_messages()
    # RTL008: meant for the file only, it deletes the request from the conversation
    messages.pop()
    with open("conversation.json", "w") as f:
        json.dump(messages, f)
    await params.result_callback({"saved": True})


def redact(message):
    return {**message, "content": "[redacted]"}
