"""The fast fix path (issue 13): a LibCST skeleton of only the functions the fixes need, the
changed statements spliced into the original text, and the line diff behind JSON edits."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlint.api import check_source, fix_source
from rtlint.fix import cstedit
from rtlint.fix.edits import apply_edits, diff_edits
from rtlint.fix.skeleton import NeedsDefinitions, build, graft, needed_for

FILLER = "".join(f"        value_{i} = {i}\n" for i in range(12))
SOURCE = f"""import asyncio


class Activity:
    def __init__(self, session):
        self._rt_session = session
{FILLER}
    async def untouched(self):
{FILLER}        return value_1

    async def say(self, text):
        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role="user", content=text)
        await self._rt_session.update_chat_ctx(ctx)
{FILLER}
    async def other(self):
{FILLER}        return value_2
"""


def test_the_skeleton_stubs_the_functions_no_fix_needs() -> None:
    tree = ast.parse(SOURCE)
    keep = needed_for(tree, [f.line for f in check_source(SOURCE, "a.py")])
    assert keep == {"Activity.say", "Activity.__init__"}
    skeleton = build(SOURCE, tree, keep, cstedit.parse)
    assert sorted(skeleton.stubs.values()) == ["Activity.other", "Activity.untouched"]
    assert skeleton.token in skeleton.module.code and "value_5 = 5" in skeleton.module.code  # __init__ kept
    assert skeleton.module.code.count("value_5 = 5") == 2  # __init__ and say; not the stubs


def test_a_fix_reaching_into_a_stub_asks_for_it() -> None:
    tree = ast.parse(SOURCE)
    skeleton = build(SOURCE, tree, {"Activity.say"}, cstedit.parse)
    editor = cstedit.Editor(skeleton.module, skeleton=skeleton)
    init_path = (("body", 1), ("body", 0), ("body", 0))  # Activity.__init__, first statement
    with pytest.raises(NeedsDefinitions) as raised:
        editor.locate(init_path)
    assert raised.value.names == {"Activity.__init__"}
    # grafting parses that function alone into the same skeleton
    assert graft(skeleton, SOURCE, tree, {"Activity.__init__"}, cstedit.parse)
    located = cstedit.Editor(skeleton.module, skeleton=skeleton).locate(init_path)
    assert skeleton.module.code_for_node(located.node).strip() == "self._rt_session = session"
    assert "Activity.__init__" not in skeleton.stubs.values()


def test_a_splice_never_writes_a_stub() -> None:
    skeleton = build(SOURCE, ast.parse(SOURCE), {"Activity.say"}, cstedit.parse)
    with pytest.raises(NeedsDefinitions):
        skeleton.check_code(skeleton.module.code)


def test_fix_with_a_missed_function_is_the_same_as_with_all() -> None:
    """The first skeleton lacks __init__ (where the lock goes) when the prediction is told
    nothing: the fix asks for it, and the result is that of a full parse."""
    from rtlint.fix import skeleton as skeleton_module

    expected = fix_source(SOURCE, "a.py")
    assert "self._rt_chat_ctx_lock = asyncio.Lock()" in expected.text
    original = skeleton_module.needed_for
    try:
        skeleton_module.needed_for = lambda tree, lines: set()  # predict nothing
        again = fix_source(SOURCE, "a.py")
    finally:
        skeleton_module.needed_for = original
    assert again.text == expected.text and again.failure is None


def test_when_splicing_fails_the_whole_module_is_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    from rtlint.fix import splice

    expected = fix_source(SOURCE, "a.py").text

    def refuse(*args, **kwargs):
        raise splice.CannotSplice("test")

    monkeypatch.setattr(splice, "spliced", refuse)
    result = fix_source(SOURCE, "a.py")
    assert result.failure is None and result.text == expected


lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "    d\n", "e = 1\n", "\n", "f()\n"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_diff_edits_turn_one_text_into_the_other(old: list[str], new: list[str]) -> None:
    before, after = "".join(old), "".join(new)
    assert apply_edits(before, diff_edits(before, after)) == after


def test_diff_edits_are_local_in_a_big_file() -> None:
    before = "".join(f"line_{i} = {i}\n" for i in range(5000))
    after = before.replace("line_10 = 10\n", "line_10 = 10\nadded = 1\n").replace(
        "line_4000 = 4000\n", "    line_4000 = 4000\n"
    )
    edits = diff_edits(before, after)
    assert [(e.line, e.end_line, e.content) for e in edits] == [
        (12, 12, "added = 1\n"),
        (4001, 4002, "    line_4000 = 4000\n"),
    ]
