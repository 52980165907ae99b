"""RTL001's lock region: the fix is offered only for a region that holds the lock on every
path from the snapshot to its pushes (the fixtures cover the regions found; this, the
fallback when no block would do)."""

from __future__ import annotations

import textwrap

import pytest

from rtlint.api import check_source, fix_source
from rtlint.rules import rtl001_stale_mirror_snapshot as rtl001  # the engine loads rules from here

SOURCE = textwrap.dedent(
    """
    import asyncio

    class A:
        def __init__(self):
            self._rt_chat_ctx_lock = asyncio.Lock()

        async def f(self, notes):
            for note in notes:
                ctx = self._rt_session.chat_ctx.copy()
                await self._rt_session.update_chat_ctx(ctx)
    """
)


def test_the_loop_body_is_held_throughout() -> None:
    (finding,) = check_source(SOURCE, "a.py", select=["RTL001"])
    assert finding.fixable == "safe"
    assert (
        "async with self._rt_chat_ctx_lock:\n                ctx" in fix_source(SOURCE, "a.py", select=["RTL001"]).text
    )


def test_no_block_held_throughout_means_no_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    # the widening stops at the function: a region that would still be left between the
    # snapshot and the push is not offered as a fix (the re-lint would still report it)
    monkeypatch.setattr(rtl001, "_held_throughout", lambda *args: False)
    (finding,) = check_source(SOURCE, "a.py", select=["RTL001"])
    assert finding.fixable is None
    assert "not fixable: no block of statements holds the snapshot and the push" in finding.message
    result = fix_source(SOURCE, "a.py", select=["RTL001"], unsafe=True)
    assert result.text == SOURCE and result.failure is None
