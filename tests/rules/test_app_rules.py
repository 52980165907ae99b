"""RTL005-RTL007: their examples, their vocabulary in [tool.rtlint], their pages and messages.
(The fixtures under fixtures/RTL005..7 run in tests/rules/test_fixtures.py.)"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.engine import registry
from tests.support.cli import run_main

APP_RULES = [r for r in registry.all_rules() if r.code in ("RTL005", "RTL006", "RTL007")]


def test_the_three_rules_are_registered() -> None:
    assert [(r.code, r.name) for r in APP_RULES] == [
        ("RTL005", "stale-context-writeback"),
        ("RTL006", "detached-push"),
        ("RTL007", "discarded-context-edit"),
    ]


@pytest.mark.parametrize("rule", APP_RULES, ids=lambda r: r.code)
def test_examples(rule) -> None:
    for valid in rule.VALID:
        assert [f for f in check_source(valid) if f.code == rule.code] == []
    assert rule.INVALID
    for invalid in rule.INVALID:
        lines = [f.line for f in check_source(invalid.code) if f.code == rule.code]
        assert tuple(lines) == invalid.lines
        if invalid.expected_fix is not None:
            assert fix_source(invalid.code).text == invalid.expected_fix
        unsafe = fix_source(invalid.code, unsafe=True)
        assert unsafe.failure is None


@pytest.mark.parametrize("rule", APP_RULES, ids=lambda r: r.code)
def test_rule_pages(rule) -> None:
    run = run_main("explain", rule.code)
    assert run.exit_code == 0
    for heading in (
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Fix",
        "## Fix safety",
        "## Configuration",
    ):
        assert heading in run.stdout, heading
    for option in ("snapshot-parameters", "task-spawners", "local-contexts", "agent-types"):
        assert f"`{option}`" in run.stdout


# -- configuration ---------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(project: Path, source: str, config: str = "") -> list[str]:
    (project / "pyproject.toml").write_text(f"[tool.rtlint]\n{config}\n")
    (project / "app.py").write_text(textwrap.dedent(source))
    run = run_main("--no-cache", "--format", "json", "app.py")
    assert run.exit_code in (0, 1), run.stderr
    import json

    return [f"{f['line']}:{f['code']}" for f in json.loads(run.stdout)]


HOOK = """
    class Bot:
        async def before_reply(self, agent, ctx):
            info = await agent.lookup()
            ctx.add_message(role="system", content=info)
            await agent.update_chat_ctx(ctx)
"""


def test_hook_table_names_a_snapshot_parameter(project: Path) -> None:
    assert lint(project, HOOK) == []
    assert lint(project, HOOK, 'snapshot-parameters = ["before_reply:ctx"]') == ["6:RTL005"]
    assert lint(project, HOOK, 'snapshot-parameters = ["*:ctx"]') == ["6:RTL005"]
    assert lint(project, HOOK, 'snapshot-parameters = ["other_hook:ctx"]') == []


RECEIVER = """
    async def remember(bot, fact):
        ctx = bot.chat_ctx.copy()
        await bot.session.say("One moment.")
        ctx.add_message(role="system", content=fact)
        await bot.update_chat_ctx(ctx)
