"""Application code under test (pristine): a tool that saves the conversation so far, without
the request to save it, for the caller's records.

The behaviour tests run it as written here and as `rtlint --fix` rewrites it (RTL008)."""

from __future__ import annotations

import json
from pathlib import Path

from pipecat.services.llm_service import FunctionCallParams, LLMService


def register_tools(llm: LLMService, transcripts: Path) -> None:
    async def save_conversation(params: FunctionCallParams) -> None:
        messages = params.context.get_messages()
        messages.pop()  # the request to save is not part of the conversation
        with open(transcripts / f"{params.tool_call_id}.json", "w") as f:
            json.dump(messages, f)
        await params.result_callback({"saved": True})

    llm.register_function("save_conversation", save_conversation)
