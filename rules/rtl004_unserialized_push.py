"""RTL004 unserialized-push (LiveKit Agents PR 7905, "all five sites")."""

from __future__ import annotations

from collections.abc import Iterator

from rtlint.core.context import FileContext
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _lockfix
from ._frameworks.livekit import REALTIME_OPTIONS, analyse, push_tokens, unserialized_pushes


class UnserializedPush(Rule):
    """
    ## What it does
    In a class where some push of a realtime session (`await ....update_chat_ctx(ctx)`) is
    made under the push lock, finds every other push of a session that is not under that
    lock: a replacement of the whole context, a cleanup push.

    ## Why is this bad?
    Replace-then-append: the replacement goes first and awaits its acknowledgement; a later
    append snapshots the mirror before the replacement's items are acknowledged, and its
    diff deletes them. Cleanup-then-append: a cleanup deletes a never-played message, and a
    late tool output snapshots the mirror while the message is still there and recreates
    it. Locking every push site of the class is the invariant (PR 7905 locked all five
    sites of `AgentActivity`; three were not enough).

    A push whose snapshot is already an RTL001 finding is not reported again: one defect,
    one finding. The push lock is the class's own (`self.<push lock>`, a local read of it
    included); another object's lock of the same name does not serialize this class.

    ## Example
    ```python
    async def replace(self, chat_ctx):
        await self._rt_session.update_chat_ctx(chat_ctx)
    ```

    Use instead:
    ```python
    async def replace(self, chat_ctx):
        async with self._rt_chat_ctx_lock:
            await self._rt_session.update_chat_ctx(chat_ctx)
    ```

    ## Fix
    Wraps the push statement in `async with self.<push lock>:`. Fixing RTL001 in a class
    makes its other pushes RTL004 findings; the same `rtlint --fix` fixes them too.

    ## Fix safety
    As RTL001: not fixed where the push would take the lock again (it awaits a method of the
    class that takes it, or a method holding the lock calls this one: asyncio locks are not
    re-entrant), unsafe where it yields under the lock.
    """

    code = "RTL004"
    name = "unserialized-push"
    summary = "a push is not serialized with the class's other pushes by the push lock"
    fix_availability = "sometimes"
    options = REALTIME_OPTIONS

    VALID = [
        """
class A:
    async def f(self, ctx):
        await self._rt_session.update_chat_ctx(ctx)
""",
    ]
    INVALID = [
        Invalid(
            """
class A:
    async def f(self):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            await self._rt_session.update_chat_ctx(ctx)

    async def replace(self, ctx):
        await self._rt_session.update_chat_ctx(ctx)
""",
            lines=(9,),
            expected_fix="""
class A:
    async def f(self):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            await self._rt_session.update_chat_ctx(ctx)

    async def replace(self, ctx):
        async with self._rt_chat_ctx_lock:
            await self._rt_session.update_chat_ctx(ctx)
""",
        )
    ]

    def required_tokens(self) -> list[tuple[object, ...]]:
        return push_tokens(self.settings)

    def check(self, file: FileContext) -> Iterator[Finding]:
        module = analyse(file)
        for push in unserialized_pushes(module):
            info = push.function.cls
            path = module.path(push.stmt)
            plan = _lockfix.plan(module, push.function, path, path)
            message = (
                f"{push.call.func.attr} is not under {plan.lock_expression}, which serializes the "
                f"other pushes of {info.node.name}; a snapshot taken by another push while this one "
                f"awaits its acknowledgement misses this push's changes"
            )
            yield self.report(file, push.call, message, plan=plan, symbol=push.function.qualname)
