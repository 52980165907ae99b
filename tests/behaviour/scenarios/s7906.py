"""Issue 7906 (RTL002): the text turn commits its user message locally only after its push
returns, so a context copied while the push is in flight lacks it."""

from __future__ import annotations

import asyncio
import contextlib

from harness import bounded, is_added, on_lock_wait, realtime_session, wait
from livekit.agents import Agent
from livekit.plugins import openai


def _agent() -> Agent:
    return Agent(instructions="You are a test agent.")


def _watch_user_commit(h) -> tuple[asyncio.Event, list[str]]:
    """Set once the text turn reports its user message: both before and after the fix
    that happens right after its push returned (_conversation_item_added stays there)."""
    committed, ids = asyncio.Event(), []

    def on_item(ev) -> None:
        if ev.item.role == "user":
            ids.append(ev.item.id)
            committed.set()

    h.session.on("conversation_item_added", on_item)
    return committed, ids


async def copy_in_flight_apply_after() -> dict:
    """Copy agent.chat_ctx while the push is in flight, apply it after the push returned."""
    agent = _agent()
    async with realtime_session(agent) as h:
        committed, user_ids = _watch_user_commit(h)
        user_ack = h.hold(is_added("message", role="user"))
        s1 = h.session.generate_reply(user_input="hello")
        await wait(user_ack.reached, "the text turn's push")
        copy = h.session.current_agent.chat_ctx.copy()
        user_ack.release()
        await wait(committed, "the text turn's push to return")
        await bounded(h.session.current_agent.update_chat_ctx(copy), "the replacement push")
        await h.settle(s1)
        return h.result(user_msg=user_ids[0], copy_had_user_msg=copy.get_by_id(user_ids[0]) is not None)


async def copy_and_apply_in_flight() -> dict:
    """The issue's literal interleaving: copy and apply at once while the push is in flight.
    update_chat_ctx assigns the agent context before it blocks, and the late upsert lands
    in that same object, so the message is kept (before and after the fix)."""
    agent = _agent()
    async with realtime_session(agent) as h:
        committed, user_ids = _watch_user_commit(h)
        user_ack = h.hold(is_added("message", role="user"))
        s1 = h.session.generate_reply(user_input="hello")
        await wait(user_ack.reached, "the text turn's push")
        replace = asyncio.create_task(h.session.current_agent.update_chat_ctx(h.session.current_agent.chat_ctx.copy()))
        replace_waits = on_lock_wait(lambda t: t is replace)
        await wait(replace_waits, "the replacement to queue behind the text turn's push")
        user_ack.release()
        await bounded(replace, "the replacement push")
        await wait(committed, "the text turn's push to return")
        await h.settle(s1)
        return h.result(user_msg=user_ids[0])


FAIL_TEXT = "this push fails"


@contextlib.contextmanager
def _failing_push():
    """Make the engine's update_chat_ctx raise an unexpected (non-RealtimeError) exception
    for the push carrying FAIL_TEXT, before anything is sent."""
    cls = openai.realtime.RealtimeSession
    original = cls.update_chat_ctx

    async def update_chat_ctx(self, chat_ctx):
        if any(i.type == "message" and i.text_content == FAIL_TEXT for i in chat_ctx.items):
            raise ValueError("simulated unexpected failure")
        return await original(self, chat_ctx)

    cls.update_chat_ctx = update_chat_ctx
    try:
        yield
    finally:
        cls.update_chat_ctx = original


async def push_fails() -> dict:
    """The push raises an unexpected exception: the turn is abandoned, and the agent's
    context must not keep a user message for it."""
    agent = _agent()
    async with realtime_session(agent) as h:
        with _failing_push():
            s1 = h.session.generate_reply(user_input=FAIL_TEXT)
            await h.settle(s1)
        err = s1.exception()
        return h.result(speech_error=None if err is None else type(err).__name__)
