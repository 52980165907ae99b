"""RTL001 stale-mirror-snapshot, as a Fixit user would write it: an assignment of a copy of
the realtime session's mirror (`ctx = self._rt_session.chat_ctx.copy()`) in an async
function that later awaits `self._rt_session.update_chat_ctx(ctx)`, not inside
`async with self.<lock>:`."""

import re

import libcst as cst
import libcst.matchers as m
from fixit import Invalid, LintRule, Valid
from libcst.metadata import PositionProvider

SESSION = re.compile(r"^_?(rt|realtime)_session$")


def _session_attr(node: cst.BaseExpression) -> bool:
    """`self.<session>`"""
    return m.matches(node, m.Attribute(value=m.Name("self"))) and bool(SESSION.match(node.attr.value))


class StaleMirrorSnapshot(LintRule):
    MESSAGE = "RTL001 snapshot of the session mirror is pushed without holding the push lock"
    VALID = [
        Valid(
            """
class A:
    async def f(self):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            await self._rt_session.update_chat_ctx(ctx)
"""
        ),
    ]
    INVALID = [
        Invalid(
            """
class A:
    async def f(self):
        ctx = self._rt_session.chat_ctx.copy()
        await self._rt_session.update_chat_ctx(ctx)
"""
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.functions: list[cst.FunctionDef] = []
        self.locks: list[bool] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.locks.append(False)  # a lock held by the caller's frame is not held here

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.locks.pop()

    def visit_With(self, node: cst.With) -> None:
        locked = node.asynchronous is not None and any(
            m.matches(item.item, m.Attribute(value=m.Name("self"))) for item in node.items
        )
        if self.locks:
            self.locks.append(self.locks[-1] or locked)

    def leave_With(self, original_node: cst.With) -> None:
        if self.locks:
            self.locks.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """The snapshots of this block; the fix (`fixit fix`) wraps the statements from the
        snapshot through the one that pushes it in `async with self._rt_chat_ctx_lock:`, as
        rtlint's does (without adding the lock to `__init__`)."""
        body = list(node.body)
        for index, line in enumerate(body):
            if not isinstance(line, cst.SimpleStatementLine) or not isinstance(line.body[0], cst.Assign):
                continue
            push = self._pushed_snapshot(line.body[0])
            if push is None:
                continue
            last = max((i for i in range(index, len(body)) if m.findall(body[i], push)), default=None)
            if last is None:
                continue
            wrapped = cst.With(
                items=[cst.WithItem(cst.parse_expression("self._rt_chat_ctx_lock"))],
                asynchronous=cst.Asynchronous(),
                body=cst.IndentedBlock(body=[body[index].with_changes(leading_lines=()), *body[index + 1 : last + 1]]),
                leading_lines=body[index].leading_lines,
            )
            replacement = node.with_changes(body=[*body[:index], wrapped, *body[last + 1 :]])
            # reported at the snapshot, replacing the block that holds it
            position = self.get_metadata(PositionProvider, line.body[0])
            self.report(node, position=position, replacement=replacement)
            return  # one fix per block and run (`fixit fix` is run again for the next)

    def _pushed_snapshot(self, node: cst.Assign):
        """The push matcher when `node` is a snapshot pushed later in its function, else None."""
        if not self.functions or self.functions[-1].asynchronous is None or self.locks[-1]:
            return None
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return None
        value = node.value  # <session>.chat_ctx.copy(...)
        if not m.matches(
            value, m.Call(func=m.Attribute(value=m.Attribute(attr=m.Name("chat_ctx")), attr=m.Name("copy")))
        ):
            return None
        session = value.func.value.value
        if not _session_attr(session):
            return None
        name = node.targets[0].target.value
        push = m.Await(
            expression=m.Call(
                func=m.Attribute(
                    value=m.Attribute(value=m.Name("self"), attr=m.Name(session.attr.value)),
                    attr=m.Name("update_chat_ctx"),
                ),
                args=[m.Arg(value=m.Name(name))],
            )
        )
        return push if m.findall(self.functions[-1], push) else None
