"""rules/_frameworks/livekit/realtime/contexts: what a push sends, the items added to it, commits to a local context."""

from __future__ import annotations

import ast
import textwrap

from rtlint.core.context import FileContext
from rtlint.core.settings import Settings
from rtlint.rules._frameworks.livekit import OPTIONS, analyse
from rtlint.rules._frameworks.livekit.realtime.contexts import (
    commit_call,
    committed_before,
    pushed_contexts,
    pushed_items,
    pushed_source,
)


def load(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("t.py", text, ast.parse(text), Settings({o.name: o.default for o in OPTIONS}))


SOURCE = """
class A:
    async def f(self, out):
        chat_ctx = self._agent._chat_ctx.copy()
        ctx = chat_ctx.copy()
        msg = ctx.add_message(role="user", content="hi")
        ctx.items.extend(out)
        ctx.insert(ChatMessage(role="user"))
        await self._rt_session.update_chat_ctx(ctx)
        late = ctx.add_message(role="user", content="after")
        self._agent._chat_ctx._upsert_item(msg)
        self._agent._chat_ctx.insert([msg, late])
        self._agent._chat_ctx.items.append(msg)
        self._agent._chat_ctx.items.remove(msg)
"""


def test_contexts_items_and_commits() -> None:
    file = load(SOURCE)
    push = analyse(file).pushes[0]
    function = push.function.node
    assert pushed_contexts(file, function, push) == {"ctx", "chat_ctx"}
    items = pushed_items(file, function, push, {"ctx", "chat_ctx"})
    assert {name: (i.is_list, i.fresh) for name, i in items.items()} == {"msg": (False, True), "out": (True, False)}
    commits = [commit_call(s) for s in function.body[-4:]]
    assert [(ast.unparse(c[0]), c[1]) if c else None for c in commits] == [
        ("self._agent._chat_ctx", ["msg"]),
        ("self._agent._chat_ctx", ["msg", "late"]),
        ("self._agent._chat_ctx", ["msg"]),
        None,
    ]
    assert pushed_source(file, function, function.body[4], push) == "ctx"
    # followed through `.copy()` and a binding inside the holder, not past it
    assert pushed_source(file, function, function.body[1], push) == "chat_ctx"


def test_committed_before_needs_the_same_context_and_every_name() -> None:
    file = load(SOURCE)
    push = analyse(file).pushes[0]
    function = push.function.node
    last = function.body[-1]
    local = "self._agent._chat_ctx"
    assert committed_before(file, function, local, ["msg"], last)
    assert committed_before(file, function, local, ["msg", "late"], last)
    assert not committed_before(file, function, local, ["msg", "other"], last)
    assert not committed_before(file, function, "ctx", ["msg"], last)  # only the pushed context's own adds
    assert not committed_before(file, function, local, ["msg"], push.stmt)  # every commit follows the push
