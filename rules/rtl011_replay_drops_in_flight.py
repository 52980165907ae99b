"""RTL011 replay-drops-in-flight (livekit-plugins-openai 1.7.0/1.8.0, livekit-agents 1.8.4;
fixed in livekit-agents 1.8.5)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from rtlint.core.context import FileContext
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule
from rtlint.core.settings import Option

from . import _appfix as fx
from ._analysis.cfg import graph
from ._analysis.index import Function, Index, final_name, index
from ._analysis.locks import lock_model
from ._analysis.values import FlowRules, ValueFlow
from ._edits import drop_keyword
from ._frameworks.livekit.realtime.provider import (
    MIRROR_INSERT,
    ProviderSession,
    Span,
    mirror_assignments,
    mirror_inserts,
    mutated_attributes,
    provider_sessions,
    required_tokens,
    self_attribute,
)
from ._frameworks.livekit.vocabulary import CONTEXT_FLOW, PROVIDER_OPTIONS, pushed_argument, vocabulary

OPTIONS = (
    *PROVIDER_OPTIONS,
    Option(
        "replay-exclusions",
        ["exclude_function_call"],
        "keyword flags of a context copy that leave the tool calls and outputs out of a replay",
    ),
)

MIRROR = "mirror"  # the key of a value read from the mirror: the acknowledged items
_WRAPPERS = {"enumerate", "list", "tuple", "sorted", "reversed", "iter", "zip", "chain"}
_QUEUES = {"append", "extend", "insert"}
_NOT_MECHANICAL = (
    "re-sending the item events the lost connection never confirmed (livekit-agents 1.8.5), or "
    "replaying under the push lock, is a change of design"
)
_UNSAFE_FLAG = (
    "the replay then re-creates the acknowledged tool calls and outputs: the mirror must hold each "
    "call's final arguments, and the provider must accept them in a conversation.item.create"
)


class ReplayDropsInFlight(Rule):
    """
    ## What it does
    Finds, in a provider plugin's realtime session (a class deriving from
    `RealtimeSession` that implements `update_chat_ctx`), a reconnect or restart that resets
    or rebuilds the mirror (`self._remote_chat_ctx = RemoteChatContext()`: an attribute the
    options name, or one of a mirror type) and replays a context on the new connection,
    through the push or the builder of its item events
    (`self._create_update_chat_ctx_events(chat_ctx)`), where

    - the replayed context is built from the mirror (only the acknowledged items), the
      replay is not under the push's lock, and the reconnect does not send again the item
      events that pushes left unconfirmed; or
    - the replayed context is a copy made with `exclude_function_call=True`.

    Reported at the replay; a replay with both defects gets a finding for each.

    ## Why is this bad?
    A push sends its item events and waits, holding its lock, until the server confirms
    them; the mirror takes an item in only then. When the connection drops meanwhile, the
    events are lost with it, and a replay of the mirror does not hold them: the waiting
    push times out, and its items (a tool output, the user's text turn) never reach the new
    conversation although the agent's context has them. `exclude_function_call=True` makes
    it worse: every tool call and output the server had is left out at each reconnect, and
    the model answers without them (livekit-plugins-openai 1.7.0 and 1.8.0, livekit-agents
    1.8.4's OpenAI engine, livekit-plugins-stepfun 1.8.1.post0).

    ## Example
    ```python
    async def _reconnect(self):
        chat_ctx = self.chat_ctx.copy(exclude_function_call=True, exclude_instructions=True)
        self._remote_chat_ctx = llm.remote_chat_context.RemoteChatContext()
        events.extend(self._create_update_chat_ctx_events(chat_ctx))
    ```

    Use instead (livekit-agents 1.8.5):
    ```python
    async def _reconnect(self):
        chat_ctx = self.chat_ctx.copy(exclude_instructions=True)
        self._remote_chat_ctx = llm.remote_chat_context.RemoteChatContext()
        events.extend(self._create_update_chat_ctx_events(chat_ctx))
        # the replay holds only the confirmed items: what pushes sent and the lost
        # connection never confirmed goes again after it, and its confirmation settles them
        events.extend(
            ev
            for event_id, ev in self._sent_chat_ctx_events.items()
            if (fut := self._chat_ctx_event_futures.get(event_id)) and not fut.done()
        )
    ```
    The unconfirmed events are those the push keeps (its futures, a queue of what it sent):
    a reconnect that reads one of them into what it sends is taken to re-send them.
    Replaying under the push's lock (`async with self._update_chat_ctx_lock:`) also waits
    for no push, but a push waiting for the lost connection's confirmations then times out
    first.

    ## Fix
    Drops `exclude_function_call=True` from the copy that the replay sends. Nothing is
    fixed for the unconfirmed events: re-sending them, or serializing the replay with the
    push, is a change of design (the message says so).

    ## Fix safety
    Always unsafe (only with `--unsafe-fixes`): the replay then re-creates the tool calls
    and outputs the server had, so the mirror must hold each call's final arguments
    (livekit-agents 1.8.5 also updates them on `conversation.item.done`), and the provider
    must accept those items in a `conversation.item.create`.

    Not a finding: a reconnect that keeps the server's conversation (a resumption handle,
    no reset); `exclude_function_call=True` on a copy that is not replayed (a transcript, a
    log); the push itself, which diffs against its mirror; a mirror the push writes itself
    (it already holds what is in flight).
    """

    code = "RTL011"
    name = "replay-drops-in-flight"
    summary = "a reconnect replays the mirror without the pushes in flight, or without its tool calls"
    fix_availability = "sometimes"
    options = OPTIONS

    VALID = [
        """
class Session(llm.RealtimeSession):
    @property
    def chat_ctx(self):
        return self._remote_chat_ctx.to_chat_ctx()

    async def update_chat_ctx(self, chat_ctx):
        async with self._update_chat_ctx_lock:
            for ev in self._create_update_chat_ctx_events(chat_ctx):
                self._pending[ev.event_id] = ev
                self.send_event(ev)

    def _create_update_chat_ctx_events(self, chat_ctx):
        return compute_chat_ctx_diff(self._remote_chat_ctx.to_chat_ctx(), chat_ctx)

    async def _reconnect(self, events):
        chat_ctx = self.chat_ctx.copy(exclude_instructions=True)
        self._remote_chat_ctx = RemoteChatContext()
        events.extend(self._create_update_chat_ctx_events(chat_ctx))
        events.extend(self._pending.values())
""",
    ]
    INVALID = [
        Invalid(
            """
class Session(llm.RealtimeSession):
    @property
    def chat_ctx(self):
        return self._remote_chat_ctx.to_chat_ctx()

    async def update_chat_ctx(self, chat_ctx):
        async with self._update_chat_ctx_lock:
            for ev in self._create_update_chat_ctx_events(chat_ctx):
                self._pending[ev.event_id] = ev
                self.send_event(ev)

    def _create_update_chat_ctx_events(self, chat_ctx):
        return compute_chat_ctx_diff(self._remote_chat_ctx.to_chat_ctx(), chat_ctx)

    async def _reconnect(self, events):
        chat_ctx = self.chat_ctx.copy(exclude_function_call=True, exclude_instructions=True)
        self._remote_chat_ctx = RemoteChatContext()
        events.extend(self._create_update_chat_ctx_events(chat_ctx))
""",
            lines=(19, 19),
        )
    ]

    def required_tokens(self) -> list[tuple[object, ...]]:
        # the mirror takes what the server confirms through an insert (the in-flight defect),
        # or the replay's copy names a flag
        flags = tuple(self.settings.get("replay-exclusions", ("exclude_function_call",)))
        return [*required_tokens(self.settings, declared=True), (MIRROR_INSERT, *flags)]

    def check(self, file: FileContext) -> Iterator[Finding]:
        idx = index(file)
        flags = tuple(self.settings.get("replay-exclusions", ("exclude_function_call",)))
        sessions = provider_sessions(file)
        owners = {id(s.info.node) for s in sessions}
        for session in sessions:
            context = _Session.of(file, idx, session)
            for function in session.functions(idx):
                if id(function.node) in context.pushing or function.method is None:
                    continue
                if function.cls is not session.info and function.cls is not None and id(function.cls.node) in owners:
                    continue  # a base of the file that is a session itself reports its own reconnect
                if function.method.node.name == "__init__":
                    continue
                for replay in _replays(file, idx, context, function, flags):
                    yield from self._findings(file, replay)

    def _findings(self, file: FileContext, replay: _Replay) -> Iterator[Finding]:
        where = f"the mirror is reset at line {replay.reset.lineno}"
        if replay.copies:
            lines = ", ".join(str(c.lineno) for c, _ in replay.copies)
            flags = ", ".join(sorted({f"{flag}=True" for _, flag in replay.copies}))
            message = (
                f"{replay.call.func.attr} replays a context copied with {flags} (line {lines}) after "
                f"{where}: every tool call and output the server had is dropped at each reconnect"
            )
            beside = [c.lineno for c, _ in replay.copies if _comment_inside(file, c)]
            if beside:
                plan = fx.no_fix(f"a comment is inside the copy's arguments (line {beside[0]}); drop the flag by hand")
            else:
                plan = fx.Plan("unsafe", _UNSAFE_FLAG, [_drop_flag(file, c, flag) for c, flag in replay.copies])
            yield self.report(file, replay.call, message, plan=plan, symbol=replay.function.qualname)
        if replay.in_flight:
            message = (
                f"{replay.call.func.attr} replays only the acknowledged items after {where}, outside "
                f"{replay.lock}, and the reconnect does not send again the item events of pushes in flight: "
                f"their items never reach the new conversation"
            )
            plan = fx.no_fix(_NOT_MECHANICAL)
            yield self.report(file, replay.call, message, plan=plan, symbol=replay.function.qualname)


@dataclass
class _Session:
    session: ProviderSession
    pushing: set[int]  # the push and its helpers (their nodes)
    replayers: set[str]  # the push and the helpers that diff against the mirror
    locks: set[str]  # what the push holds
    in_flight: set[str]  # what the push keeps of the events it sent
    acknowledged: bool  # the mirror takes an item in only when the server confirms it

    @classmethod
    def of(cls, file: FileContext, idx: Index, session: ProviderSession) -> _Session:
        pushing = session.pushing(idx)
        diffs = vocabulary(file).diff_functions
        replayers = set(session.push)
        for name in session.helpers:
            nodes = [n for f in session.method_functions(idx, [name]) for n in idx.nodes(f.node)]
            if any(isinstance(n, ast.Call) and final_name(n.func) in diffs for n in nodes):
                replayers.add(name)
        locks = {lock for name in session.push for lock in session.facts[name].locks}
        written = any(mirror_inserts(session, idx, f) or mirror_assignments(session, idx, f) for f in pushing)
        in_flight = mutated_attributes(session, idx, pushing) - session.mirrors - locks
        return cls(session, {id(f.node) for f in pushing}, replayers, locks, in_flight, not written)


@dataclass
class _Replay:
    function: Function
    call: ast.Call
    reset: ast.Assign
    copies: list[tuple[ast.Call, str]] = field(default_factory=list)  # (copy, its flag)
    in_flight: bool = False
    lock: str = ""


def _replays(file: FileContext, idx: Index, context: _Session, function: Function, flags: tuple[str, ...]):
    session = context.session
    resets = [  # a reconnect rebuilds a mirror the class names (a RemoteChatContext)
        r
        for r in mirror_assignments(session, idx, function)
        if any(isinstance(t, ast.Attribute) and t.attr in session.declared for t in r.targets)
    ]
    if not resets:
        return
    copies: dict[int, tuple[ast.Call, str]] = {}
    flow = _flow(file, function, session, context.in_flight, flags, copies)
    resets = [r for r in resets if not _restores(flow, r.value)]
    calls = [
        n
        for n in idx.nodes(function.node)
        if isinstance(n, ast.Call) and self_attribute(n.func, function) and n.func.attr in context.replayers
    ]
    g = graph(file, function.node)
    resent = None
    for call in calls:
        argument = pushed_argument(call)
        reset = next((r for r in resets if g.precedes(r, call)), None)
        if argument is None or reset is None:
            continue
        carried = flow.origins(argument)
        flagged = [copies[key[1]] for key in sorted(k for k in carried if isinstance(k, tuple) and k[0] == "flag")]
        replay = _Replay(function, call, reset, flagged)
        if MIRROR in carried and context.acknowledged and not _locked(file, context, function, call, reset):
            resent = _resends(idx, flow, function) if resent is None else resent
            replay.in_flight = not resent
            replay.lock = _lock_text(function, context.locks)
        if replay.copies or replay.in_flight:
            yield replay


def _flow(file, function, session, in_flight, flags, copies) -> ValueFlow:
    """Values read from the mirror (MIRROR), from what the push keeps in flight
    (("in-flight", attribute)), and copies made with a flag (("flag", id of the copy))."""

    def sources(node: ast.AST) -> frozenset:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and self_attribute(node, function):
            if session.is_mirror(node, function):
                return frozenset({MIRROR})
            if node.attr in in_flight:
                return frozenset({("in-flight", node.attr)})
        return frozenset()

    def carries(call: ast.Call, origins) -> frozenset:
        carried = CONTEXT_FLOW.carries(call, origins)
        if final_name(call.func) in _WRAPPERS:
            for argument in call.args:
                carried |= origins(argument)
        for keyword in call.keywords:
            if keyword.arg in flags and isinstance(keyword.value, ast.Constant) and keyword.value.value is True:
                copies[id(call)] = (call, keyword.arg)
                carried |= {("flag", id(call))}
        return carried

    rules = FlowRules(carries, CONTEXT_FLOW.mutators, CONTEXT_FLOW.containers)
    return ValueFlow(graph(file, function.node), function.node, sources, rules)


def _restores(flow: ValueFlow, value: ast.expr) -> bool:
    """`self._remote_chat_ctx = old` where `old` was read from the mirror: a restore."""
    return isinstance(value, (ast.Name, ast.Attribute)) and MIRROR in flow.origins(value)


def _locked(file: FileContext, context: _Session, function: Function, call: ast.Call, reset: ast.Assign) -> bool:
    model = lock_model(file)
    return any(model.holds(node, function, lock) for lock in context.locks for node in (call, reset))


def _resends(idx: Index, flow: ValueFlow, function: Function) -> bool:
    """Whether the function puts what the push keeps in flight into what it sends: an
    argument of a send or of a queue's append/extend, or the loop that does so."""

    def in_flight(node: ast.AST) -> bool:
        return any(isinstance(k, tuple) and k[0] == "in-flight" for k in flow.origins(node))

    def sends(call: ast.Call) -> bool:
        name = final_name(call.func) or ""
        return name in _QUEUES or "send" in name.lower()

    for node in idx.nodes(function.node):
        if isinstance(node, ast.Call) and sends(node):
            if any(in_flight(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                return True
        elif isinstance(node, (ast.For, ast.AsyncFor)) and in_flight(node.iter):
            if any(sends(n) for s in node.body for n in idx.nodes(s) if isinstance(n, ast.Call)):
                return True
    return False


def _lock_text(function: Function, locks: set[str]) -> str:
    if not locks:
        return "any lock (the push holds none)"
    return " and ".join(f"{function.self_name}.{lock}" for lock in sorted(locks))


# -- the fix -----------------------------------------------------------------------------
def _comment_inside(file: FileContext, call: ast.Call) -> bool:
    """Whether a comment sits inside the copy's brackets, which the two editors would not
    keep alike when the flag goes (a comment is the author's: the flag is dropped by hand)."""
    func = call.func
    return "#" in file.segment(Span(func.end_lineno, func.end_col_offset, call.end_lineno, call.end_col_offset))


def _drop_flag(file: FileContext, copy: ast.Call, flag: str):
    path = file.path_of(index(file).statement_of(copy))
    return lambda editor: drop_keyword(editor, editor.locate(path), copy, flag)
