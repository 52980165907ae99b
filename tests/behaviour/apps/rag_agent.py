"""Application code under test (pristine): the "add a message permanently" recipe of
LiveKit's pipeline-nodes documentation, in an agent's on_user_turn_completed.

The behaviour tests run it as written here and as `rtlint --fix` rewrites it (RTL005)."""

from __future__ import annotations

from livekit.agents import Agent, ChatContext, ChatMessage


class RagAgent(Agent):
    def __init__(self, lookup) -> None:  # noqa: ANN001
        super().__init__(instructions="You are a test agent.")
        self._lookup = lookup

    async def on_user_turn_completed(self, turn_ctx: ChatContext, new_message: ChatMessage) -> None:
        rag_content = await self._lookup(new_message.text_content)
        turn_ctx.add_message(role="assistant", content=f"Additional information: {rag_content}")
        await self.update_chat_ctx(turn_ctx)
