"""What every scenario shares: a real AgentSession on the real OpenAI realtime engine,
pointed at the scripted server, plus the probes scenarios synchronise on (no sleeps)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from fake_realtime_server import FakeRealtimeServer, Gate
from livekit import rtc
from livekit.agents import Agent, AgentSession, llm
from livekit.agents.voice import io
from livekit.plugins import openai
from waits import bounded, wait

# -- lock-wait probe ---------------------------------------------------------------------
# "task T is now blocked on a lock" is the one signal that marks the race window in both
# the pristine code (the text turn waits on the engine's _update_chat_ctx_lock, having
# taken its stale snapshot) and the fixed code (it waits on the activity's push lock, no
# snapshot yet), without naming either lock. The tee that feeds a generation's message
# stream also takes a lock, so the same probe tells when a consumer waits for its next
# message.

TaskPredicate = Callable[[asyncio.Task], bool]
_armed: list[tuple[TaskPredicate, asyncio.Event]] = []
_original_acquire = asyncio.Lock.acquire


async def _probing_acquire(self: asyncio.Lock) -> bool:
    if self.locked() and (task := asyncio.current_task()) is not None:
        for entry in list(_armed):
            if entry[0](task):
                _armed.remove(entry)
                entry[1].set()
    return await _original_acquire(self)


asyncio.Lock.acquire = _probing_acquire  # type: ignore[method-assign]


def on_lock_wait(predicate: TaskPredicate) -> asyncio.Event:
    """An event set the first time a task matching `predicate` blocks on an asyncio.Lock."""
    ev = asyncio.Event()
    _armed.append((predicate, ev))
    return ev


def new_task_named(name: str) -> TaskPredicate:
    """Matches a task called `name` that did not exist yet when this was called."""
    existing = set(asyncio.all_tasks())
    return lambda t: t not in existing and t.get_name() == name


# -- audio sink ----------------------------------------------------------------------------


class AutoFinishAudioOutput(io.AudioOutput):
    """An audio sink that "plays" each segment instantly: flush finishes it."""

    def __init__(self) -> None:
        super().__init__(label="AutoFinishAudioOutput", capabilities=io.AudioOutputCapabilities(pause=True))
        self._duration = 0.0
        self._active = False

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        self._duration += frame.duration
        if not self._active:
            self._active = True
            self.on_playback_started(created_at=time.time())

    def flush(self) -> None:
        super().flush()
        if self._active:
            self._active, position, self._duration = False, self._duration, 0.0
            self.on_playback_finished(playback_position=position, interrupted=False)

    def clear_buffer(self) -> None:
        if self._active:
            self._active = False
            self.on_playback_finished(playback_position=self._duration, interrupted=True)


# -- session -------------------------------------------------------------------------------


def is_added(item_type: str, role: str | None = None) -> Callable[[dict], bool]:
    """Server-event predicate: the conversation.item.added acknowledging such an item."""

    def match(ev: dict) -> bool:
        item = ev.get("item") or {}
        return (
            ev.get("type") == "conversation.item.added"
            and item.get("type") == item_type
            and (role is None or item.get("role") == role)
        )

    return match


def describe_local(item: llm.ChatItem) -> dict:
    out: dict = {"id": item.id, "type": item.type}
    if item.type == "message":
        out.update(role=item.role, text=item.text_content or "")
    elif item.type in ("function_call", "function_call_output"):
        out["call_id"] = item.call_id
    return out


@dataclass
class Harness:
    server: FakeRealtimeServer
    session: AgentSession
    model: openai.realtime.RealtimeModel

    def hold(self, predicate: Callable[[dict], bool]) -> Gate:
        return self.server.hold(predicate)

    def local_items(self) -> list[dict]:
        return [
            describe_local(i)
            for i in self.session.current_agent.chat_ctx.items
            if i.type in ("message", "function_call", "function_call_output")
        ]

    async def settle(self, *handles) -> None:
        """Wait for the given speeches, then for the session to go idle."""
        for h in handles:
            await bounded(asyncio.shield(h.wait_for_playout()), f"speech {h.id}")
        await bounded(self.session.wait_for_idle(), "the session to go idle")

    def result(self, **extra) -> dict:
        return {
            "server_items": self.server.summary(),
            "server_deleted": self.server.deleted,
            "client_deletes": [
                ev["item_id"] for ev in self.server.client_events if ev.get("type") == "conversation.item.delete"
            ],
            "local_items": self.local_items(),
            **extra,
        }


@contextlib.asynccontextmanager
async def realtime_session(
    agent: Agent,
    *,
    modalities: tuple[str, ...] = ("text",),
    audio_output: io.AudioOutput | None = None,
    **model_options: object,
) -> AsyncIterator[Harness]:
    server = FakeRealtimeServer()
    url = await server.start()
    model = openai.realtime.RealtimeModel(
        base_url=url, api_key="sk-fake-local-only", modalities=list(modalities), **model_options
    )
    session = AgentSession(llm=model)
    if audio_output is not None:
        session.output.audio = audio_output
    try:
        await bounded(session.start(agent, record=False), "session start")
        await wait(server.connected, "the engine to connect")
        yield Harness(server=server, session=session, model=model)
    finally:
        server.release_all()  # a scenario that failed must not leave the close parked on a gate
        with contextlib.suppress(Exception):
            await bounded(session.aclose(), "session close")
        with contextlib.suppress(Exception):
            await bounded(model.aclose(), "model close")
        await server.stop()


@contextlib.asynccontextmanager
async def pipeline_session(agent: Agent, model: llm.LLM) -> AsyncIterator[AgentSession]:
    """A session on a plain (non-realtime) LLM, text only: no STT, TTS or audio output."""
    session = AgentSession(llm=model)
    try:
        await bounded(session.start(agent, record=False), "session start")
        yield session
    finally:
        with contextlib.suppress(Exception):
            await bounded(session.aclose(), "session close")


# -- the end of a user turn ------------------------------------------------------------------

# 500 ms of silence, mono PCM16 at the engine's 24 kHz (the API commits at least 100 ms)
_TURN_AUDIO = rtc.AudioFrame(data=b"\x00\x00" * 12000, sample_rate=24000, num_channels=1, samples_per_channel=12000)


async def end_user_turn(session: AgentSession, transcript: str) -> None:
    """End a user turn the way the session's audio recognition does when its (client-side)
    turn detector fires, and wait for the turn's on_user_turn_completed task. With a
    realtime model the turn's audio is in the input buffer first, so the activity's
    commit_audio() makes the server create the user's audio item."""
    from livekit.agents.voice.audio_recognition import _EndOfTurnInfo, _EndOfTurnMetrics

    activity = session._activity
    if activity._rt_session is not None:
        activity._rt_session.push_audio(_TURN_AUDIO)
    info = _EndOfTurnInfo(
        skip_reply=False,
        new_transcript=transcript,
        transcript_confidence=1.0,
        metrics=_EndOfTurnMetrics(
            started_speaking_at=None, stopped_speaking_at=None, transcription_delay=None, end_of_turn_delay=None
        ),
    )
    assert activity.on_end_of_turn(info), "the activity refused the end of turn"
    await bounded(asyncio.shield(activity._user_turn_completed_atask), "on_user_turn_completed")
