"""A small realtime voice agent with the three bugs rtlint was built for.

It keeps a local chat context (`self._chat_ctx`) and pushes changes to a realtime model's
server-side conversation with `update_chat_ctx`, which diffs against a mirror of the server
conversation (`self._rt_session.chat_ctx`) that only catches up on acknowledgement.
Run `rtlint examples/realtime_agent.py` to see the findings, `rtlint --diff` for the fixes.
"""

from __future__ import annotations

import asyncio
import logging

logger = logging.getLogger("voice-agent")


class VoiceAgent:
    def __init__(self, model, chat_ctx) -> None:
        self._rt_session = model.session()
        self._chat_ctx = chat_ctx
        self._speech_lock = asyncio.Lock()

    async def say_user_text(self, text: str) -> None:
        """A typed user turn: append it server-side, then ask for a reply."""
        # RTL001: the mirror is copied outside any lock, so a push in flight loses its items
        chat_ctx = self._rt_session.chat_ctx.copy()
        msg = chat_ctx.add_message(role="user", content=text)
        try:
            await self._rt_session.update_chat_ctx(chat_ctx)
        except ConnectionError:
            logger.exception("could not send the user turn")
            return
        # RTL002: committed locally only after the push was acknowledged
        self._chat_ctx.insert(msg)
        await self._rt_session.generate_reply()

    async def send_tool_results(self, outputs: list) -> None:
        self._chat_ctx.insert(outputs)
        chat_ctx = self._rt_session.chat_ctx.copy()
        chat_ctx.items.extend(outputs)
        await self._rt_session.update_chat_ctx(chat_ctx)

    async def replace_history(self, chat_ctx) -> None:
        self._chat_ctx = chat_ctx.copy()
        await self._rt_session.update_chat_ctx(self._chat_ctx)

    async def play_response(self, response, speech) -> None:
        played = []

        async def _play_messages() -> None:
            async for message in response.messages:
                if speech.interrupted:
                    break  # the rest of the response is never played
                played.append(await speech.play(message))

        await _play_messages()
        # RTL003: `any_unheard` scans `played`, which the abandoned messages never entered
        any_unheard = any(p.frames == 0 for p in played)
        for p in played:
            if p.frames:
                self._chat_ctx.insert(p.as_chat_message(message_id=p.message.message_id))
        if speech.interrupted and any_unheard:
            await self._rt_session.update_chat_ctx(self._chat_ctx)
