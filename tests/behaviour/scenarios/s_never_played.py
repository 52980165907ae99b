"""Never-played message leak (RTL003): a response creates assistant messages A and B; the
user interrupts after A has played and before B is pulled from the message stream. B was
never heard, so the cleanup push must delete it server-side.

Also PR 7905's second case (RTL004): while that cleanup push awaits its ack, a tool of an
earlier interrupted generation finishes; its output push must not snapshot a mirror that
still holds B (which would re-create B)."""

from __future__ import annotations

import asyncio

from fake_realtime_server import function_call, message
from harness import (
    AutoFinishAudioOutput,
    Harness,
    is_added,
    on_lock_wait,
    realtime_session,
    wait,
)
from livekit.agents import Agent
from livekit.agents.voice import SpeechHandle
from s7880 import TEXT_TURN_TASK, WeatherAgent, interrupt_during_tool_call

PROCESS_MESSAGES_TASK = "AgentActivity.realtime_generation.process_messages"


async def _reply_interrupted_between(h: Harness, audio: AutoFinishAudioOutput) -> SpeechHandle:
    """Start a reply scripted as [A, B]; interrupt it after A played, before B is pulled."""
    # B's events are held on the wire: the server has created B, the client not heard of it
    b_created = h.hold(lambda ev: ev.get("type") == "response.output_item.added" and ev.get("output_index") == 1)
    a_played = asyncio.Event()
    next_pull: list[asyncio.Event] = []

    def on_finished(_ev) -> None:
        if not a_played.is_set():
            # from here, the message loop's next blocking wait is its pull of B (the tee's
            # lock, held by the peer already waiting for B upstream)
            next_pull.append(on_lock_wait(lambda t: t.get_name() == PROCESS_MESSAGES_TASK))
            a_played.set()

    audio.on("playback_finished", on_finished)
    speech = h.session.generate_reply(user_input="Tell me two things.")
    await wait(a_played, "A to play out")
    await wait(b_created.reached, "the server to create B")
    await wait(next_pull[0], "the message loop to wait for B")
    h.session.interrupt(force=True)  # sets speech.interrupted at once
    assert speech.interrupted
    b_created.release()
    return speech


def _message_ids(h: Harness) -> list[str]:
    """The ids the server gave the assistant messages, in order."""
    return [e["item"]["id"] for e in h.server.sent if is_added("message", role="assistant")(e)]


async def abandoned_after_played() -> dict:
    audio = AutoFinishAudioOutput()
    agent = Agent(instructions="You are a test agent.")
    async with realtime_session(agent, modalities=("audio",), audio_output=audio) as h:
        h.server.responses = [[message("First answer."), message("Second answer.")]]
        speech = await _reply_interrupted_between(h, audio)
        await h.settle(speech)
        a_id, b_id = _message_ids(h)[:2]
        return h.result(
            a_id=a_id,
            b_id=b_id,
            truncated=[
                ev["item_id"] for ev in h.server.client_events if ev.get("type") == "conversation.item.truncate"
            ],
        )


async def cleanup_then_late_tool_output() -> dict:
    tool_gate = asyncio.Event()
    audio = AutoFinishAudioOutput()
    agent = WeatherAgent(tool_gate)
    async with realtime_session(agent, modalities=("audio",), audio_output=audio) as h:
        h.server.responses = [
            [function_call("lookup_weather", '{"city": "Rome"}')],
            [message("First answer."), message("Second answer.")],
        ]
        # s1's tool keeps running past the interruption; its output comes later (:4737)
        s1 = await interrupt_during_tool_call(h, agent, "What is the weather in Rome?")

        delete_ack = h.hold(lambda ev: ev.get("type") == "conversation.item.deleted")
        s2 = await _reply_interrupted_between(h, audio)
        # the cleanup push (if the code makes one) deletes B and waits for the ack
        s2_done = asyncio.ensure_future(s2.wait_for_playout())
        reached = asyncio.ensure_future(delete_ack.reached.wait())
        await asyncio.wait([s2_done, reached], timeout=10, return_when=asyncio.FIRST_COMPLETED)
        cleanup_push = delete_ack.reached.is_set()
        if cleanup_push:
            tool_push_waits = on_lock_wait(lambda t: t.get_name() == TEXT_TURN_TASK)
            tool_gate.set()
            await wait(tool_push_waits, "the late tool output push to queue behind the cleanup")
            delete_ack.release()
        else:
            tool_gate.set()
        reached.cancel()
        await h.settle(s1, s2)
        b_id = _message_ids(h)[1]
        return h.result(
            b_id=b_id,
            cleanup_push=cleanup_push,
            b_creates=[
                ev["item"].get("id")
                for ev in h.server.client_events
                if ev.get("type") == "conversation.item.create" and ev["item"].get("id") == b_id
            ],
        )
