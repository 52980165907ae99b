"""rules/_analysis loops, flags and blocks: one-pass order, early exits, list-derived flags,
and the block helpers of the fixes (RTL002/RTL003 ask these)."""

from __future__ import annotations

import ast
import textwrap

from rtlint.core.context import FileContext
from rtlint.core.rule import Settings
from rtlint.rules._analysis.blocks import (
    ahead_in_block,
    body_start,
    calls_after,
    failure_blocks,
    failure_exits,
    follows,
    hoist_point,
    leaving_blocks,
    statement_holding,
)
from rtlint.rules._analysis.flags import (
    empty_list_target,
    flag_in_guard,
    flag_operand,
    flags_from,
    fresh,
    marked_before,
    marks_every_exit,
)
from rtlint.rules._analysis.index import index
from rtlint.rules._analysis.loops import (
    abandoning_loops,
    assignments_reaching,
    early_exits,
    filling_loops,
    names_bound_between,
    runs_before,
    runs_between,
)
from rtlint.rules._edits import removal_code


def load(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("t.py", text, ast.parse(text), Settings())


def function(file: FileContext, name: str) -> ast.AST:
    return next(f.node for f in index(file).functions if f.node.name == name)


def call(node: ast.AST, name: str) -> ast.Call:
    return next(
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == name
    )


def test_runs_before_is_one_pass_inside_a_loop_and_any_path_outside() -> None:
    file = load(
        """
        async def f(xs):
            a()
            for x in xs:
                b()
                await push()
                c()
            d()
        """
    )
    fn = function(file, "f")
    a, b, push, c, d = (call(fn, n) for n in "a b push c d".split())
    assert runs_before(file, fn, push, c) and runs_before(file, fn, b, push)
    assert not runs_before(file, fn, c, push)  # only through a later pass
    assert not runs_before(file, fn, push, b)
    assert runs_before(file, fn, push, d) and runs_before(file, fn, a, push)
    assert not runs_before(file, fn, d, a)


def test_runs_before_loop_else_and_branches() -> None:
    file = load(
        """
        async def f(xs, y):
            for x in xs:
                await push()
            else:
                e()
            if y:
                g()
            else:
                h()
        """
    )
    fn = function(file, "f")
    push, e, g, h = (call(fn, n) for n in "push e g h".split())
    assert runs_before(file, fn, push, e)  # the loop's else, after the last pass
    assert not runs_before(file, fn, e, push)
    assert not runs_before(file, fn, g, h) and runs_before(file, fn, push, g)


def test_runs_between_one_pass() -> None:
    file = load(
        """
        async def f(xs):
            for x in xs:
                m = make()
                await push()
                n = 1
                commit(m)
        """
    )
    fn = function(file, "f")
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    between = runs_between(file, fn, call(fn, "push"), call(fn, "commit"), stores)
    assert [n.id for n in between] == ["n"]  # not `m` (the next pass) nor `x`


def test_early_exits_skip_the_streams_end_and_inner_loops() -> None:
    file = load(
        """
        async def f(s):
            while True:
                try:
                    m = await anext(s)
                except StopAsyncIteration:
                    break
                for y in m:
                    break
                if m.stop:
                    break
                if m.bad:
                    return
        """
    )
    loop = function(file, "f").body[0]
    assert [e.lineno for e in early_exits(loop)] == [11, 13]


def test_filling_loops_in_nested_functions_but_not_their_own_lists() -> None:
    file = load(
        """
        async def f(stream):
            out = []
            async def inner():
                async for m in stream:
                    out.append(m)
            async def shadow():
                out = []
                async for m in stream:
                    out.append(m)
        """
    )
    loops = filling_loops(file, function(file, "f"))
    assert [(loop.target, loop.stream, sorted(loop.adds), "out" in loop.bindings) for loop in loops] == [
        ("m", "stream", ["out"], False),
        ("m", "stream", ["out"], True),
    ]


def test_flags_from_a_list_and_in_a_guard() -> None:
    file = load(
        """
        def f(out):
            done = []
            skipped = False
            for o in done:
                if o.skipped:
                    skipped = True
            any_bad = any(o.bad for o in done)
            if skipped:
                pass
            if not all(o.ok for o in done):
                pass
        """
    )
    fn = function(file, "f")
    own = index(file).nodes(fn)
    assert empty_list_target(fn.body[0]) == "done" and empty_list_target(fn.body[1]) is None
    flags = list(flags_from(own, "done"))
    assert [(f.name, len(f.sets)) for f in flags] == [("skipped", 1), ("any_bad", 0)]
    first, second = fn.body[4], fn.body[5]
    assert flag_in_guard(first, "done", flags).name == "skipped"
    inline = flag_in_guard(second, "done", flags)
    assert inline.name is None and isinstance(inline.node, ast.Call)  # the all(...) under the `not`
    assert fresh("x", {"x", "x_2"}) == "x_3"


def test_marked_before_needs_the_marker_on_every_path_in_the_exits_block() -> None:
    file = load(
        """
        async def f(s, y):
            async for m in s:
                if m.a:
                    stop = m.id
                    break
                if y:
                    late = True
                if m.b:
                    late = True
                    break
        """
    )
    fn = function(file, "f")
    first, second = list(early_exits(fn.body[0]))
    assert marked_before(file, fn, first, "stop") and not marked_before(file, fn, first, "late")
    assert marked_before(file, fn, second, "late")


def test_blocks_that_leave_and_failure_blocks() -> None:
    file = load(
        """
        async def f(ctx):
            for attempt in range(3):
                try:
                    await push(ctx)
                except E:
                    if attempt == 2:
                        return
                    continue
                except F:
                    log()
                else:
                    break
            else:
                raise Failed()
            done()
        """
    )
    fn = function(file, "f")
    loop = fn.body[0]
    tried = loop.body[0]
    push_path = file.path_of(tried.body[0])
    start = len(file.path_of(loop)) - 1
    # `continue` retries inside the loop; the `return` leaves
    assert leaving_blocks(file, tried.handlers[0].body, file.path_of(loop)) == [
        file.path_of(tried.handlers[0].body[0].body[0])
    ]
    found = failure_blocks(file, push_path, start, whole_first=False)
    assert [(type(h).__name__, len(b)) for h, b in found] == [("For", 1), ("Try", 1), ("Try", 0)]
    whole = failure_blocks(file, push_path, start + 1, whole_first=True)
    assert [len(b) for _, b in whole] == [1, 1]
    assert ahead_in_block(file.path_of(loop), file.path_of(fn.body[1]))
    assert not ahead_in_block(file.path_of(fn.body[1]), file.path_of(loop))
    assert statement_holding(file, fn.body, call(fn, "push")) is loop


def test_calls_after_and_body_start() -> None:
    file = load(
        '''
        def f(msg):
            """Doc."""
            commit(msg)
            added(msg)
            added(other)
        def g():
            pass
        '''
    )
    fn = function(file, "f")
    assert calls_after(file, fn.body[1], {"added"}, {"msg"}) == [file.path_of(fn.body[2])]
    assert calls_after(file, fn.body[1], set(), {"msg"}) == []
    assert body_start(file, fn) == (file.path_of(fn.body[0]), True)
    assert body_start(file, function(file, "g"))[1] is False


def test_assignments_reaching_a_use_in_one_pass() -> None:
    file = load(
        """
        async def f(p, xs, y):
            a = 1
            if y:
                a = 2
            for x in xs:
                b = make()
                await push(a, b, p)
                b = other()
        """
    )
    fn = function(file, "f")
    use = call(fn, "push")
    first, branch = fn.body[0], fn.body[1].body[0]
    assert assignments_reaching(file, fn, "a", use) == [first, branch]
    assert assignments_reaching(file, fn, "b", use) == [fn.body[2].body[0]]  # not the next pass's
    assert assignments_reaching(file, fn, "p", use) == [None]
    assert assignments_reaching(file, fn, "x", use) == []  # a loop target is not an assignment


def test_a_loop_target_is_bound_at_the_start_of_each_pass() -> None:
    file = load(
        """
        async def f(xs):
            for x in xs:
                await push(x)
                commit(x)
        """
    )
    fn = function(file, "f")
    target = fn.body[0].target
    push, commit = call(fn, "push"), call(fn, "commit")
    assert runs_before(file, fn, target, push) and not runs_before(file, fn, push, target)
    assert runs_between(file, fn, push, commit, [target]) == []


def test_follows_after_else_finally_and_not_a_handler_or_another_branch() -> None:
    file = load(
        """
        async def f(y):
            try:
                await push()
                inside()
            except E:
                handler()
            else:
                orelse()
            finally:
                last()
            after()
            if y:
                left()
            else:
                right()
        """
    )
    fn = function(file, "f")
    tried, push = fn.body[0], call(fn, "push")
    assert follows(file, fn, push, tried.body[1]) == "after"
    assert follows(file, fn, push, fn.body[1]) == "after"
    assert follows(file, fn, push, tried.orelse[0]) == "else"
    assert follows(file, fn, push, tried.finalbody[0]) == "finally"
    assert follows(file, fn, push, tried.handlers[0].body[0]) is None  # the push's own failure
    branch = fn.body[2]
    assert follows(file, fn, call(fn, "left"), branch.orelse[0]) is None
    assert follows(file, fn, call(fn, "after"), tried.body[1]) is None  # it runs before


def test_hoist_point_stays_under_the_lock_and_after_the_definitions() -> None:
    file = load(
        """
        async def f(self):
            msg = make()
            try:
                async with self.lock:
                    other = make()
                    await push(msg, other)
            except E:
                return
        """
    )
    fn = function(file, "f")
    made, tried = fn.body
    locked = tried.body[0]
    other, push_stmt = locked.body
    path, start = file.path_of(push_stmt), len(file.path_of(tried)) - 1
    assert hoist_point(file, path, start, [], [made]) == file.path_of(tried)
    assert hoist_point(file, path, start, [locked], [made]) == path  # the first statement under the lock
    assert hoist_point(file, path, start, [], [other]) == path
    assert hoist_point(file, path, start + 1, [], []) == file.path_of(locked)  # not above `start`
    assert hoist_point(file, path, start, [], [push_stmt]) is None  # nothing is after the push itself


def test_failure_exits_once_each_and_whether_one_runs_before_a_binding() -> None:
    file = load(
        """
        async def f(ctx):
            try:
                msg = make()
                await push(msg)
            except E:
                return
            except F:
                raise
        """
    )
    fn = function(file, "f")
    tried = fn.body[0]
    definition, push_stmt = tried.body
    path = file.path_of(push_stmt)
    handlers = [file.path_of(h.body[0]) for h in tried.handlers]
    assert failure_exits(file, path, 0, False, []) == (handlers, False)
    assert failure_exits(file, path, 0, False, [definition]) == (handlers, True)
    assert failure_exits(file, path, 0, False, [fn]) == (handlers, False)  # bound outside the try


def test_names_bound_between_in_one_pass() -> None:
    file = load(
        """
        async def f(xs):
            for x in xs:
                a = 1
                await push()
                b, c = pair()
                commit()
                d = 2
        """
    )
    fn = function(file, "f")
    assert names_bound_between(file, fn, call(fn, "push"), call(fn, "commit")) == {"b", "c"}
    assert names_bound_between(file, fn, call(fn, "commit"), call(fn, "push")) == set()  # next pass only


def test_abandoning_loops_leave_early_but_not_by_returning_from_the_function() -> None:
    file = load(
        """
        async def f(stream, other):
            out = []
            async for msg in stream:
                if msg.stop:
                    break
                out.append(msg)
            async for msg in other:
                if msg.stop:
                    return
                out.append(msg)

            async def inner():
                async for m in stream:
                    if m.stop:
                        return
                    out.append(m)

            for x in stream:
                out.append(x)
        """
    )
    fn = function(file, "f")
    loops = abandoning_loops(file, fn, "out")
    assert [(loop.node.lineno, loop.target, loop.stream) for loop in loops] == [
        (4, "msg", "stream"),
        (14, "m", "stream"),
    ]
    assert [type(e).__name__ for loop in loops for e in loop.exits] == ["Break", "Return"]
    assert loops[1].function is function(file, "inner")
    assert [ast.unparse(a) for a in loops[0].appends] == ["out.append(msg)"]
    assert abandoning_loops(file, fn, "missing") == []


def test_removal_code_statements_for_names_lists_and_names_maybe_unset() -> None:
    suppress = "contextlib.suppress"
    assert removal_code("ctx", "remove", [("a", False), ("b", False)], suppress, "ValueError") == [
        "with contextlib.suppress(ValueError):\n    ctx.remove(a)\n    ctx.remove(b)\n"
    ]
    assert removal_code("ctx.items", "remove", [("xs", True)], suppress, "ValueError") == [
        "for _rtlint_item in xs:\n    with contextlib.suppress(ValueError):\n        ctx.items.remove(_rtlint_item)\n"
    ]
    mixed = removal_code("ctx", "drop", [("xs", True), ("a", False)], "cl.suppress", "ValueError")
    assert mixed == [
        "with cl.suppress(ValueError):\n    ctx.drop(a)\n",
        "for _rtlint_item in xs:\n    with cl.suppress(ValueError):\n        ctx.drop(_rtlint_item)\n",
    ]
    # a name bound to None before the try (issue 24: no NameError suppressed): removed when set
    unset = removal_code("ctx", "remove", [("msg", False), ("xs", True)], suppress, "ValueError", unset={"msg", "xs"})
    assert unset == [
        "if msg is not None:\n    with contextlib.suppress(ValueError):\n        ctx.remove(msg)\n",
        "if xs is not None:\n    for _rtlint_item in xs:\n        with contextlib.suppress(ValueError):\n"
        "            ctx.remove(_rtlint_item)\n",
    ]
    for statement in (*mixed, *unset):
        assert len(ast.parse(statement).body) == 1


def test_marks_every_exit_needs_one_name_marked_before_each_exit() -> None:
    file = load(
        """
        async def f(s):
            async for m in s:
                if m.a:
                    stop = True
                    seen = True
                    break
                if m.b:
                    stop = True
                    break
            if stop or seen:
                cleanup()
            if seen:
                cleanup()
        """
    )
    fn = function(file, "f")
    exits = [(fn, e) for e in early_exits(fn.body[0])]
    both, only_seen = fn.body[1], fn.body[2]
    assert marks_every_exit(file, both.test, exits)  # `stop` is set before both
    assert not marks_every_exit(file, only_seen.test, exits)  # `seen` before the first only
    assert marks_every_exit(file, only_seen.test, exits[:1])


def test_flag_operand_is_the_flag_name_or_the_inline_scan_and_says_if_negated() -> None:
    file = load(
        """
        async def f(out, handle):
            any_bad = any(o.bad for o in out)
            if handle.stop and not any_bad:
                cleanup()
            if handle.stop and all(o.ok for o in out):
                cleanup()
        """
    )
    fn = function(file, "f")
    flags = list(flags_from(index(file).nodes(fn), "out"))
    named, inline = fn.body[1], fn.body[2]
    node, negated = flag_operand(named, flag_in_guard(named, "out", flags))
    assert (ast.unparse(node), negated) == ("any_bad", True)
    node, negated = flag_operand(inline, flag_in_guard(inline, "out", flags))
    assert (ast.unparse(node), negated) == ("all((o.ok for o in out))", False)
