"""A plain (non-realtime) LLM for the pipeline scenarios: it answers every request with one
scripted text and records the context each request was made with (what the reply saw)."""

from __future__ import annotations

from livekit.agents import llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions


class FakeLLM(llm.LLM):
    def __init__(self, reply: str = "ok") -> None:
        super().__init__()
        self.reply = reply
        self.requests: list[list[dict]] = []  # the chat context of each chat() call

    @property
    def model(self) -> str:
        return "fake"

    @property
    def provider(self) -> str:
        return "fake"

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools=None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        **_: object,
    ) -> llm.LLMStream:
        self.requests.append([_text_item(i) for i in chat_ctx.items if i.type == "message"])
        return _Stream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)


class _Stream(llm.LLMStream):
    async def _run(self) -> None:
        self._event_ch.send_nowait(
            llm.ChatChunk(id="fake-1", delta=llm.ChoiceDelta(role="assistant", content=self._llm.reply))
        )


def _text_item(item: llm.ChatItem) -> dict:
    return {"id": item.id, "role": item.role, "text": item.text_content or ""}
