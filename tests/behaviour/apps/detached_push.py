"""Application code under test (pristine): a fact pushed into the agent's context by a task
that nothing awaits, then a reply. The behaviour tests run it as written here and as
`rtlint --fix --unsafe-fixes` rewrites it (RTL006)."""

from __future__ import annotations

import asyncio

from livekit.agents import Agent, AgentSession


async def remember_and_reply(agent: Agent, session: AgentSession, fact: str):  # noqa: ANN201
    ctx = agent.chat_ctx.copy()
    ctx.add_message(role="assistant", content=fact)
    asyncio.create_task(agent.update_chat_ctx(ctx))
    return session.generate_reply(instructions="Answer with what you know about the caller.")
