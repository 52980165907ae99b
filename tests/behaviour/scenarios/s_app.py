"""Application code that writes a stale context back (RTL005) or detaches a push (RTL006).

The application modules are loaded by name (run.py's --module swaps in a fixed copy):
`livekit_memorysync.memory` (the published package, installed beside the venv),
`app_rag_agent` and `app_detached_push` (tests/behaviour/apps/)."""

from __future__ import annotations

import asyncio
import importlib

from fake_llm import FakeLLM
from harness import bounded, end_user_turn, pipeline_session, realtime_session, wait
from livekit.agents import Agent, llm

MEMORY = "- The caller prefers tea."
USER_SAID = "what do I usually drink in the morning"


class _GatedMemoryApi:
    """The MemorySync HTTP API as `MemorySyncMemory(api=...)` takes it: the recall waits
    for `gate`, so the framework commits the user's turn while the hook awaits it."""

    def __init__(self, gate: asyncio.Event) -> None:
        self.gate = gate
        self.recalls: list[str] = []

    async def resolve_tenant_id(self) -> str:
        return "tenant"

    async def recall(self, *, tenant_id: str, user_id: str, prompt: str, k: int) -> dict:
        self.recalls.append(prompt)
        await self.gate.wait()
        return {"context": MEMORY}

    async def aclose(self) -> None:
        return None


class _MemoryAgent(Agent):
    """Wired as memorysync's docstring teaches: your own Agent, memory.on_user_turn in the hook."""

    def __init__(self, memory) -> None:
        super().__init__(instructions="You are a test agent.")
        self.memory = memory

    async def on_user_turn_completed(self, turn_ctx, new_message) -> None:
        await self.memory.on_user_turn(turn_ctx, new_message, agent=self)


def _is_memory(item: dict) -> bool:
    return MEMORY in (item.get("text") or "")


async def realtime_memory_writeback() -> dict:
    """memorysync 1.1.1 with persist_injection=True on a realtime model with client-side turn
    detection: the hook runs after commit_audio(), its recall is gated until the server's user
    audio item is in the agent's context, then it injects and writes turn_ctx back."""
    memory_module = importlib.import_module("livekit_memorysync.memory")
    user_item_local = asyncio.Event()
    api = _GatedMemoryApi(user_item_local)
    memory = memory_module.MemorySyncMemory(
        user_id="caller", api=api, prefetch=False, persist_injection=True, recall_timeout=10.0
    )
    agent = _MemoryAgent(memory)
    async with realtime_session(agent, turn_detection=None) as h:
        rt_session = h.session._activity._rt_session
        user_items: list[str] = []

        def on_remote_item(ev: llm.RemoteItemAddedEvent) -> None:
            # registered after the activity's own handler, which has placed it locally by now
            if ev.item.type == "message" and ev.item.role == "user":
                user_items.append(ev.item.id)
                user_item_local.set()

        rt_session.on("remote_item_added", on_remote_item)
        await end_user_turn(h.session, USER_SAID)
        await bounded(h.session.wait_for_idle(), "the reply")
        return h.result(
            memory_file=memory_module.__file__,
            recalls=api.recalls,
            user_item=user_items[0] if user_items else None,
            user_item_was_local=user_items[0] in [i["id"] for i in h.local_items()] if user_items else None,
            response_contexts=h.server.response_contexts,
            server_memory=[i["id"] for i in h.server.summary() if _is_memory(i)],
            local_memory=[i["id"] for i in h.local_items() if _is_memory(i)],
        )


COMMITTED_MEANWHILE = "A reply that finished while the hook awaited."


async def pipeline_rag_writeback() -> dict:
    """The documentation's recipe on a plain LLM: while the hook awaits its lookup, the
    framework commits an item to the agent's context; the write-back must keep it."""
    app = importlib.import_module("app_rag_agent")
    lookup_started, release = asyncio.Event(), asyncio.Event()

    async def lookup(query: str) -> str:
        lookup_started.set()
        await release.wait()
        return "the caller prefers tea"

    agent = app.RagAgent(lookup)
    model = FakeLLM()
    async with pipeline_session(agent, model) as session:
        turn = asyncio.ensure_future(end_user_turn(session, USER_SAID))
        await wait(lookup_started, "the hook's lookup")
        committed = llm.ChatMessage(role="assistant", content=[COMMITTED_MEANWHILE])
        # the framework's local commit (agent_activity's _upsert_item for a reply, a tool output)
        session.current_agent._chat_ctx._upsert_item(committed)
        release.set()
        await bounded(turn, "the user turn")
        await bounded(session.wait_for_idle(), "the reply")
        local = [(i.role, i.text_content or "") for i in session.current_agent.chat_ctx.items if i.type == "message"]
        return {
            "app_file": app.__file__,
            "committed_id": committed.id,
            "local_ids": [i.id for i in session.current_agent.chat_ctx.items],
            "local_messages": local,
            "llm_requests": model.requests,
        }


FACT = "The caller's name is Ada."


async def detached_push_then_reply() -> dict:
    """A push handed to asyncio.create_task, then generate_reply(): what did the reply see?"""
    app = importlib.import_module("app_detached_push")
    agent = Agent(instructions="You are a test agent.")
    model = FakeLLM()
    async with pipeline_session(agent, model) as session:
        handle = await app.remember_and_reply(session.current_agent, session, FACT)
        await bounded(asyncio.shield(handle.wait_for_playout()), "the reply")
        await bounded(session.wait_for_idle(), "the session to go idle")
        return {
            "app_file": app.__file__,
            "llm_requests": model.requests,
            "local_texts": [i.text_content or "" for i in session.current_agent.chat_ctx.items if i.type == "message"],
        }
