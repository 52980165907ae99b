"""Application code under test (pristine): a tool that hands the call over to the billing
assistant, replacing the system prompt and keeping the conversation.

The behaviour tests run it as written here and as `rtlint --fix` rewrites it (RTL005)."""

from __future__ import annotations

from pipecat.frames.frames import LLMMessagesUpdateFrame
from pipecat.services.llm_service import FunctionCallParams, LLMService

BILLING_PROMPT = {
    "role": "system",
    "content": "You are the billing assistant. Answer questions about invoices and payments.",
}


def with_billing_prompt(message: dict) -> dict:
    return BILLING_PROMPT if message.get("role") == "system" else message


async def transfer_to_billing(params: FunctionCallParams) -> None:
    await params.llm.push_frame(
        LLMMessagesUpdateFrame(messages=[with_billing_prompt(m) for m in params.context.get_messages()])
    )
    await params.result_callback({"transferred": True})


def register_tools(llm: LLMService) -> None:
    llm.register_function("transfer_to_billing", transfer_to_billing)
