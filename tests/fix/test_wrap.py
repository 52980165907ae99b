"""Breaking the lines a fix adds or moves (rtlint/fix/wrap.py) as black does; every expected
layout below is black 26's output for the same line (tests/fix/test_formatters.py runs the real
black and ruff on whole files)."""

from __future__ import annotations

import pytest

from rtlint.fix.wrap import fit, fit_changed

CASES = [
    # a condition: optional parentheses, one operand of `and` a line
    (
        "        ",
        100,
        True,
        "if speech_handle.interrupted and (any_skipped or message_outputs_abandoned) and self.llm.capabilities.mutable_chat_context:",
        """        if (
            speech_handle.interrupted
            and (any_skipped or message_outputs_abandoned)
            and self.llm.capabilities.mutable_chat_context
        ):""",
    ),
    # a comprehension whose line is too long: split at `for` and `if`
    (
        "            ",
        100,
        False,
        "self._agent._chat_ctx.items[:] = [\n    item for item in self._agent._chat_ctx.items if item.id not in message_outputs_abandoned_ids\n]",
        """            self._agent._chat_ctx.items[:] = [
                item
                for item in self._agent._chat_ctx.items
                if item.id not in message_outputs_abandoned_ids
            ]""",
    ),
    # a call: its arguments on a line of their own
    (
        "                    ",
        100,
        False,
        'logger.exception("failed to update the chat context before generating the reply")',
        """                    logger.exception(
                        "failed to update the chat context before generating the reply"
                    )""",
    ),
    # the right side of an assignment without brackets to split at: parenthesised
    (
        "            ",
        30,
        False,
        "self._rt_chat_ctx_lock = asyncio.Lock()",
        "            self._rt_chat_ctx_lock = (\n                asyncio.Lock()\n            )",
    ),
    # the arguments fit on one line: no trailing comma
    (
        "        ",
        70,
        False,
        "result = await self._session.update_chat_ctx(first_argument, second_argument, third_argument=3)",
        "        result = await self._session.update_chat_ctx(\n            first_argument, second_argument, third_argument=3\n        )",
    ),
    # a trailer that fits stays on the last line
    (
        "        ",
        60,
        False,
        "return some_function(argument_one, argument_two) + another_function(argument_three)",
        "        return some_function(\n            argument_one, argument_two\n        ) + another_function(argument_three)",
    ),
    # a magic trailing comma: one item a line
    ("    ", 88, False, "x = foo(a, b,)", "    x = foo(\n        a,\n        b,\n    )"),
    # the arguments fit on one line
    (
        "        ",
        100,
        True,
        "if self._policy.should_resync(interrupted=speech.interrupted, any_skipped=(any_skipped or outputs_abandoned)):",
        "        if self._policy.should_resync(\n            interrupted=speech.interrupted, any_skipped=(any_skipped or outputs_abandoned)\n        ):",
    ),
    # they do not: one a line, with a trailing comma
    (
        "        ",
        88,
        True,
        "if self._policy.should_resync(interrupted=speech.interrupted, any_skipped=(any_skipped or outputs_abandoned)):",
        "        if self._policy.should_resync(\n            interrupted=speech.interrupted,\n            any_skipped=(any_skipped or outputs_abandoned),\n        ):",
    ),
    # issue 22: a split inside a split's body finds its brackets in its own line (ruff and
    # black agree), with and without `await`
    (
        "            ",
        88,
        False,
        "self._rt_session.update_chat_ctx(self._agent._chat_ctx.copy(exclude_function_call=True, exclude_instructions=True))",
        """            self._rt_session.update_chat_ctx(
                self._agent._chat_ctx.copy(
                    exclude_function_call=True, exclude_instructions=True
                )
            )""",
    ),
    (
        "            ",
        88,
        False,
        "await self._rt_session.update_chat_ctx(self._agent._chat_ctx.copy(exclude_function_call=True, exclude_instructions=True))",
        """            await self._rt_session.update_chat_ctx(
                self._agent._chat_ctx.copy(
                    exclude_function_call=True, exclude_instructions=True
                )
            )""",
    ),
    # a trailing comment goes with the last line
    (
        "        ",
        60,
        False,
        "await self._rt_session.update_chat_ctx(self._agent._chat_ctx)  # error: RTL004",
        "        await self._rt_session.update_chat_ctx(\n            self._agent._chat_ctx\n        )  # error: RTL004",
    ),
]


