"""Pipecat's fixes fit the project's line length and leave nothing unused (issue 21's
follow-ups): a fix inside an already multi-line push is broken whole to the width, as the
fallback wrap (rtlint/fix/wrap.py) breaks it, and so is the frames import it grows."""

from __future__ import annotations

from rtlint.api import check_source, fix_source
from rtlint.engine import config as config_module
from tests.support.cli import FIXTURES

CONFIG = config_module.load(None, FIXTURES)  # line-length 88

DEEP = """from pipecat.frames.frames import LLMMessagesUpdateFrame
from pipecat.processors.frame_processor import FrameProcessor


class Redactor(FrameProcessor):
    async def process_frame(self, frame, direction, context):
        if frame:
            await self.push_frame(
                LLMMessagesUpdateFrame(messages=[clean(m) for m in context.messages]),
                direction,
            )
"""


def _fixed(text: str, unsafe: bool = False) -> str:
    result = fix_source(text, "example.py", config=CONFIG, unsafe=unsafe)
    assert result.failure is None
    assert result.text != text
    return result.text


def test_a_transform_fix_inside_a_multi_line_push_fits_the_line_length() -> None:
    fixed = _fixed(DEEP)
    assert max(len(line) for line in fixed.splitlines()) <= 88
    assert (
        """            await self.push_frame(
                LLMMessagesTransformFrame(
                    transform=lambda messages: [clean(m) for m in messages]
                ),
                direction,
            )
"""
        in fixed
    )


def test_a_grown_frames_import_is_parenthesized_to_the_line_length() -> None:
    text = """from pipecat.frames.frames import LLMMessagesUpdateFrame, TTSSpeakFrame
from pipecat.processors.frame_processor import FrameProcessor


class Redactor(FrameProcessor):
    async def process_frame(self, frame, direction, context):
        await self.push_frame(LLMMessagesUpdateFrame(messages=context.messages + [HI]))
        await self.push_frame(TTSSpeakFrame("ok"))

    async def reset(self):
        await self.push_frame(LLMMessagesUpdateFrame(messages=[SYSTEM]))
"""
    assert max(len(line) for line in text.splitlines()) <= 88
    fixed = _fixed(text)
    assert fixed.startswith(
        "from pipecat.frames.frames import (\n"
        "    LLMMessagesAppendFrame,\n"
        "    LLMMessagesUpdateFrame,\n"
        "    TTSSpeakFrame,\n"
        ")\n"
    )
    assert max(len(line) for line in fixed.splitlines()) <= 88


def test_the_fixed_pipecat_fixtures_leave_no_unused_import_or_binding() -> None:
    # ruff's F401 (an import) and F841 (a local binding): a Transform or Append fix takes the
    # copy's only read away, and awaiting a spawn in place takes `asyncio`'s
    import subprocess
    import sys

    fixed = sorted(str(p) for p in FIXTURES.glob("RTL00[5-8]/*pipecat*.fixed.py"))
    assert len(fixed) >= 10
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "F401,F841", *fixed],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_a_copy_bound_for_the_frame_alone_goes_with_the_bindings_computed_from_it() -> None:
    text = """from pipecat.frames.frames import LLMMessagesUpdateFrame


async def forget(worker, context):
    copy = list(context.get_messages())
    kept = [m for m in copy if m["role"] != "tool"]
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=kept))
"""
    assert _fixed(text) == (
        """from pipecat.frames.frames import LLMMessagesTransformFrame


async def forget(worker, context):
    await worker.queue_frame(
        LLMMessagesTransformFrame(
            transform=lambda messages: [m for m in messages if m["role"] != "tool"]
        )
    )
"""
    )


def test_a_copy_read_elsewhere_too_is_kept() -> None:
    text = """from pipecat.frames.frames import LLMMessagesUpdateFrame


async def greet(worker, context, log):
    messages = list(context.get_messages())
    log.info("%d messages", len(messages))
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=messages + [HELLO]))
"""
    fixed = _fixed(text)
    assert "    messages = list(context.get_messages())\n" in fixed
    assert "LLMMessagesAppendFrame(messages=[HELLO])" in fixed


def test_frames_fixed_together_leave_the_replaced_frame_unimported() -> None:
    # each fix sees the other Update frames use the name: they run one per pass, and the
    # last one drops LLMMessagesUpdateFrame from the import (ruff's F401)
    text = """from pipecat.frames.frames import LLMMessagesUpdateFrame


async def trim(worker, context):
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=context.messages[-6:]))
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=context.messages[-4:]))
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=context.messages + [HI]))
"""
    fixed = _fixed(text)
    assert fixed.startswith("from pipecat.frames.frames import LLMMessagesAppendFrame, LLMMessagesTransformFrame\n")
    assert "LLMMessagesUpdateFrame" not in fixed


