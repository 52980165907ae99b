"""Hand-fixed from design.md's RTL005 fix: `copy + [new]` pushed as an Update becomes an
Append of `[new]`. The behaviour tests use it to check the harness: the scenario keeps the
message with it."""

from __future__ import annotations

from pipecat.frames.frames import LLMMessagesAppendFrame
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext

GREETING = {"role": "system", "content": "Greet the caller by name and ask how you can help."}


async def introduce_caller(worker: PipelineWorker, caller: dict) -> None:
    profile = f"The caller is {caller['name']}, on the {caller['plan']} plan."
    await worker.queue_frame(LLMMessagesAppendFrame(messages=[{"role": "system", "content": profile}]))


async def greet(worker: PipelineWorker, context: LLMContext) -> None:
    await worker.queue_frame(LLMMessagesAppendFrame(messages=[GREETING], run_llm=True))