@pytest.mark.parametrize("indent, limit, header, source, expected", CASES)
def test_breaks_like_black(indent: str, limit: int, header: bool, source: str, expected: str) -> None:
    assert fit(source, indent, "    ", limit, header) == expected


def test_a_line_that_fits_is_kept() -> None:
    assert fit("x = foo(a, b)", "    ", "    ", 88) == "    x = foo(a, b)"


@pytest.mark.parametrize(
    "source",
    [
        "call(first,  # a comment inside the brackets\n     second_argument_that_is_long)",
        'x = """a\nmulti-line string""" + some_function_with_a_long_name(argument)',
        "x = a_long_name + \\\n    another_long_name_after_a_backslash",
        "def function_with_a_long_name(argument_one, argument_two, argument_three): pass",
    ],
)
def test_what_is_not_handled_is_left_as_it_is(source: str) -> None:
    assert fit(source, "", "    ", 20) is None


ORIGINAL = """async def f(self):
    value = compute(first_argument, second_argument)
    await push(value)
"""

FIXED = """async def f(self):
    async with self._lock:
        value = compute(first_argument, second_argument)
        await push(value)
    untouched_but_long = compute(first_argument, second_argument)
"""


def test_only_statements_the_fix_added_or_moved_are_broken() -> None:
    # the last line is too long too, but it is not the fix's (it differs only in being
    # new here, so it is made part of the original below)
    original = ORIGINAL + "    untouched_but_long = compute(first_argument, second_argument)\n"
    text, shifts = fit_changed(original, FIXED, 50, "    ")
    assert (
        text
        == """async def f(self):
    async with self._lock:
        value = compute(
            first_argument, second_argument
        )
        await push(value)
    untouched_but_long = compute(first_argument, second_argument)
"""
    )
    assert shifts == [(4, 2)]  # the lines after the broken statement moved down by 2


def test_nothing_to_break() -> None:
    assert fit_changed(ORIGINAL, FIXED, 100, "    ") == (FIXED, [])


def test_a_statement_the_fix_changed_in_part_is_broken_whole() -> None:
    # the fix changed one line of a multi-line call and made it too long: the whole call is
    # broken again, as black and ruff format break it (its unchanged lines included)
    original = """async def f(self):
    await self.push(
        Update(messages=[clean(m) for m in context.messages]),
        direction,
    )
"""
    fixed = """async def f(self):
    await self.push(
        Transform(transform=lambda messages: [clean(m) for m in messages]),
        direction,
    )
"""
    text, shifts = fit_changed(original, fixed, 72, "    ")
    assert (
        text
        == """async def f(self):
    await self.push(
        Transform(
            transform=lambda messages: [clean(m) for m in messages]
        ),
        direction,
    )
"""
    )
    assert shifts == [(6, 2)]


def test_a_from_import_that_does_not_fit_is_parenthesized_one_name_a_line() -> None:
    source = "from pipecat.frames.frames import LLMMessagesAppendFrame, LLMMessagesTransformFrame as T"
    assert fit(source, "", "    ", 60) == (
        "from pipecat.frames.frames import (\n    LLMMessagesAppendFrame,\n    LLMMessagesTransformFrame as T,\n)"
    )
    assert fit("from a import b, c", "", "    ", 60) == "from a import b, c"
    assert fit("from a import (b, c)  # keep", "", "    ", 10) is not None  # bracketed: split as any bracket
    assert fit("from aaaa import bbbb, cccc  # a comment", "", "    ", 20) is None
