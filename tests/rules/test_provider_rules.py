"""RTL010 and RTL011 beyond their fixtures: the vocabulary options, the pre-filter, and the
unsafe drop of `exclude_function_call=True` in every layout of the copy's arguments, made the
same on the text and by LibCST."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.settings import Settings
from rtlint.engine.config import Config
from rtlint.engine.linter import RuleSet
from rtlint.engine.registry import rule_by_code
from tests.support.cli import run_main

SESSION = """
from livekit.agents import llm


class Session(llm.RealtimeSession):
    def __init__(self, realtime_model):
        super().__init__(realtime_model)
        self._remote_chat_ctx = llm.remote_chat_context.RemoteChatContext()

    @property
    def chat_ctx(self):
        return self._remote_chat_ctx.to_chat_ctx()

    async def update_chat_ctx(self, chat_ctx):
        async with self._update_chat_ctx_lock:
            for ev in self._create_update_chat_ctx_events(chat_ctx):
                self._pending[ev["event_id"]] = ev
                self.send_event(ev)

    def _create_update_chat_ctx_events(self, chat_ctx):
        diff = llm.utils.compute_chat_ctx_diff(self._remote_chat_ctx.to_chat_ctx(), chat_ctx)
        return [{"type": "conversation.item.delete", "item_id": i} for i in diff.to_remove]

    def _handle_item_created(self, event):
        self._remote_chat_ctx.insert(event["previous_item_id"], event["item"])

    async def _reconnect(self, ws):
        COPY
        self._remote_chat_ctx = llm.remote_chat_context.RemoteChatContext()
        for ev in self._create_update_chat_ctx_events(chat_ctx):
            await ws.send_json(ev)
        for ev in self._pending.values():
            await ws.send_json(ev)
"""


def session(copy: str = "chat_ctx = self.chat_ctx.copy()") -> str:
    return SESSION.replace("COPY", textwrap.indent(textwrap.dedent(copy), " " * 8).lstrip())


def codes(text: str, config: Config | None = None) -> list[tuple[int, str]]:
    return sorted(
        (f.line, f.code) for f in check_source(text, "session.py", config=config, select=["RTL010", "RTL011"])
    )


def renamed(text: str, **names: str) -> str:
    for old, new in names.items():
        text = text.replace(old, new)
    return text


# -- the vocabulary is options ----------------------------------------------------------------------


def test_the_defaults_find_both() -> None:
    text = session("chat_ctx = self.chat_ctx.copy(exclude_function_call=True)")
    assert codes(text) == [(5, "RTL010"), (30, "RTL011")]


def test_other_names_need_the_options() -> None:
    """A session whose words are its own: nothing by default, both findings once configured."""
    text = renamed(
        session("chat_ctx = self.chat_ctx.copy(skip_tools=True)"),
        RealtimeSession="VoiceSession",
        update_chat_ctx="push_context",
        _remote_chat_ctx="_conv",
        RemoteChatContext="Conversation",
        compute_chat_ctx_diff="diff_contexts",
        to_remove="deleted",
    )
    assert codes(text) == []
    config = Config(
        root=Path.cwd(),
        options={
            "session-types": ("VoiceSession",),
            "push-methods": ("push_context",),
            "mirror-attributes": ("_conv",),
            "diff-removals": ("deleted",),
            "diff-functions": ("diff_contexts",),
            "replay-exclusions": ("skip_tools",),
        },
    )
    assert codes(text, config) == [(5, "RTL010"), (30, "RTL011")]


def test_a_mirror_type_names_the_mirror() -> None:
    text = renamed(session(), _remote_chat_ctx="_conv", compute_chat_ctx_diff="diff_contexts")
    assert codes(text) == [(5, "RTL010")]  # found as a RemoteChatContext
    untyped = text.replace("llm.remote_chat_context.RemoteChatContext()", "make_conversation()")
    assert codes(untyped) == []
    config = Config(root=Path.cwd(), options={"mirror-types": ("make_conversation",)})
    assert codes(untyped, config) == [(5, "RTL010")]


def test_the_echo_event_is_an_option() -> None:
    text = session().replace(
        '        self._remote_chat_ctx.insert(event["previous_item_id"], event["item"])\n',
        '        self._remote_chat_ctx.insert(event["previous_item_id"], event["item"])\n'
        '        self.emit("item_mirrored", event)\n',
    )
    assert codes(text) == [(5, "RTL010")]
    config = Config(root=Path.cwd(), options={"remote-echo-events": ("remote_item_added", "item_mirrored")})
    assert codes(text, config) == []


def _defined_push(tokens: list[tuple]) -> tuple:
    """The (hints, pattern) token that asks for the push's definition."""
    return next(t for group in tokens for t in group if isinstance(t, tuple) and b"def" in t[1].pattern)


def test_the_pre_filter_needs_every_word_and_follows_the_options(tmp_path: Path) -> None:
    settings = Settings({"push-methods": ("push_context",), "mirror-attributes": ("_conv",)})
    for code in ("RTL010", "RTL011"):
        tokens = rule_by_code(code)(settings).required_tokens()
        assert any("_conv" in group for group in tokens)
        hints, defined = _defined_push(tokens)
        assert hints == ("push_context",)
        assert defined.search(b"    async def push_context(self, ctx):") and not defined.search(b"s.push_context(ctx)")
    (tmp_path / "session.py").write_text(session("chat_ctx = self.chat_ctx.copy(exclude_function_call=True)"))
    run = run_main("--no-cache", "--select", "RTL010,RTL011", "--format", "json", str(tmp_path))
    assert run.exit_code == 1 and run.stdout.count('"RTL011"') == 1 and run.stdout.count('"RTL010"') == 1