"""


def test_agent_names_and_types(project: Path) -> None:
    assert lint(project, RECEIVER) == []  # `bot` is not known to hold an agent
    assert lint(project, RECEIVER, 'agent-names = ["bot"]') == ["6:RTL005"]
    typed = RECEIVER.replace("remember(bot, fact)", "remember(bot: VoiceBot, fact)")
    assert lint(project, typed) == []
    assert lint(project, typed, 'agent-types = ["VoiceBot"]') == ["6:RTL005"]
    subclass = """
        class Mine(VoiceBot):
            async def on_enter(self):
                ctx = self.chat_ctx.copy()
                await self.session.say("Hello.")
                await self.update_chat_ctx(ctx)
    """
    assert lint(project, subclass) == []
    assert lint(project, subclass, 'agent-types = ["VoiceBot"]') == ["6:RTL005"]


def test_local_and_copying_contexts(project: Path) -> None:
    source = """
        async def note(agent, text):
            agent.conversation.add_message(role="system", content=text)
    """
    assert lint(project, source) == []
    assert lint(project, source, 'copying-contexts = ["conversation"]\nlocal-contexts = ["conversation"]') == [
        "3:RTL007"
    ]


def test_task_spawners(project: Path) -> None:
    source = """
        async def remember(agent, ctx):
            spawn(agent.update_chat_ctx(ctx))
    """
    assert lint(project, source) == []
    assert lint(project, source, 'task-spawners = ["spawn"]') == ["3:RTL006"]


def test_push_methods_are_shared_with_the_realtime_rules(project: Path) -> None:
    source = """
        async def remember(agent, ctx):
            asyncio.create_task(agent.set_context(ctx))
    """
    assert lint(project, source) == []
    assert lint(project, source, 'push-methods = ["set_context"]') == ["3:RTL006"]


def test_push_receiver_types_make_a_typed_receiver_a_push(project: Path) -> None:
    """Issue 23, item 3: a receiver of a named type that is no agent, task or session
    pushes only with the push's signature, unless `push-receiver-types` names the type."""
    source = """
        import asyncio

        async def relay_note(relay: Relay, ctx, when):
            asyncio.create_task(relay.update_chat_ctx(ctx, when))
    """
    assert lint(project, source) == []
    assert lint(project, source, 'push-receiver-types = ["Relay"]') == ["5:RTL006"]
    unknown = source.replace("relay: Relay", "relay")  # the file says nothing: the signature decides
    assert lint(project, unknown) == []
    assert lint(project, unknown.replace("ctx, when", "ctx")) == ["5:RTL006"]
    # a vocabulary name decides without the signature, unless the annotation says otherwise
    assert lint(project, unknown.replace("relay", "agent")) == ["5:RTL006"]


def test_callback_methods_name_what_the_framework_calls_later(project: Path) -> None:
    """Issue 23, item 2: a snapshot stored on `self` and written back in a method the
    framework calls later (a hook, a tool) is stale there without a visible await."""
    source = """
        from livekit.agents import Agent

        class Bot(Agent):
            async def on_enter(self):
                self._kept = self.chat_ctx.copy()

            async def on_goodbye(self):
                await self.update_chat_ctx(self._kept)
    """
    assert lint(project, source) == []  # a public method: its callers are not known
    assert lint(project, source, 'callback-methods = ["on_goodbye"]') == ["9:RTL005"]
    decorated = source.replace("    async def on_goodbye", "    @my_tool\n            async def on_goodbye")
    assert lint(project, decorated, 'callback-methods = ["@my_tool"]') == ["10:RTL005"]


def test_a_push_on_a_realtime_session_is_left_to_the_realtime_rules(project: Path) -> None:
    """One defect, one finding: even when the application vocabulary is told that the
    session attribute holds an agent, its stale push is RTL004's (and RTL001's) alone."""
    source = (
        Path(__file__).resolve().parents[2] / "fixtures" / "RTL005" / "one_defect_rtl004_realtime_push.py"
    ).read_text()
    assert lint(project, source) == ["25:RTL004"]
    assert lint(project, source, 'agent-names = ["_rt_session", "_agent"]') == ["25:RTL004"]
    stale = source.replace(
        "self._rt_session.update_chat_ctx(chat_ctx)  # error: RTL004", "self._bot.update_chat_ctx(chat_ctx)"
    )
    assert lint(project, stale, 'agent-names = ["_bot", "_agent"]') == ["25:RTL005"]


def test_a_bad_option_value_is_a_configuration_error(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.rtlint]\nsnapshot-parameters = "turn_ctx"\n')
    (project / "app.py").write_text("")
    run = run_main("--no-cache", "app.py")
    assert run.exit_code == 2 and "snapshot-parameters" in run.stderr


