"""Pipecat's fixes fit the project's line length and leave nothing unused (issue 21's
follow-ups): a fix inside an already multi-line push is broken whole to the width, as the
fallback wrap (rtlint/fix/wrap.py) breaks it, and so is the frames import it grows."""

from __future__ import annotations

from rtlint.api import fix_source
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
