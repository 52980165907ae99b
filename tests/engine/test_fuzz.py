"""Fuzzing (issue 8): generated programs never crash rtlint, and every --fix output parses,
is idempotent and leaves no finding it claims to fix (tests/support/fuzzing.py states the
properties; tests/support/programs.py builds the programs).

CI runs a bounded number of examples (RTLINT_FUZZ_EXAMPLES scales them; the profile below
keeps the suite fast); `python -m bench.fuzz` runs 10,000 and prints what it saw.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.support.fuzzing import check_bytes, check_program
from tests.support.programs import hypothesmith_programs, realtime_module, spliced_module

SCALE = float(os.environ.get("RTLINT_FUZZ_EXAMPLES_SCALE", "1"))

settings.register_profile(
    "rtlint-ci",
    deadline=None,  # a LibCST parse of a big generated program can take a while
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=False,
    print_blob=True,  # a failure prints the @reproduce_failure line
)
PROFILE = settings.get_profile("rtlint-ci")


def examples(n: int) -> settings:
    return settings(PROFILE, max_examples=max(1, int(n * SCALE)))


# the counts below are what issue 8's closing note calls "fuzz examples run" per CI run
REALTIME, SPLICED, GRAMMAR, BYTES, TEXT = 60, 15, 30, 150, 150


# programs the fuzzing found, replayed on every run: a comprehension in the flow crashed
# RTL001 (fixtures/RTL001/loop_comprehension_after_try.py); a safe RTL001 fix was refused on
# re-lint (fixtures/RTL001/loop_with_exit_not_a_break.py)
FOUND = [
    "import asyncio\nimport logging\n\nfrom livekit.agents import llm\n\nlogger = logging.getLogger(__name__)\n\n\nclass A:\n    async def a(self, text, stream):\n        for a in range(3):\n            try:\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            except Exception:\n                return\n            else:\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            finally:\n                await self._rt_session.update_chat_ctx(chat_ctx)\n                chat_ctx = self._rt_session.chat_ctx.copy()\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            chat_ctx = self._rt_session.chat_ctx.copy()\n            message_outputs: list[Output] = []\n            async for a in stream:\n                if a:\n                    break\n                message_outputs.append(a)\n            forwarded = any(o.forwarded for o in message_outputs)\n            if forwarded:\n                await self._rt_session.update_chat_ctx(self._agent._chat_ctx.copy())\n\n",
    'import asyncio\nimport logging\n\nfrom livekit.agents import llm\n\nlogger = logging.getLogger(__name__)\n\n\nclass P0skz96b:\n    def __init__(self, session, agent):\n        self._rt_session = session\n        self._agent = agent\n        self._rt_chat_ctx_lock = asyncio.Lock()\n        self._other_lock = asyncio.Lock()\n\n    async def e(self, text, stream):\n        await self.hh()\n        self._agent._chat_ctx.insert(msg)\n\n    async def ij5iz6b(self, text, stream):\n        chat_ctx = self._rt_session.chat_ctx.copy()\n        msg = chat_ctx.add_message(role="user", content=text)\n        await self._rt_session.update_chat_ctx(chat_ctx)\n        await asyncio.sleep(0)\n\n    async def k87p(self, text, stream):\n        for hh in range(3):\n            if hh:\n                break\n            chat_ctx = self._rt_session.chat_ctx.copy()\n            try:\n                self._agent._chat_ctx.items.append(msg)\n                chat_ctx = self._rt_session.chat_ctx.copy()\n                self._agent._chat_ctx._upsert_item(msg)\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            except Exception:\n                return\n            else:\n                logger.debug("items: %d", len(chat_ctx.items))\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            finally:\n                await asyncio.wait_for(self._rt_session.update_chat_ctx(chat_ctx), timeout=5)\n                chat_ctx = self._rt_session.chat_ctx.copy()\n                logger.debug("items: %d", len(chat_ctx.items))\n                chat_ctx = self._rt_session.chat_ctx.copy()\n            async with self._rt_chat_ctx_lock:\n                await asyncio.sleep(0)\n                chat_ctx = self._rt_session.chat_ctx.copy(exclude_instructions=True)\n                self._agent._chat_ctx.insert(msg)\n                try:\n                    hh = hh + 1 if hh else 0\n                except (ValueError, KeyError):\n                    pass\n                else:\n                    await self._rt_session.update_chat_ctx(s0_foz)\n                    self._agent._chat_ctx._upsert_item(msg)\n                    chat_ctx = self._rt_session.chat_ctx.copy(exclude_instructions=True)\n                    await asyncio.wait_for(self._rt_session.update_chat_ctx(chat_ctx), timeout=5)\n                finally:\n                    self._conversation_item_added(msg)\n                    await asyncio.sleep(0)\n            message_outputs: list[Output] = []\n            async for j07mvohv in stream:\n                if hh:\n                    return\n                message_outputs.append(j07mvohv)\n            forwarded = False\n            for o in message_outputs:\n                if o.forwarded:\n                    forwarded = True\n            if forwarded:\n                await self._rt_session.update_chat_ctx(self._agent._chat_ctx.copy())\n        self._agent._chat_ctx._upsert_item(msg)\n        if hh:\n            chat_ctx = self._rt_session.chat_ctx.copy(exclude_instructions=True)\n            async with self._rt_chat_ctx_lock:\n                chat_ctx.items.append(msg)\n                async def _j():\n                    msg = chat_ctx.add_message(role="user", content=text)\n                    hh = hh + 1 if hh else 0\n                    await self._rt_session.update_chat_ctx(s0_foz)\n                await _j()\n            for hh in range(3):\n                if hh:\n                    return\n                chat_ctx.items.extend([msg])\n                try:\n                    await asyncio.sleep(0)\n                    await asyncio.wait_for(self._rt_session.update_chat_ctx(chat_ctx), timeout=5)\n                    await self._rt_session.update_chat_ctx(chat_ctx=self._agent._chat_ctx.copy())\n                except (ValueError, KeyError):\n                    continue\n                else:\n                    msg = chat_ctx.add_message(role="user", content=text)\n                    await self._rt_session.update_chat_ctx(chat_ctx=self._agent._chat_ctx.copy())\n                finally:\n                    pass\n                    hh = hh + 1 if hh else 0\n                    chat_ctx = llm.ChatContext(self._rt_session.chat_ctx.items[:])\n                await asyncio.wait_for(self._rt_session.update_chat_ctx(chat_ctx), timeout=5)\n        for hh in range(3):\n            message_outputs = []\n            async for glzf5 in stream:\n                if hh:\n                    break\n                message_outputs.append(glzf5)\n            forwarded = any(o.done for o in message_outputs)\n            if forwarded:\n                await self._rt_session.update_chat_ctx(self._agent._chat_ctx.copy())\n            await self._rt_session.update_chat_ctx(chat_ctx)\n            s0_foz = chat_ctx.copy()\n            hh = hh + 1 if hh else 0\n        self._agent._chat_ctx._upsert_item(msg)\n\n',
]


@examples(REALTIME)
@given(realtime_module())
@example(FOUND[0])
@example(FOUND[1])
def test_realtime_programs(text: str) -> None:
    check_program(text)


@examples(SPLICED)
@given(spliced_module())
def test_realtime_shapes_spliced_into_generated_programs(text: str) -> None:
    check_program(text)


@examples(GRAMMAR)
@given(hypothesmith_programs())
def test_generated_programs(text: str) -> None:
    check_program(text)


@examples(BYTES)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(raw: bytes) -> None:
    check_bytes(raw)


@examples(TEXT)
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    check_bytes(text.encode("utf-8"))