def test_the_pre_filter_asks_for_a_mirror_insert_a_delete_or_the_flag() -> None:
    """RTL010 needs a mirror insert and a word for the delete; RTL011 a mirror insert or the
    replay's flag: a session with neither (Gemini's, Ultravox's) is not parsed."""
    insert = '        self._remote_chat_ctx.insert(event["previous_item_id"], event["item"])\n'
    quiet = session().replace(insert, "        pass\n")
    flagged = session("chat_ctx = self.chat_ctx.copy(exclude_function_call=True)").replace(insert, "        pass\n")
    no_delete = session().replace("conversation.item.delete", "conversation.item.drop")
    settings = Settings({})
    for code, text, parsed in [
        ("RTL010", session(), True),
        ("RTL010", quiet, False),
        ("RTL010", no_delete, False),
        ("RTL011", session(), True),
        ("RTL011", quiet, False),
        ("RTL011", flagged, True),
    ]:
        ruleset = RuleSet([rule_by_code(code)], settings)
        assert bool(ruleset.applicable(text.encode())) is parsed, (code, parsed)
    assert codes(flagged) == [(30, "RTL011")]  # what the flag alone lets through is analysed


# -- the fix: dropping the flag ---------------------------------------------------------------------

LAYOUTS = [
    # (the copy statement, what the fix leaves)
    ("chat_ctx = self.chat_ctx.copy(exclude_function_call=True)", "chat_ctx = self.chat_ctx.copy()"),
    (
        "chat_ctx = self.chat_ctx.copy(exclude_function_call=True, exclude_instructions=True)",
        "chat_ctx = self.chat_ctx.copy(exclude_instructions=True)",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(exclude_instructions=True, exclude_function_call=True)",
        "chat_ctx = self.chat_ctx.copy(exclude_instructions=True)",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(exclude_instructions=True, exclude_function_call=True,)",
        "chat_ctx = self.chat_ctx.copy(exclude_instructions=True,)",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(\n    exclude_function_call=True,\n)",
        "chat_ctx = self.chat_ctx.copy()",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(\n    exclude_function_call=True,\n    exclude_instructions=True,\n)",
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True,\n)",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True,\n    exclude_function_call=True,\n)",
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True,\n)",
    ),
    (
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True, exclude_function_call=True\n)",
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True\n)",
    ),
]


@pytest.mark.parametrize(("copy", "left"), LAYOUTS)
def test_the_flag_goes_in_every_layout(copy: str, left: str) -> None:
    text, expected = session(copy), session(left)
    # the layout rtlint's own editor leaves: this checkout's [tool.ruff] would otherwise have
    # ruff format the fixed line (a magic trailing comma left behind is exploded, as ruff does)
    fallback = Config(root=Path.cwd(), fix_formatter="none")
    assert (
        fix_source(text, "session.py", config=fallback, select=["RTL011"]).text == text
    )  # unsafe: not without the option
    on_text = fix_source(text, "session.py", config=fallback, select=["RTL011"], unsafe=True)
    assert on_text.failure is None and on_text.text == expected
    assert [f for f in check_source(expected, "session.py") if f.code == "RTL011"] == []


@pytest.mark.parametrize(
    "copy",
    [
        "chat_ctx = self.chat_ctx.copy(\n    exclude_function_call=True,  # tools\n    exclude_instructions=True,\n)",
        "chat_ctx = self.chat_ctx.copy(\n    exclude_instructions=True,  # keep\n    exclude_function_call=True,\n)",
        "chat_ctx = self.chat_ctx.copy(\n    # the tools go first\n    exclude_function_call=True,\n)",
    ],
)
def test_no_fix_where_a_comment_is_inside_the_copy(copy: str) -> None:
    """The text and LibCST would not keep such a comment alike: the flag is left to the author."""
    text = session(copy)
    (finding,) = [f for f in check_source(text, "session.py") if f.code == "RTL011"]
    assert finding.fixable is None and "a comment is inside the copy's arguments (line 28)" in finding.message
    assert fix_source(text, "session.py", unsafe=True).text == text


def test_flags_that_are_not_true_are_left_alone() -> None:
    for value in ("False", "drop_tools", "None"):
        assert codes(session(f"chat_ctx = self.chat_ctx.copy(exclude_function_call={value})")) == [(5, "RTL010")]


def test_a_mirror_read_through_the_property_the_push_diffs() -> None:
    """`compute_chat_ctx_diff(self.chat_ctx, ...)`: the mirror is what the property reads."""
    text = renamed(session(), _remote_chat_ctx="_conv").replace(
        "compute_chat_ctx_diff(self._conv.to_chat_ctx(), chat_ctx)", "compute_chat_ctx_diff(self.chat_ctx, chat_ctx)"
    )
    text = text.replace("llm.remote_chat_context.RemoteChatContext()", "make_conversation()")
    assert "self.chat_ctx, chat_ctx" in text and codes(text) == [(5, "RTL010")]
