"""Application code under test (pristine): once the caller is identified, the bot is told who
is calling, and greets them.

The behaviour tests run it as written here and as `rtlint --fix` rewrites it (RTL005)."""

from __future__ import annotations

from pipecat.frames.frames import LLMMessagesAppendFrame, LLMMessagesUpdateFrame
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext

GREETING = {"role": "system", "content": "Greet the caller by name and ask how you can help."}


async def introduce_caller(worker: PipelineWorker, caller: dict) -> None:
    profile = f"The caller is {caller['name']}, on the {caller['plan']} plan."
    await worker.queue_frame(LLMMessagesAppendFrame(messages=[{"role": "system", "content": profile}]))


async def greet(worker: PipelineWorker, context: LLMContext) -> None:
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=context.get_messages() + [GREETING], run_llm=True))
