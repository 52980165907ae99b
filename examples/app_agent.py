"""A LiveKit-style support agent with the three application-code bugs rtlint looks for.

Application code on top of a realtime framework edits the agent's chat context from hooks
and tools. `turn_ctx` in `on_user_turn_completed` is a copy taken before the hook started,
and `self.chat_ctx` returns a read-only copy: writing either back after an await replaces
what the framework committed meanwhile (the user's own turn) with a stale snapshot.
Run `rtlint examples/app_agent.py` to see the findings, `rtlint --diff` for the fixes.
"""

from __future__ import annotations

import asyncio

from livekit.agents import Agent, ChatContext, ChatMessage, RunContext, function_tool


async def lookup_policies(question: str) -> str:
    """Stands in for a vector-store query: a network round trip."""
    await asyncio.sleep(0.1)
    return f"(policy excerpts relevant to {question!r})"


class SupportAgent(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You are a support agent for an airline.")

    async def on_user_turn_completed(self, turn_ctx: ChatContext, new_message: ChatMessage) -> None:
        # RTL005: `turn_ctx` was copied before the hook started; while the lookup runs the
        # framework commits the user's turn, and the write-back deletes it again
        policies = await lookup_policies(new_message.text_content or "")
        turn_ctx.add_message(role="assistant", content=policies)
        await self.update_chat_ctx(turn_ctx)

    @function_tool()
    async def escalate(self, context: RunContext, reason: str) -> None:
        """Hand the call to a human supervisor."""
        ctx = self.chat_ctx.copy()
        ctx.add_message(role="system", content=f"Escalated to a supervisor: {reason}")
        # RTL006: the push starts later; the reply below runs on the context without the note
        asyncio.create_task(self.update_chat_ctx(ctx))
        await self.session.generate_reply(instructions="Tell the user a supervisor is joining.")


async def remember_language(agent: Agent, language: str) -> None:
    """RTL007: the note is added to a copy nothing keeps; the write-back pushes none of it."""
    agent.chat_ctx.copy().add_message(role="system", content=f"The user speaks {language}.")
    await agent.update_chat_ctx(agent.chat_ctx)
