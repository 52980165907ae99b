"""What every Pipecat scenario shares: a real pipeline run offline.

The pipeline is built as Pipecat's own `pipecat.tests.utils.run_test` builds it (a Pipeline,
a PipelineWorker with no idle cancellation and no RTVI, a WorkerRunner), around Pipecat's
real LLMContextAggregatorPair and a scripted LLM service. run_test sends a fixed list of
frames and ends; a scenario has to act between frames, when an event says so, so
`conversation()` starts the same pipeline and hands it over.

User turns are driven as a transport with its own turn detection drives them
(UserStartedSpeakingFrame, TranscriptionFrame, UserStoppedSpeakingFrame, with
ExternalUserTurnStrategies): the user aggregator ends the turn, writes the user message to
the context and pushes the LLMContextFrame itself. Nothing here sleeps: the scenarios wait
on events (the aggregators' own event handlers, the LLM's requests), bounded by waits.WAIT.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    FunctionCallFromLLM,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMAssistantAggregator,
    LLMContextAggregatorPair,
    LLMUserAggregator,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import LLMService
from pipecat.services.settings import LLMSettings
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies
from pipecat.workers.runner import WorkerRunner
from waits import bounded, wait

SYSTEM_PROMPT = "You are a helpful voice assistant."


@dataclass(frozen=True)
class Text:
    """The LLM answers with this text."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The LLM answers with a call of a registered function."""

    name: str
    arguments: dict = field(default_factory=dict)


class ScriptedLLM(LLMService):
    """An LLM service that answers each LLMContextFrame with the next scripted reply (then
    "ok"), as a streaming service does (LLMFullResponseStartFrame, the text or the function
    call, LLMFullResponseEndFrame), and records the messages of every request: read when the
    completion starts, as a real service converts the context it is handed then."""

    def __init__(self, replies: Sequence[Text | ToolCall], on_request: Callable[[], None]) -> None:
        # every settings field given, as LLMSettings.validate_complete wants
        unsupported = dict.fromkeys(
            (
                "system_instruction",
                "temperature",
                "max_tokens",
                "top_p",
                "top_k",
                "frequency_penalty",
                "presence_penalty",
                "seed",
                "filter_incomplete_user_turns",
                "user_turn_completion_config",
            )
        )
        super().__init__(settings=LLMSettings(model="scripted", **unsupported))
        self._replies = list(replies)
        self._on_request = on_request
        self.requests: list[list[dict]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, LLMContextFrame):
            await self.push_frame(frame, direction)
            return
        self.requests.append(copy.deepcopy(frame.context.get_messages()))
        self._on_request()
        reply = self._replies.pop(0) if self._replies else Text("ok")
        await self.push_frame(LLMFullResponseStartFrame())
        if isinstance(reply, Text):
            await self.push_frame(LLMTextFrame(reply.text))
        else:
            call = FunctionCallFromLLM(
                function_name=reply.name,
                tool_call_id=f"call_{len(self.requests)}",
                arguments=reply.arguments,
                context=frame.context,
            )
            await self.run_function_calls([call])
        await self.push_frame(LLMFullResponseEndFrame())