# -- messages --------------------------------------------------------------------------------------


def test_messages_name_the_snapshot_the_await_and_why_there_is_no_fix() -> None:
    source = textwrap.dedent(
        """
        from livekit.agents import Agent

        class A(Agent):
            async def on_enter(self):
                ctx = self.session.history.copy()
                recap = await self.notes()
                ctx.add_message(role="system", content=recap)
                await self.update_chat_ctx(ctx)
        """
    )
    (finding,) = check_source(source)
    assert finding.code == "RTL005" and finding.line == 9
    assert "`self.session.history` copied at line 6" in finding.message
    assert "the await at line 7" in finding.message
    assert "not fixable: the snapshot is of `self.session.history`, not of self's context" in finding.message
    assert finding.fixable is None


def test_a_loop_pass_is_named_when_the_write_back_is_its_own_await() -> None:
    source = textwrap.dedent(
        """
        from livekit.agents import Agent

        class A(Agent):
            async def on_enter(self):
                ctx = self.chat_ctx.copy()
                for _ in range(3):
                    await self.update_chat_ctx(ctx)
        """
    )
    (finding,) = check_source(source)
    assert "this write-back's own await (line 8) in an earlier pass of the loop" in finding.message


def test_rule_modules_import_no_other_rule_and_no_private_name() -> None:
    import ast

    import rules.rtl005_stale_context_writeback as a
    import rules.rtl006_detached_push as b
    import rules.rtl007_discarded_context_edit as c

    for module in (a, b, c):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("rtl0"), (module.__name__, node.module)
                if node.module is not None:  # `from . import _agents`: the shared helper modules
                    assert not any(alias.name.startswith("_") for alias in node.names), (module.__name__, node.module)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "fx":
                assert not node.attr.startswith("_"), (module.__name__, node.attr)


def test_same_code_text_sees_through_brackets_over_several_lines() -> None:
    """A push that a formatter wrapped in brackets over several lines (`await (\\n x(...)\\n)`)
    is still found by its text on the LibCST side of a fix."""
    from rtlint.rules._appfix import same_code_text

    wrapped = "(\n    self._voice.update_chat_ctx(\n        ctx\n    )\n)"
    assert same_code_text(wrapped) == same_code_text("self._voice.update_chat_ctx(\n    ctx\n)")
    assert same_code_text("(a) + (b)") == "(a) + (b)"  # two bracketed operands are not one


def test_a_spawned_push_named_both_agent_and_session_is_one_finding(project: Path) -> None:
    source = """
        import asyncio

        class Bridge:
            async def replay(self):
                ctx = self._agent.chat_ctx.copy()
                await self._agent.session.say("One moment.")
                asyncio.create_task(self._rt_session.update_chat_ctx(ctx))
    """
    found = lint(project, source, 'agent-names = ["_agent", "_rt_session"]')
    assert found.count("8:RTL005") == 1 and "8:RTL006" in found


def test_rtl007_builds_no_value_flow_for_a_pipecat_function_that_reads_no_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a read of a context's messages in a function (or one it is nested in), none of
    its values is a live list or a copy: RTL007 looks at its frames only, and builds no flow
    (most of Pipecat's functions edit lists; the flow cost more than the parse)."""
    import importlib

    registry.all_rules()  # the rules run as rtlint.rules (the checkout's rules/ folder)
    pipecat = importlib.import_module("rtlint.rules._frameworks.pipecat")

    def no_flow(self, function):
        raise AssertionError(f"a value flow for {function.qualname}")

    monkeypatch.setattr(pipecat.Module, "flow", no_flow)
    source = textwrap.dedent(
        """\
        from pipecat.frames.frames import LLMMessagesAppendFrame

        def collect(items, message):
            items.append(message)
            LLMMessagesAppendFrame(messages=[message])
        """
    )
    found = [(f.code, f.line) for f in check_source(source, "bot.py", select=["RTL007"])]
    assert found == [("RTL007", 5)]
