"""The generic analysis layer (rules/_analysis), one small program per query."""

from __future__ import annotations

import ast
import textwrap

import pytest

from rtlint.core.context import FileContext
from rtlint.core.rule import Settings
from rtlint.rules._analysis.cfg import Graph, graph, is_await
from rtlint.rules._analysis.index import index
from rtlint.rules._analysis.locks import lock_model
from rtlint.rules._analysis.paths import block_run, iter_statement_paths, region, statement_at
from rtlint.rules._analysis.values import FlowRules, ValueFlow, bound_names, single_binding


def load(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("t.py", text, ast.parse(text), Settings())


def function(file: FileContext, name: str) -> ast.AST:
    return next(f.node for f in index(file).functions if f.node.name == name)


def calls(node: ast.AST, name: str) -> list[ast.Call]:
    found = [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) == name
    ]
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


def lines(points) -> list[int]:
    return [p.node.lineno for p in points]


# -- paths ---------------------------------------------------------------------------------
def test_statement_paths_round_trip_and_region() -> None:
    file = load(
        """
        def f():
            try:
                a = 1
            except E:
                b = 2
            for x in y:
                c = 3
                d = 4
        """
    )
    for stmt, path in iter_statement_paths(file.tree):
        assert statement_at(file.tree, path) is stmt
    body = file.tree.body[0].body
    c, d = body[1].body
    assert region(file.path_of(c), file.path_of(d)) == (file.path_of(c), file.path_of(d))
    assert block_run(file.tree, file.path_of(c), file.path_of(d)) == [c, d]
    a, b = body[0].body[0], body[0].handlers[0].body[0]
    assert region(file.path_of(a), file.path_of(b)) == ((file.path_of(body[0])),) * 2


# -- index -----------------------------------------------------------------------------------
def test_index_owners_methods_and_self() -> None:
    file = load(
        """
        class A:
            async def m(self):
                def inner():
                    return self
                def rebinds(self):
                    return self
                lam = lambda: 1
            @staticmethod
            def s(x):
                pass
        class B(A):
            pass
        """
    )
    idx = index(file)
    by_name = {f.qualname: f for f in idx.functions}
    assert set(by_name) == {"A.m", "A.m.inner", "A.m.rebinds", "A.s"}
    assert by_name["A.m"].self_name == "self" and by_name["A.m.inner"].self_name == "self"
    assert by_name["A.m.inner"].method is by_name["A.m"]
    assert by_name["A.m.rebinds"].cls is None and by_name["A.s"].self_name is None
    a, b = idx.classes
    assert set(a.methods) == {"m", "s"} and idx.bases(b) == [a]
    owned = idx.nodes(by_name["A.m"].node)
    assert not any(isinstance(n, ast.Return) for n in owned)  # the nested functions' own
    lam = next(n for n in owned if isinstance(n, ast.Lambda))
    assert idx.function_of_node(lam) is by_name["A.m"]
    assert index(file) is idx  # memoised


