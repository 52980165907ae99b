"""Hand-fixed from design.md's RTL005 fix: the Update frame built by a pure function of a
copy becomes a Transform frame computing the same function of its argument. The behaviour
tests use it to check the harness: the scenario keeps the messages with it."""

from __future__ import annotations

from pipecat.frames.frames import LLMMessagesTransformFrame
from pipecat.services.llm_service import FunctionCallParams, LLMService

BILLING_PROMPT = {
    "role": "system",
    "content": "You are the billing assistant. Answer questions about invoices and payments.",
}


def with_billing_prompt(message: dict) -> dict:
    return BILLING_PROMPT if message.get("role") == "system" else message


async def transfer_to_billing(params: FunctionCallParams) -> None:
    await params.llm.push_frame(
        LLMMessagesTransformFrame(transform=lambda messages: [with_billing_prompt(m) for m in messages])
    )
    await params.result_callback({"transferred": True})


def register_tools(llm: LLMService) -> None:
    llm.register_function("transfer_to_billing", transfer_to_billing)
