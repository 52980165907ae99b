"""The Pipecat scenarios run.py can run (`--registry pc_scenario_defs`), by name.

Each one runs an application module of tests/behaviour/apps/pipecat_*.py, loaded by name
(run.py's --module swaps in the hand-fixed or the rtlint-fixed copy), in a real pipeline
(pc_harness.py), and returns what the tests assert on: the context's messages at the end,
and the messages of every request the LLM was made with."""

from __future__ import annotations

import asyncio
import importlib
import json
import tempfile
from pathlib import Path

from pc_harness import Text, ToolCall, conversation
from pipecat.audio.dtmf.types import KeypadEntry
from pipecat.frames.frames import InputDTMFFrame, LLMMessagesAppendFrame
from waits import wait

MEMORY_APP = "app_pipecat_memory"
MEMORY_LIVE_APP = "app_pipecat_memory_live"
MEMORY_PREPEND_APP = "app_pipecat_memory_prepend"
HANDOVER_APP = "app_pipecat_handover"
GREETING_APP = "app_pipecat_greeting"
SAVE_APP = "app_pipecat_save"
INTRO_APP = "app_pipecat_intro"
KEYPAD_APP = "app_pipecat_keypad"
OPERATOR_APP = "app_pipecat_operator"


def _result(app, conv, **more) -> dict:
    return {"app_file": app.__file__, "messages": conv.messages(), "requests": conv.llm.requests, **more}


# -- RTL005, a direct write: set_messages(copy) after an awaited recall ------------------------

BOOKING = "I'd like to book a table for tonight."
PARTY = "For four people, please."
MEMORY = "prefers a table by the window"


class GatedMemoryStore:
    """A memory service whose recall waits for `release`: the scenario holds it while the
    user aggregator commits the next user turn."""

    def __init__(self) -> None:
        self.recall_started = asyncio.Event()
        self.release = asyncio.Event()
        self.queries: list[str] = []

    async def recall(self, query: str) -> str:
        self.queries.append(query)
        self.recall_started.set()
        await self.release.wait()
        return MEMORY


async def memory_writeback(module: str = MEMORY_APP) -> dict:
    """The memory processor copies the context of the first turn and awaits its recall; the
    caller goes on speaking, and the user aggregator commits that second turn to the context
    meanwhile; then the recall returns and the processor writes its copy back."""
    app = importlib.import_module(module)
    store = GatedMemoryStore()
    replies = [Text("Of course. For how many people?"), Text("A table for four, by the window.")]
    async with conversation(between=[app.MemoryProcessor(store)], replies=replies) as conv:
        await conv.user_says(BOOKING)
        await wait(store.recall_started, "the memory processor's recall")
        await conv.user_says(PARTY)  # committed while the recall is awaited
        committed = [m.get("content") for m in conv.context.get_messages()]
        store.release.set()
        await conv.replied(replies[-1].text)
        return _result(
            app,
            conv,
            said=[BOOKING, PARTY],
            memory=MEMORY,
            committed_during_recall=committed,
            recall_queries=store.queries,
        )


async def memory_prepend_writeback() -> dict:
    """The same interleaving, on the processor that puts the memory first (`insert(0, ...)`)."""
    return await memory_writeback(MEMORY_PREPEND_APP)


async def memory_live_writeback() -> dict:
    """The same interleaving, on the processor that edits the live list: not stale."""
    return await memory_writeback(MEMORY_LIVE_APP)


# -- RTL005, a frame write: an Update built from a copy, applied after what is queued ahead ----

INVOICE_QUESTION = "I have a question about my last invoice."
BILLING_HELLO = "Hi, this is billing. Which invoice is it about?"


async def handover_update() -> dict:
    """The LLM calls transfer_to_billing; Pipecat runs the handler as soon as it has queued the
    FunctionCallInProgressFrame that makes the assistant aggregator record the tool call, and
    the handler builds its Update from the context it sees then."""
    app = importlib.import_module(HANDOVER_APP)
    async with conversation(replies=[ToolCall("transfer_to_billing"), Text(BILLING_HELLO)]) as conv:
        app.register_tools(conv.llm)
        await conv.user_says(INVOICE_QUESTION)
        await conv.replied(BILLING_HELLO)
        return _result(app, conv, billing_prompt=app.BILLING_PROMPT["content"])


# -- RTL005, a frame write: `copy + [new]` as an Update while an Append is queued ---------------

CALLER = {"name": "Ada", "plan": "family"}
PROFILE = "The caller is Ada, on the family plan."  # what the apps make of CALLER
GREETING_REPLY = "Hello Ada! How can I help you today?"