# -- control flow -------------------------------------------------------------------------
def test_straight_line_order_and_dominance() -> None:
    file = load(
        """
        async def f(s):
            ctx = s.chat_ctx.copy()
            await s.other()
            await s.update_chat_ctx(ctx)
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    push = calls(file.tree, "update_chat_ctx")[0]
    assert g.precedes(snapshot, push) and not g.precedes(push, snapshot)
    assert g.dominates(snapshot, push) and not g.dominates(push, snapshot)
    assert lines(g.may_run_between(snapshot, push, is_await)) == [4]  # not the push's own await


def test_push_awaited_in_the_same_statement_has_nothing_between() -> None:
    file = load(
        """
        async def f(s):
            await s.update_chat_ctx(s.chat_ctx.copy())
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    assert g.precedes(snapshot, calls(file.tree, "update_chat_ctx")[0])
    assert g.may_run_between(snapshot, calls(file.tree, "update_chat_ctx")[0], is_await) == []


def test_branches() -> None:
    file = load(
        """
        async def f(c):
            if c:
                a = 1
            else:
                b = 2
            d = 3
        """
    )
    g = graph(file, function(file, "f"))
    a, b = file.tree.body[0].body[0].body[0], file.tree.body[0].body[0].orelse[0]
    d = file.tree.body[0].body[1]
    assert not g.precedes(a, b) and not g.precedes(b, a)
    assert g.precedes(a, d) and not g.dominates(a, d)
    assert g.dominates(file.tree.body[0].body[0], d)


def test_loop_back_edge_an_end_of_pass_snapshot_precedes_the_next_pass_push() -> None:
    file = load(
        """
        async def f(s):
            ctx = None
            while True:
                if ctx is not None:
                    await s.update_chat_ctx(ctx)
                await s.wait()
                ctx = s.chat_ctx.copy()
            after = 1
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    push = calls(file.tree, "update_chat_ctx")[0]
    assert g.precedes(snapshot, push) and g.precedes(push, snapshot)
    assert not g.dominates(snapshot, push)
    # from the snapshot round to the push: nothing awaits on the way (a path through the
    # wait() takes the snapshot again first)
    assert g.may_run_between(snapshot, push, is_await) == []
    wait = calls(file.tree, "wait")[0]
    # the push's own await, and the wait()'s of an earlier pass that skipped the push
    assert lines(g.may_run_between(push, wait, is_await)) == [6, 7]
    after = file.tree.body[0].body[2]
    assert not g.precedes(push, after)  # `while True` without break never ends


def test_snapshot_before_a_loop_an_earlier_pass_push_runs_between() -> None:
    file = load(
        """
        async def f(s, items):
            ctx = s.chat_ctx.copy()
            for item in items:
                await s.update_chat_ctx(ctx)
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    push = calls(file.tree, "update_chat_ctx")[0]
    between = g.may_run_between(snapshot, push, is_await)
    assert [type(p.node).__name__ for p in between] == ["Await"]


def test_break_continue_return() -> None:
    file = load(
        """
        def f(xs):
            for x in xs:
                if x:
                    break
                if not x:
                    continue
                unreachable_after_continue = 1
                return 2
            else:
                e = 3
            tail = 4
        """
    )
    g = graph(file, function(file, "f"))
    loop = file.tree.body[0].body[0]
    brk = loop.body[0].body[0]
    ret = loop.body[3]
    else_, tail = loop.orelse[0], file.tree.body[0].body[1]
    assert g.precedes(brk, tail) and not g.precedes(brk, else_)
    assert not g.precedes(ret, tail) and not g.precedes(ret, loop.body[2])
    assert g.precedes(loop.body[1].body[0], loop.body[0])  # continue goes round


def test_try_except_else_finally() -> None:
    file = load(
        """
        async def f(s):
            try:
                a = await s.one()
                return a
            except E:
                b = 1
            else:
                c = 2
            finally:
                d = 3
            e = 4
        """
    )
    g = graph(file, function(file, "f"))
    t = file.tree.body[0].body[0]
    a, ret = t.body
    b, c, d = t.handlers[0].body[0], t.orelse[0], t.finalbody[0]
    e = file.tree.body[0].body[1]
    assert g.precedes(a, b) and g.precedes(ret, d) and g.precedes(b, d)
    assert not g.precedes(ret, c) and not g.precedes(b, c)
    # the body returns, so only the handler leads on to `e`; a return runs the finally
    # and leaves (it does not go on to `e`)
    assert g.dominates(d, e) and g.dominates(b, e) and g.precedes(c, e)
    assert g.precedes(ret, d)  # (and on to `e` only through the handler: evaluating `a` may raise)


def test_a_finally_copy_of_the_snapshot_runs_it_again() -> None:
    # the abrupt copy of the `finally` may go on to the next pass (a `continue` would), but
    # every path from there to the push runs the snapshot again, in one copy or the other
    file = load(
        """
        async def f(s, notes):
            for note in notes:
                async with s.lock:
                    try:
                        await s.prepare(note)
                    except Exception:
                        return
                    finally:
                        ctx = s.chat_ctx.copy()
                    await s.update_chat_ctx(ctx)
        """
    )
    g = graph(file, function(file, "f"))
    snapshot, push = calls(file.tree, "copy")[0], calls(file.tree, "update_chat_ctx")[0]
    assert len(g.copies(snapshot)) == 2
    assert g.may_run_between(snapshot, push, is_await) == []
    # up to the next pass's `prepare`, the lock is left and taken again (and the push awaited)
    prepare = calls(file.tree, "prepare")[0]
    kinds = sorted(p.kind for p in g.may_run_between(snapshot, prepare, is_await))
    assert kinds == ["async-with-enter", "async-with-exit", "node"]


def test_async_for_and_async_with_are_await_points() -> None:
    file = load(
        """
        async def f(s, lock, stream):
            x = s.chat_ctx
            async with lock:
                y = 1
            async for item in stream:
                z = item
            await s.update_chat_ctx(x)
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    push = calls(file.tree, "update_chat_ctx")[0]
    kinds = [p.kind for p in g.may_run_between(snapshot, push, is_await)]
    assert kinds == ["async-with-enter", "async-with-exit", "async-for"]


def test_a_comprehension_runs_in_place_its_iterable_first() -> None:
    file = load(
        """
        async def f(s, outputs, more):
            x = s.chat_ctx
            done = {o.key: await o.wait() for o in outputs if o.ready for p in more}
            await s.update_chat_ctx(x)
        """
    )
    g = graph(file, function(file, "f"))
    snapshot = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Attribute) and n.attr == "chat_ctx")
    push = calls(file.tree, "update_chat_ctx")[0]
    # every point has a position (an ast.comprehension has none and is no point)
    everything = g.may_run_between(snapshot, push, lambda point: True)
    assert all(hasattr(p.node, "lineno") for unit in g.points for p in unit)
    comprehension = next(n for n in ast.walk(file.tree) if isinstance(n, ast.DictComp))
    order = [
        ast.unparse(p.node) for p in g.points[g.locate(comprehension).unit] if p.node in set(ast.walk(comprehension))
    ]
    # the first iterable, then per pass the target, the condition, the next generator, the key and value
    assert order.index("outputs") < order.index("o") < order.index("o.ready") < order.index("more") < order.index("p")
    assert (
        order.index("p")
        < order.index("o.key")
        < order.index("await o.wait()")
        < order.index(ast.unparse(comprehension))
    )
    assert [ast.unparse(p.node) for p in everything if is_await(p)] == ["await o.wait()"]


def test_nested_functions_have_their_own_graph() -> None:
    file = load(
        """
        async def f(s):
            async def inner():
                await s.update_chat_ctx(s.chat_ctx)
            x = 1
        """
    )
    outer, inner = function(file, "f"), function(file, "inner")
    push = calls(file.tree, "update_chat_ctx")[0]
    with pytest.raises(KeyError):
        graph(file, outer).locate(push)
    assert graph(file, inner).locate(push).node is push
    assert isinstance(graph(file, outer), Graph) and graph(file, outer) is graph(file, outer)


def test_match_cases_are_branches() -> None:
    file = load(
        """
        def f(v):
            match v:
                case 1:
                    a = 1
                case _:
                    b = 2
        """
    )
    g = graph(file, function(file, "f"))
    m = file.tree.body[0].body[0]
    a, b = m.cases[0].body[0], m.cases[1].body[0]
    assert not g.precedes(a, b) and not g.precedes(b, a)


# -- value flow -----------------------------------------------------------------------------
def snapshots(node: ast.AST) -> frozenset:
    return frozenset({node.lineno}) if isinstance(node, ast.Attribute) and node.attr == "chat_ctx" else frozenset()


RULES = FlowRules(
    carries=lambda call, origins: origins(call.func.value) if isinstance(call.func, ast.Attribute) else frozenset(),
    mutators=frozenset({"extend"}),
    containers=frozenset({"items"}),
)


def flow_of(file: FileContext, name: str, outer: ValueFlow | None = None, sources=snapshots) -> ValueFlow:
    node = function(file, name)
    return ValueFlow(graph(file, node), node, sources, RULES, outer)


def push_argument(file: FileContext, n: int = 0) -> ast.AST:
    return calls(file.tree, "update_chat_ctx")[n].args[0]


def test_origins_through_assignments_unpacking_attributes_and_mutation() -> None:
    file = load(
        """
        async def f(self, s):
            a = s.chat_ctx.copy()
            b, c = a, 1
            self._pending = b
            await s.update_chat_ctx(self._pending)
            await s.update_chat_ctx(c)
            d = []
            d.extend(s.chat_ctx.items)
            await s.update_chat_ctx(d)
        """
    )
    flow = flow_of(file, "f")
    assert flow.origins(push_argument(file, 0)) == {3}
    assert flow.origins(push_argument(file, 1)) == frozenset()
    assert flow.origins(push_argument(file, 2)) == {9}


def test_origins_killed_by_rebinding_but_not_in_a_branch() -> None:
    file = load(
        """
        async def f(s, c):
            a = s.chat_ctx
            if c:
                a = []
            await s.update_chat_ctx(a)
            a = []
            await s.update_chat_ctx(a)
        """
    )
    flow = flow_of(file, "f")
    assert flow.origins(push_argument(file, 0)) == {3}
    assert flow.origins(push_argument(file, 1)) == frozenset()


def test_a_comprehension_variable_is_its_own_not_the_functions() -> None:
    file = load(
        """
        async def f(s, others):
            ctx = s.chat_ctx.copy()
            await s.update_chat_ctx([ctx.copy() for ctx in others])
            await s.update_chat_ctx([ctx for _ in [ctx]])
            await s.update_chat_ctx([x for x in ctx.items if ctx])
        """
    )
    flow = flow_of(file, "f")
    shadowing, using, iterating = (push_argument(file, n) for n in range(3))
    # `ctx` in the element is the comprehension's target, not the snapshot
    assert flow.origins(shadowing.elt) == frozenset() and flow.origins(shadowing) == frozenset()
    # the function's `ctx` inside a comprehension, and its first iterable, are the snapshot
    assert flow.origins(using.elt) == {3} and flow.origins(iterating) == {3}
    assert flow.origins(iterating.generators[0].ifs[0]) == {3}


def test_origins_around_a_loop_back_edge() -> None:
    file = load(
        """
        async def f(s):
            ctx = None
            while True:
                if ctx is not None:
                    await s.update_chat_ctx(ctx)
                ctx = s.chat_ctx.copy()
        """
    )
    assert flow_of(file, "f").origins(push_argument(file)) == {7}


def test_parameters_and_closure_free_variables() -> None:
    file = load(
        """
        async def f(self, given):
            rt = given
            async def inner():
                await rt.update_chat_ctx(rt)
            await given.update_chat_ctx(given)
        """
    )

    def params(node):
        return frozenset({("param", node.arg)}) if isinstance(node, ast.arg) else frozenset()

    outer = flow_of(file, "f", sources=params)
    assert outer.origins(push_argument(file, 1)) == {("param", "given")}
    inner = flow_of(file, "inner", outer, sources=params)
    assert inner.origins(push_argument(file, 0)) == {("param", "given")}


def test_bound_names_and_single_binding() -> None:
    file = load(
        """
        async def f(self):
            a = self._rt_session
            b = a
            c, d = b, 1
            lock = self._lock
            other = x
            other = y
        """
    )
    nodes = index(file).nodes(function(file, "f"))
    found = bound_names(
        nodes,
        {},
        lambda v, known: (
            (isinstance(v, ast.Attribute) and v.attr == "_rt_session") or (isinstance(v, ast.Name) and v.id in known)
        ),
    )
    assert set(found) == {"a", "b", "c"}
    assert ast.unparse(single_binding(nodes, "lock")) == "self._lock"
    assert single_binding(nodes, "other") is None and single_binding(nodes, "missing") is None


# -- locks ------------------------------------------------------------------------------------
LOCKS = """
import asyncio

class A:
    def __init__(self):
        self._guard = asyncio.Lock()

    async def local_alias(self):
        lock = self._rt_chat_ctx_lock
        async with lock:
            await self.push()

    async def multi(self):
        async with self._guard, self._other_lock as _:
            await self.push()

    async def chain(self):
        async with self._activity._rt_chat_ctx_lock:
            await self.push()

    async def takes(self):
        async with self._guard:
            pass

    async def indirect(self):
        await self.takes()

    async def holder(self):
        async with self._guard:
            await self.indirect()

    async def closure(self):
        lock = self._guard
        async def inner():
            async with lock:
                await self.push()
        return inner
"""


def test_lock_regions_resolve_aliases_chains_and_multi_item_forms() -> None:
    file = load(LOCKS)
    idx, model = index(file), lock_model(file, ("_rt_chat_ctx_lock",))
    fn = {f.node.name: f for f in idx.functions}
    push = {name: calls(fn[name].node, "push")[0] for name in ("local_alias", "multi", "chain", "inner")}
    assert [r.lock for r in model.regions(push["local_alias"], fn["local_alias"])] == ["self._rt_chat_ctx_lock"]
    assert model.holds(push["local_alias"], fn["local_alias"], "_rt_chat_ctx_lock") is not None
    assert [r.lock for r in model.regions(push["multi"], fn["multi"])] == ["self._guard", "self._other_lock"]
    # another object's lock is not the class's own push lock
    assert model.regions(push["chain"], fn["chain"])[0].lock == "self._activity._rt_chat_ctx_lock"
    assert model.holds(push["chain"], fn["chain"], "_rt_chat_ctx_lock") is None
    assert model.holds(push["inner"], fn["inner"], "_guard") is not None
    assert model.lock_attributes(idx.classes[0]) == {"_guard"}


def test_methods_taking_callers_holding_and_reentry() -> None:
    file = load(LOCKS)
    idx, model = index(file), lock_model(file)
    cls = idx.classes[0]
    taking = model.methods_taking(cls, "_guard")
    assert {"multi", "takes", "indirect", "holder", "closure"} <= taking and "chain" not in taking
    assert model.callers_holding(cls, "_guard", "takes") == [("holder", 29)]
    fn = {f.node.name: f for f in idx.functions}
    reasons = model.reentry(fn["indirect"], fn["indirect"].node.body, "_guard", taking)
    assert reasons == [
        "it awaits self.takes() at line 26, which takes self._guard",
        "self.holder() holds self._guard when it calls indirect() (line 29)",
    ]
    again = model.reentry(fn["chain"], fn["multi"].node.body, "_guard", set())
    assert again == ["the region already takes self._guard at line 14"]
    assert model.reentry(fn["chain"], fn["holder"].node.body, "_guard", set()) == []  # lifted, not taken twice
    assert model.flattenable(fn["takes"].node.body[0], "self._guard", fn["takes"])


def test_an_abrupt_exit_through_a_with_or_finally_goes_where_it_leads() -> None:
    file = load(
        """
        async def f(s, lock):
            async with lock:
                a = s.chat_ctx
                if a:
                    return
            try:
                if a:
                    return
            finally:
                b = 1
            await s.update_chat_ctx(a)
        """
    )
    g = graph(file, function(file, "f"))
    body = file.tree.body[0].body
    early, late = body[0].body[1].body[0], body[1].body[0].body[0]
    push = calls(file.tree, "update_chat_ctx")[0]
    # the returns leave through the lock's exit and the finally, not on to the push
    assert not g.precedes(early, push) and not g.precedes(late, push)
    assert g.precedes(early, body[1]) is False and g.precedes(late, body[1].finalbody[0])
    kinds = [p.kind for p in g.may_run_between(body[0].body[0], push, is_await)]
    assert kinds == ["async-with-exit"]


def test_a_raise_through_a_with_in_a_loop_leaves_the_loop() -> None:
    file = load(
        """
        async def f(s, lock, items):
            for item in items:
                async with lock:
                    a = s.chat_ctx
            for item in items:
                async with lock:
                    if item:
                        break
                    d = s.chat_ctx
            await s.update_chat_ctx(a)
        """
    )
    g = graph(file, function(file, "f"))
    first, second, push = file.tree.body[0].body
    a, d = first.body[0].body[0], second.body[0].body[1]

    def abrupt_exit_of_lock(inside: ast.AST) -> int:
        return next(
            u
            for u in g.successors[g.locate(inside).unit]
            if any(p.kind == "async-with-exit" for p in g.points[u]) and g.exit in g.successors[u]
        )

    # only a raise leaves the first lock's block abruptly, and it leaves the loop too
    assert g.successors[abrupt_exit_of_lock(a)] == {g.exit}
    # a `break` through the lock's exit goes on after the loop
    assert g.statement_unit[id(push)] in g.successors[abrupt_exit_of_lock(d)]


def test_definitions_in_a_finally_reach_along_its_abrupt_exit() -> None:
    file = load(
        """
        async def f(s, items):
            ctx = None
            for item in items:
                if ctx:
                    await s.update_chat_ctx(ctx)
                try:
                    continue
                finally:
                    ctx = s.chat_ctx
        """
    )
    # only the `continue` leaves the try: its copy of the finally takes the snapshot round
    assert flow_of(file, "f").origins(push_argument(file)) == {10}


def test_reaches_within_a_run_of_statements() -> None:
    file = load(
        """
        async def f(s):
            ctx = None
            while True:
                if ctx is not None:
                    await s.update_chat_ctx(ctx)
                ctx = s.chat_ctx
        """
    )
    g = graph(file, function(file, "f"))
    loop = file.tree.body[0].body[1]
    push, snapshot = calls(file.tree, "update_chat_ctx")[0], loop.body[1].value
    assert g.reaches_within(push, snapshot, loop.body)
    assert not g.reaches_within(snapshot, push, loop.body)  # only round the loop
    assert g.reaches_within(snapshot, push, [loop])


# -- types (rules._analysis.types) ---------------------------------------------------------


def _types_of(source: str, expression: str, function_name: str):
    from rtlint.rules._analysis.types import types

    file = load(source)
    idx = index(file)
    function = next(f for f in idx.functions if f.node.name == function_name)
    node = next(n for n in idx.nodes(function.node) if isinstance(n, ast.expr) and ast.unparse(n) == expression)
    return types(file).of(node, function)


TYPED = """
class Base:
    async def push(self, ctx, *, now=False): ...

class Store(Base):
    label: str

    def __init__(self, client: Client | None, other):
        self._client = client
        self._made = Store(None, None)
        self._other = other
        self._none = None

    async def run(self, thing: Thing):
        local = Store(None, None)
        again = thing
        async def inner():
            return self._client, local, again, self
        return self._made, self._other, thing, self.label, local, again, self._client
"""


@pytest.mark.parametrize(
    ("expression", "function", "expected"),
    [
        ("self._client", "run", ("Client",)),  # an annotated parameter assigned: its annotation
        ("self._made", "run", ("Store",)),  # a constructor of the file
        ("self._other", "run", None),  # an unannotated parameter: the file does not say
        ("self.label", "run", ("str",)),  # the class body's annotation
        ("thing", "run", ("Thing",)),
        ("local", "run", ("Store",)),
        ("again", "run", ("Thing",)),  # an alias of an annotated parameter
        ("self._client", "inner", ("Client",)),  # through the enclosing method's `self`
        ("local", "inner", ("Store",)),  # a closure's free variable
        ("self", "inner", ("Store",)),
    ],
)
def test_types_of_an_expression(expression: str, function: str, expected) -> None:
    assert _types_of(TYPED, expression, function) == expected


def test_types_lineage_method_and_one_argument() -> None:
    from rtlint.rules._analysis.types import accepts_one_argument, types

    file = load(TYPED + "\nclass Desk(Agent):\n    pass\n")
    model = types(file)
    assert model.lineage("Desk") == ("Desk", "Agent")
    assert model.lineage("Store") == ("Store", "Base")
    assert model.lineage("Elsewhere") == ("Elsewhere",)
    push = model.method("Store", "push")  # inherited from a base of the file
    assert push is not None and accepts_one_argument(push)
    assert model.method("Store", "missing") is None
    assert index(file) is model.index

    def one(signature: str) -> bool:
        return accepts_one_argument(ast.parse(f"def m(self, {signature}): ...").body[0])

    assert one("chat_ctx") and one("chat_ctx, *, exclude=True") and one("*args") and one("a=1")
    assert not one("customer_id, *, notes") and not one("room, text") and not one("*, room")


# -- states along paths (cfg.Graph.states_at) and attributes of self (members) -------------


def test_states_at_joins_branches_and_loops() -> None:
    file = load(
        """
        async def f(a):
            x = 1
            if a:
                await g()
            h()
            while a:
                k()
                await g()
        """
    )
    g = graph(file, function(file, "f"))

    def transfer(point, state):
        return "awaited" if is_await(point) else state

    assert g.states_at(calls(file.tree, "h")[0], "start", transfer) == {"start", "awaited"}
    assert g.states_at(calls(file.tree, "k")[0], "start", transfer) == {"start", "awaited"}  # a later pass
    only_awaited = load("async def f():\n    await g()\n    h()\n")
    g = graph(only_awaited, function(only_awaited, "f"))
    assert g.states_at(calls(only_awaited.tree, "h")[0], "start", transfer) == {"awaited"}


MEMBERS = """
class A:
    def __init__(self):
        self._h = None

    def _refresh(self):
        self._h = self.copy_of()

    async def on_enter(self):
        self._h = self.copy_of()
        await wait()
        await self._push()

    async def direct(self):
        self._refresh()
        await self._push()

    async def _push(self):
        push(self._h)

    async def later(self):
        push(self._h)

    async def public(self):
        await wait()
        push(self._h)
"""


def _members(source: str, name: str = "_h"):
    from rtlint.rules._analysis.members import Attribute

    file = load(source)
    idx = index(file)

    def classify(method, value) -> str:
        if isinstance(value, ast.Constant) and value.value is None:
            return "none"
        return "keep" if isinstance(value, ast.Call) and getattr(value.func, "attr", "") == "copy_of" else "other"

    return file, idx, Attribute(file, idx.classes[0], name, classify)


def _read_in(idx, method: str) -> tuple:
    function = next(f for f in idx.functions if f.node.name == method)
    read = next(
        n
        for n in idx.nodes(function.node)
        if isinstance(n, ast.Attribute) and n.attr == "_h" and isinstance(n.ctx, ast.Load)
    )
    return function, read


def test_members_stale_through_callers_callbacks_and_own_awaits() -> None:
    file, idx, model = _members(MEMBERS)
    assert [w.method.node.name for w in model.writers] == ["_refresh", "on_enter"]
    assert model.refreshers == {"_refresh", "on_enter", "direct"} and not model.concurrent
    never = lambda method: False  # noqa: E731
    # `_push` is called by `on_enter` after an await, but by `direct` right after a refresh
    assert model.stale_at(*_read_in(idx, "_push"), never) is None
    # `direct` only refreshes now: `_push` is reached from `on_enter`'s await alone
    file, idx, model = _members(
        MEMBERS.replace("        self._refresh()\n        await self._push()\n", "        self._refresh()\n")
    )
    stale = model.stale_at(*_read_in(idx, "_push"), never)
    assert stale is not None and stale.method.node.name == "on_enter" and stale.point.node.lineno == 11
    assert model.stale_at(*_read_in(idx, "later"), never) is None  # public, no await: callers unknown
    later = model.stale_at(*_read_in(idx, "later"), lambda method: method.node.name == "later")
    assert later is not None and later.point is None  # a callback of the framework
    own = model.stale_at(*_read_in(idx, "public"), never)
    assert own is not None and own.method.node.name == "public"


def test_members_say_nothing_for_a_concurrent_refresh_or_an_unknown_value() -> None:
    handed_out = MEMBERS + "\n    def register(self, bus):\n        bus.on('x', self._refresh)\n"
    _, idx, model = _members(handed_out)
    assert model.concurrent and model.stale_at(*_read_in(idx, "public"), lambda m: False) is None
    other = MEMBERS.replace("self._h = None", "self._h = make()")
    _, idx, model = _members(other)
    assert model.unknown and model.stale_at(*_read_in(idx, "public"), lambda m: False) is None
