"""Issue 7880 (RTL001/RTL004): a push that snapshots the mirror while another push awaits
its acknowledgement deletes that push's item server-side."""

from __future__ import annotations

import asyncio

from fake_realtime_server import function_call, message
from harness import Harness, is_added, new_task_named, on_lock_wait, realtime_session, wait
from livekit.agents import Agent, function_tool
from livekit.agents.voice import SpeechHandle

TEXT_TURN_TASK = "AgentActivity.realtime_reply"  # the task a text user turn runs in


class WeatherAgent(Agent):
    def __init__(self, tool_gate: asyncio.Event | None = None) -> None:
        super().__init__(instructions="You are a test agent.")
        self.tool_started = asyncio.Event()
        self._tool_gate = tool_gate

    @function_tool
    async def lookup_weather(self, city: str) -> str:
        """Look up the weather in a city."""
        self.tool_started.set()
        if self._tool_gate is not None:
            await self._tool_gate.wait()
        return f"sunny in {city}"


def _fco_ids(items: list[dict]) -> list[str]:
    return [i["id"] for i in items if i["type"] == "function_call_output"]


async def tool_output() -> dict:
    """The issue's sequence: tool-output push (:4850) held, then a text user turn."""
    agent = WeatherAgent()
    async with realtime_session(agent) as h:
        h.server.responses = [
            [function_call("lookup_weather", '{"city": "Paris"}')],
            [message("Meanwhile, hello.")],
        ]
        fco_ack = h.hold(is_added("function_call_output"))
        s1 = h.session.generate_reply(user_input="What is the weather in Paris?")
        # queued behind s1, so the tool-output push waits for it (agent_activity.py:4811)
        s2 = h.session.generate_reply(instructions="Say hello.")
        await wait(fco_ack.reached, "the function_call_output push")

        text_turn_waits = on_lock_wait(new_task_named(TEXT_TURN_TASK))
        s3 = h.session.generate_reply(user_input="And tomorrow?")
        await wait(text_turn_waits, "the text turn to queue behind the in-flight push")
        fco_ack.release()
        await h.settle(s1, s2, s3)
        return h.result(pushed_output=_fco_ids(h.local_items()))


async def interrupt_during_tool_call(h: Harness, agent: WeatherAgent, user_input: str) -> SpeechHandle:
    """Start a reply whose response calls the (gated) tool, and interrupt it while the
    response is still generating: that sends the tool's output down the interrupted path
    (:4737). Interrupted after the response ended, the speech would already be a background
    speech waiting on the tool, and its output would take the normal path (:4850)."""
    response_done = h.hold(lambda ev: ev.get("type") == "response.done")
    speech = h.session.generate_reply(user_input=user_input)
    await wait(agent.tool_started, "the tool to start")
    await wait(response_done.reached, "the response to end server-side")
    h.session.interrupt(force=True)  # sets speech.interrupted at once
    assert speech.interrupted
    response_done.release()
    return speech


async def interrupted_tool_output() -> dict:
    """The interrupted generation's tool-output push (:4737) held, then a text user turn."""
    tool_gate = asyncio.Event()
    agent = WeatherAgent(tool_gate)
    async with realtime_session(agent) as h:
        h.server.responses = [[function_call("lookup_weather", '{"city": "Oslo"}')]]
        s1 = await interrupt_during_tool_call(h, agent, "What is the weather in Oslo?")
        fco_ack = h.hold(is_added("function_call_output"))
        tool_gate.set()  # the tool finishes despite the interruption: its output is pushed
        await wait(fco_ack.reached, "the interrupted tool output push")

        text_turn_waits = on_lock_wait(new_task_named(TEXT_TURN_TASK))
        s2 = h.session.generate_reply(user_input="Never mind, what time is it?")
        await wait(text_turn_waits, "the text turn to queue behind the in-flight push")
        fco_ack.release()
        await h.settle(s1, s2)
        return h.result(pushed_output=_fco_ids(h.local_items()))


async def replace_then_append() -> dict:
    """PR 7905 case 1: AgentActivity.update_chat_ctx pushes a new item (ack held), then a
    text turn snapshots a mirror that lacks it."""
    agent = WeatherAgent()
    async with realtime_session(agent) as h:
        ctx = agent.chat_ctx.copy()
        note = ctx.add_message(role="assistant", content="Note: the user prefers Celsius.")
        note_ack = h.hold(
            lambda ev: ev.get("type") == "conversation.item.added" and (ev.get("item") or {}).get("id") == note.id
        )
        replace = asyncio.create_task(agent.update_chat_ctx(ctx))
        await wait(note_ack.reached, "the replacement push")

        text_turn_waits = on_lock_wait(new_task_named(TEXT_TURN_TASK))
        s1 = h.session.generate_reply(user_input="What is the weather?")
        await wait(text_turn_waits, "the text turn to queue behind the replacement push")
        note_ack.release()
        await asyncio.wait_for(replace, 10)
        await h.settle(s1)
        return h.result(pushed_item=note.id)
