"""Hand-fixed from design.md's RTL008 fix: take a copy where the alias is bound. The
behaviour tests use it to check the harness: the scenario keeps the message with it."""

from __future__ import annotations

import json
from pathlib import Path

from pipecat.services.llm_service import FunctionCallParams, LLMService


def register_tools(llm: LLMService, transcripts: Path) -> None:
    async def save_conversation(params: FunctionCallParams) -> None:
        messages = list(params.context.get_messages())
        messages.pop()  # the request to save is not part of the conversation
        with open(transcripts / f"{params.tool_call_id}.json", "w") as f:
            json.dump(messages, f)
        await params.result_callback({"saved": True})

    llm.register_function("save_conversation", save_conversation)
