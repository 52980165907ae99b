"""Application code under test (pristine): a processor at the end of the pipeline, after the
assistant aggregator, that notes in the conversation when the caller presses 0 to ask for a
human, and has the bot answer it. The pipeline is built here, as a Pipecat bot builds it.

The behaviour tests run it as written here and as `rtlint --fix --unsafe-fixes` rewrites it
(RTL009)."""

from __future__ import annotations

from pipecat.audio.dtmf.types import KeypadEntry
from pipecat.frames.frames import Frame, InputDTMFFrame, LLMMessagesAppendFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair, LLMUserAggregatorParams
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import LLMService
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies

OPERATOR_NOTE = "The caller pressed 0: they want to speak to a human operator."


class OperatorRequest(FrameProcessor):
    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, InputDTMFFrame) and frame.button == KeypadEntry.ZERO:
            note = {"role": "system", "content": OPERATOR_NOTE}
            await self.push_frame(LLMMessagesAppendFrame(messages=[note], run_llm=True))


def build_worker(context: LLMContext, llm: LLMService) -> PipelineWorker:
    context_aggregator = LLMContextAggregatorPair(
        context, user_params=LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies())
    )
    pipeline = Pipeline([context_aggregator.user(), llm, context_aggregator.assistant(), OperatorRequest()])
    return PipelineWorker(pipeline, cancel_on_idle_timeout=False, enable_rtvi=False)