PREPEND = """from pipecat.frames.frames import LLMContextFrame


async def remember(store, frame: LLMContextFrame):
    messages = list(frame.context.get_messages())
    memory = await store.recall()
    {edits}
    frame.context.set_messages(messages)
"""


def _direct(edits: str) -> str:
    return PREPEND.replace("{edits}", "\n    ".join(edits.splitlines()))


def _direct_read(edits: str) -> str:
    """`_direct`, with the copy read before the await too: the fix keeps the copy and its edits."""
    return _direct(edits).replace(
        "    memory = await store.recall()\n", "    memory = await store.recall(messages[-1])\n"
    )


def test_prepends_replay_in_their_real_order_with_the_appends() -> None:
    # insert(0, a) then insert(0, b) leaves [b, a, ...]: the live list gets the same
    fixed = _fixed(_direct("messages.insert(0, a)\nmessages.append(z)\nmessages.insert(0, b)"))
    assert "frame.context.transform_messages(lambda current: [b, a, *current, z])" in fixed
    assert "messages" not in fixed.replace("get_messages", "").replace("transform_messages", "")


def test_a_copy_read_nowhere_else_goes_with_its_edits() -> None:
    # kept, `messages` would be a copy edited and never read (RTL007) and its binding unused
    fixed = _fixed(_direct('messages.append({"role": "system", "content": memory})\nmessages.extend(notes)'))
    assert fixed == PREPEND.replace("    messages = list(frame.context.get_messages())\n", "").replace(
        "    {edits}\n    frame.context.set_messages(messages)\n",
        '    added_message = {"role": "system", "content": memory}\n'
        "    added_messages = list(notes)\n"
        "    frame.context.transform_messages(\n"
        "        lambda current: [*current, added_message, *added_messages]\n"
        "    )\n",
    )
    assert check_source(fixed, "example.py", config=CONFIG) == []


def test_a_global_copy_keeps_its_binding_and_edits() -> None:
    # the module reads a global elsewhere: the fix replays the additions and removes nothing
    text = _direct("messages.append(z)").replace(
        "    messages = list(frame.context.get_messages())\n",
        "    global messages\n    messages = list(frame.context.get_messages())\n",
    )
    fixed = _fixed(text)
    assert "    messages = list(frame.context.get_messages())\n" in fixed
    assert "    messages.append(z)\n    frame.context.transform_messages(lambda current: [*current, z])\n" in fixed


def test_a_copy_read_elsewhere_keeps_its_edits() -> None:
    fixed = _fixed(_direct_read("messages.append(z)"))
    assert "    messages = list(frame.context.get_messages())\n" in fixed
    assert "    messages.append(z)\n    frame.context.transform_messages(lambda current: [*current, z])\n" in fixed
    assert not [f for f in check_source(fixed, "example.py", config=CONFIG) if f.code == "RTL007"]


def _reason(edits: str) -> str:
    (finding,) = [f for f in check_source(_direct(edits), "example.py", config=CONFIG) if f.code == "RTL005"]
    assert not finding.fixable
    return finding.message


def test_a_starred_or_odd_edit_is_no_fix() -> None:
    # `added_message = *xs` parses but does not compile (the fixed module would not import):
    # no fix rather than a broken one
    assert "is not a statement `messages.insert(0, item)`" in _reason("messages.insert(0, *xs)")
    assert "is not a statement `messages.append(item)`" in _reason("messages.append(*xs)")
    assert "is not a statement `messages.insert(0, item)`" in _reason("kept = messages.insert(0, a)")


def test_an_extend_of_a_generator_is_bound_as_a_list_used_by_both() -> None:
    # a generator bound as it is would be used up by the copy's extend (and its text holds the
    # call's parentheses: replacing it wrote `messages.extendadded_message`, a no-op attribute)
    fixed = _fixed(_direct_read('messages.extend({"role": "system", "content": r} for r in memory)'))
    assert 'added_messages = list({"role": "system", "content": r} for r in memory)\n' in fixed
    assert "    messages.extend(added_messages)\n" in fixed
    assert "frame.context.transform_messages(lambda current: [*current, *added_messages])" in fixed
    # a name may hold a generator too; a list display is a list already
    assert "added_messages = list(memory)\n    messages.extend(added_messages)\n" in _fixed(
        _direct_read("messages.extend(memory)")
    )
    assert "added_messages = [a, b]\n    messages.extend(added_messages)\n" in _fixed(
        _direct_read("messages.extend([a, b])")
    )