async def greeting_update() -> dict:
    """The caller's profile is queued as an Append, then the greeting builds its Update from
    the context: the user aggregator is held (paused) until both are queued, as a busy
    aggregator holds what it has not reached yet."""
    app = importlib.import_module(GREETING_APP)
    async with conversation(replies=[Text(GREETING_REPLY)]) as conv:
        await conv.user.pause_processing_frames()
        await app.introduce_caller(conv.worker, CALLER)
        await app.greet(conv.worker, conv.context)
        queued_behind = [m.get("content") for m in conv.context.get_messages()]
        await conv.user.resume_processing_frames()
        await conv.replied(GREETING_REPLY)
        return _result(app, conv, profile=PROFILE, context_when_greeting=queued_behind)


# -- RTL008: an in-place edit of the live list, meant for a private copy -----------------------

HELLO = "Hi, I'm Ada."
SAVE_REQUEST = "Please save our conversation."
SAVED_REPLY = "Done, I've saved our conversation."


async def save_conversation() -> dict:
    """The caller asks to save the conversation; the tool handler drops the last message (the
    request) from what it believes is its own list, and writes the rest to a file."""
    app = importlib.import_module(SAVE_APP)
    replies = [Text("Hello Ada!"), ToolCall("save_conversation"), Text(SAVED_REPLY)]
    with tempfile.TemporaryDirectory(prefix="rtlint-pipecat-transcripts-") as folder:
        async with conversation(replies=replies) as conv:
            app.register_tools(conv.llm, Path(folder))
            await conv.user_says(HELLO)
            await conv.replied("Hello Ada!")
            await conv.user_says(SAVE_REQUEST)
            await conv.replied(SAVED_REPLY)
            saved = [json.loads(f.read_text()) for f in sorted(Path(folder).glob("*.json"))]
            return _result(app, conv, request=SAVE_REQUEST, saved=saved)


# -- RTL006: a detached Append overtaken by an LLMRunFrame -------------------------------------

INTRO_REPLY = "Hello Ada! How can I help you today?"


async def intro_detached_append() -> dict:
    """When the call starts, the processor hands the caller's profile (an Append) to
    asyncio.create_task and pushes an LLMRunFrame: the greeting is generated first."""
    app = importlib.import_module(INTRO_APP)
    async with conversation(before=[app.CallerIntroduction(CALLER)], replies=[Text(INTRO_REPLY)]) as conv:
        await conv.replied(INTRO_REPLY)
        return _result(app, conv, profile=PROFILE)


DIGITS = "4721"
ACCOUNT_MESSAGE = f"My account number is {DIGITS}."
ACCOUNT_REPLY = "Thank you, I have your account."


async def keypad_detached_append() -> dict:
    """The caller types 4721#: the processor hands the Append to asyncio.create_task and
    pushes an LLMRunFrame, mid-call. What was the reply generated from?"""
    app = importlib.import_module(KEYPAD_APP)
    async with conversation(before=[app.AccountNumberEntry()], replies=[Text(ACCOUNT_REPLY)]) as conv:
        keys = [KeypadEntry(d) for d in DIGITS] + [KeypadEntry.POUND]
        await conv.worker.queue_frames([InputDTMFFrame(button=k) for k in keys])
        await conv.replied(ACCOUNT_REPLY)
        return _result(app, conv, account=ACCOUNT_MESSAGE)


# -- RTL009: an Append pushed downstream from after the assistant aggregator ------------------

OPERATOR_REPLY = "Of course, I will put you through to an operator."


async def operator_misrouted_append() -> dict:
    """The app builds the pipeline [user aggregator, LLM, assistant aggregator, its processor];
    the caller presses 0, and the processor pushes an Append (run_llm=True) noting it. Pushed
    downstream, the Append reaches the worker's sink (recorded); pushed upstream, the
    assistant aggregator appends the note and runs the LLM, which replies."""
    app = importlib.import_module(OPERATOR_APP)
    async with conversation(build=app.build_worker, replies=[Text(OPERATOR_REPLY)]) as conv:
        dropped: list[list[dict]] = []
        conv.worker.add_reached_downstream_filter((LLMMessagesAppendFrame,))

        @conv.worker.event_handler("on_frame_reached_downstream")
        async def _dropped(worker, frame) -> None:
            dropped.append(frame.messages)
            conv._changed.set()

        await conv.worker.queue_frame(InputDTMFFrame(button=KeypadEntry.ZERO))
        await conv.until(lambda: bool(dropped) or OPERATOR_REPLY in conv.replies, "the Append to land or be dropped")
        return _result(app, conv, note=app.OPERATOR_NOTE, dropped=dropped, replies=list(conv.replies))


SCENARIOS = {
    "pc_memory_writeback": memory_writeback,
    "pc_memory_live_writeback": memory_live_writeback,
    "pc_memory_prepend_writeback": memory_prepend_writeback,
    "pc_handover_update": handover_update,
    "pc_greeting_update": greeting_update,
    "pc_save_conversation": save_conversation,
    "pc_intro_detached_append": intro_detached_append,
    "pc_keypad_detached_append": keypad_detached_append,
    "pc_operator_misrouted_append": operator_misrouted_append,
}