class Conversation:
    """A running pipeline [*before, user aggregator, *between, LLM, assistant aggregator]."""

    def __init__(
        self,
        *,
        context: LLMContext,
        replies: Sequence[Text | ToolCall],
        before: Sequence[FrameProcessor],
        between: Sequence[FrameProcessor],
        build: Callable[[LLMContext, LLMService], PipelineWorker] | None = None,
    ) -> None:
        self.context = context
        self._changed = asyncio.Event()
        self.llm = ScriptedLLM(replies, on_request=self._changed.set)
        self.user_turns: list[str] = []  # the user messages the user aggregator added
        self.replies: list[str] = []  # the text of every assistant turn that ended
        if build is None:
            self.user, self.assistant = LLMContextAggregatorPair(
                context, user_params=LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies())
            )
            self.pipeline = Pipeline([*before, self.user, *between, self.llm, self.assistant])
            self.worker = PipelineWorker(self.pipeline, cancel_on_idle_timeout=False, enable_rtvi=False)
        else:  # the application builds the pipeline (and its aggregators) itself
            self.worker = build(context, self.llm)
            self.user, self.assistant = _aggregators(self.worker)
        self._started = asyncio.Event()

        @self.worker.event_handler("on_pipeline_started")
        async def _started(worker, frame) -> None:
            self._started.set()

        @self.user.event_handler("on_user_turn_message_added")
        async def _user_turn(aggregator, message) -> None:
            self.user_turns.append(message.content)
            self._changed.set()

        @self.assistant.event_handler("on_assistant_turn_stopped")
        async def _reply(aggregator, message) -> None:
            if message.content:
                self.replies.append(message.content)
            self._changed.set()

    async def until(self, predicate: Callable[[], bool], what: str) -> None:
        """Wait until `predicate()` holds, re-checked whenever the pipeline reports progress."""
        while not predicate():
            self._changed.clear()
            await wait(self._changed, what)

    async def user_says(self, text: str) -> None:
        """A user turn, as a transport with its own turn detection reports it; returns once the
        user aggregator has written it to the context."""
        await self.say(text)
        await self.until(lambda: text in self.user_turns, f"the user aggregator to commit {text!r}")

    async def say(self, text: str) -> None:
        """The same turn, without waiting for its commit."""
        await self.worker.queue_frames(
            [UserStartedSpeakingFrame(), TranscriptionFrame(text, "caller", ""), UserStoppedSpeakingFrame()]
        )

    async def replied(self, text: str) -> None:
        await self.until(lambda: text in self.replies, f"the assistant's reply {text!r}")

    def messages(self) -> list[dict]:
        return copy.deepcopy(self.context.get_messages())


def _aggregators(worker: PipelineWorker) -> tuple[LLMUserAggregator, LLMAssistantAggregator]:
    """The one user and the one assistant aggregator of the pipeline a worker runs."""
    found: list[FrameProcessor] = []
    stack: list[FrameProcessor] = [worker._pipeline]
    while stack:
        processor = stack.pop()
        found.append(processor)
        stack.extend(processor.processors)
    (user,) = [p for p in found if isinstance(p, LLMUserAggregator)]
    (assistant,) = [p for p in found if isinstance(p, LLMAssistantAggregator)]
    return user, assistant


@contextlib.asynccontextmanager
async def conversation(
    *,
    replies: Sequence[Text | ToolCall] = (),
    before: Sequence[FrameProcessor] = (),
    between: Sequence[FrameProcessor] = (),
    messages: list[dict] | None = None,
    build: Callable[[LLMContext, LLMService], PipelineWorker] | None = None,
) -> AsyncIterator[Conversation]:
    """A started Conversation whose context holds `messages` (by default one system prompt);
    ended with an EndFrame when the block exits (cancelled if it raised). With `build`, the
    application builds the worker and its pipeline around the context and the scripted LLM."""
    context = LLMContext(messages=messages or [{"role": "system", "content": SYSTEM_PROMPT}])
    conv = Conversation(context=context, replies=replies, before=before, between=between, build=build)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(conv.worker)
    run = asyncio.ensure_future(runner.run())
    try:
        await bounded(asyncio.shield(_started_or_failed(conv, run)), "the pipeline to start")
        yield conv
        await conv.worker.queue_frame(EndFrame())
        await bounded(asyncio.shield(run), "the pipeline to end")
    finally:
        if not run.done():
            await conv.worker.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(run, 10)


async def _started_or_failed(conv: Conversation, run: asyncio.Future) -> None:
    started = asyncio.ensure_future(conv._started.wait())
    await asyncio.wait({started, run}, return_when=asyncio.FIRST_COMPLETED)
    if not started.done():
        started.cancel()
        run.result()  # raises what stopped the runner
        raise AssertionError("the worker runner ended before the pipeline started")
