"""Realtime sessions of one file: the sessions, the snapshots of their mirrors and the pushes
into them (the realtime side of `rules._frameworks.livekit.Module`).

A session is recognised by name (`session-names`), by annotation (`session-types`, on
parameters, attributes and functions returning one), by assignment from `.session()` or
from another session, and through local aliases, closures included (`rt = self._rt_session`
in a method, then `rt.chat_ctx` in a function nested in it). What is learned from the file
is learned once, the first time a question needs it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...._analysis.index import ClassInfo, Function, Index, awaited_calls, final_name, parameters
from ...._analysis.locks import LockModel, lock_model
from ...._analysis.paths import StatementPath
from ...._analysis.values import bound_names, local_names
from ..vocabulary import is_session_call, pushed_argument

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

    from ..vocabulary import Vocabulary

Aliases = dict[str, list[ast.AST]]


@dataclass
class Push:
    """An awaited push into a realtime session."""

    call: ast.Call
    stmt: ast.stmt
    function: Function
    session: ast.expr
    argument: ast.expr | None


@dataclass
class MirrorSnapshot:
    """A read of a realtime session's mirror (`<session>.chat_ctx`): the server conversation
    as the session last heard it (RTL001's snapshot)."""

    node: ast.Attribute  # `<session>.chat_ctx`
    stmt: ast.stmt
    function: Function


class Sessions:
    """The realtime side of the LiveKit view of one file (a base of `livekit.Module`, which
    sets `file`, `index` and `vocabulary`): its sessions, the snapshots of their mirrors
    (`mirror_snapshots`) and the awaited pushes into them (`pushes`), found the first time
    they are asked for."""

    file: FileContext
    index: Index
    vocabulary: Vocabulary

    def _init_sessions(self) -> None:
        self._learned = False
        self._scanned: tuple[list[Push], list[MirrorSnapshot]] | None = None
        self._locks: LockModel | None = None
        self.realtime_session_names: set[str] = set(self.vocabulary.realtime_session_names)  # grows as learned
        self.session_factories: set[str] = set()  # functions annotated to return a session
        self._aliases: dict[int, Aliases] = {}

    def _learn_sessions(self) -> None:
        if self._learned:
            return
        self._learned = True  # set first: learning asks `is_realtime_session` itself
        self._learn_factories()
        self._learn_session_attributes()
        self._learn_from_assignments()

    @property
    def parents(self) -> dict[int, ast.AST]:
        return self.index.parents

    @property
    def classes(self) -> list[ClassInfo]:
        return self.index.classes

    @property
    def functions(self) -> list[Function]:
        return self.index.functions

    @property
    def locks(self) -> LockModel:
        if self._locks is None:
            self._locks = lock_model(self.file, (self.vocabulary.push_lock,))
        return self._locks

    @property
    def pushes(self) -> list[Push]:
        """Every awaited push into a realtime session, in source order."""
        return self._scan_all()[0]

    @property
    def mirror_snapshots(self) -> list[MirrorSnapshot]:
        """Every read of a realtime session's mirror, in source order."""
        return self._scan_all()[1]

    def _scan_all(self) -> tuple[list[Push], list[MirrorSnapshot]]:
        if self._scanned is None:
            self._learn_sessions()
            self._scanned = ([], [])
            for function in self.functions:
                if isinstance(function.node, ast.AsyncFunctionDef):  # no await, no interleaving
                    self._scan(function)
        return self._scanned

    def pushes_in(self, function_node: ast.AST) -> list[Push]:
        """The pushes of one function (grouped once: a file of many functions asks each)."""
        return self._grouped("pushes").get(id(function_node), [])

    def mirror_snapshots_in(self, function_node: ast.AST) -> list[MirrorSnapshot]:
        return self._grouped("snapshots").get(id(function_node), [])

    def pushes_of_class(self, node: ast.ClassDef) -> list[Push]:
        return self._grouped("class pushes").get(id(node), [])

    def _grouped(self, kind: str) -> dict[int, list]:
        def group() -> dict[int, list]:
            found: dict[int, list] = {}
            if kind == "class pushes":
                for push in self.pushes:
                    if push.function.cls is not None:
                        found.setdefault(id(push.function.cls.node), []).append(push)
                return found
            for item in self.pushes if kind == "pushes" else self.mirror_snapshots:
                found.setdefault(id(item.function.node), []).append(item)
            return found

        return self.file.memo(("livekit.realtime.grouped", kind), group)

    # -- learning sessions -------------------------------------------------------------
    def _learn_factories(self) -> None:
        for function in self.functions:
            node = function.node
            if self.vocabulary.is_realtime_annotation(node.returns):
                self.session_factories.add(node.name)
                if any(final_name(d) in ("property", "cached_property") for d in node.decorator_list):
                    self.realtime_session_names.add(node.name)  # read as an attribute

    def _learn_session_attributes(self) -> None:
        """Attributes annotated as sessions or assigned from `.session()`, module-wide."""
        for node in self.index.assignments:
            if isinstance(node, ast.AnnAssign):
                name = final_name(node.target)
                if name and self.vocabulary.is_realtime_annotation(node.annotation):
                    self.realtime_session_names.add(name)
            elif is_session_call(node.value):
                self.realtime_session_names.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))

    def _learn_from_assignments(self) -> None:
        """`self._voice = voice` where `voice` is a session (an annotated parameter, an alias)
        makes `_voice` a session attribute; repeated, since that can reveal more sessions."""
        for _ in range(3):
            learned = set()
            for function in self.functions:
                for node in self.index.nodes(function.node):
                    if isinstance(node, ast.Assign):
                        learned |= {
                            t.attr
                            for t in node.targets
                            if isinstance(t, ast.Attribute)
                            and t.attr not in self.realtime_session_names
                            and self.is_realtime_session(node.value, function)
                        }
            if not learned:
                return
            self.realtime_session_names.update(learned)
            self._aliases.clear()

    def aliases(self, function: Function) -> Aliases:
        """Local names bound to a session (parameters and an enclosing function's aliases
        the function does not rebind included), with the binding nodes."""
        self._learn_sessions()
        key = id(function.node)
        if key not in self._aliases:
            self._aliases[key] = {}  # a guard while computing
            known: Aliases = {}
            if function.outer is not None:
                own = local_names(function.node)
                known = {n: b for n, b in self.aliases(function.outer).items() if n not in own}
            for argument in parameters(function.node)[: _named_count(function.node)]:
                if argument.arg in self.realtime_session_names or self.vocabulary.is_realtime_annotation(
                    argument.annotation
                ):
                    known.setdefault(argument.arg, []).append(argument)
            self._aliases[key] = bound_names(
                self.index.nodes(function.node),
                known,
                self._is_session_expr,
                lambda node: (
                    isinstance(node.target, ast.Name) and self.vocabulary.is_realtime_annotation(node.annotation)
                ),
            )
        return self._aliases[key]

    def _is_session_expr(self, node: ast.AST, aliases: Aliases) -> bool:
        if isinstance(node, ast.Name):
            return node.id in aliases or node.id in self.realtime_session_names
        if isinstance(node, ast.Attribute):
            return node.attr in self.realtime_session_names
        if isinstance(node, ast.Call):
            return is_session_call(node) or final_name(node.func) in self.session_factories
        if isinstance(node, ast.NamedExpr):
            return self._is_session_expr(node.value, aliases)
        return False

    def is_realtime_session(self, node: ast.AST, function: Function) -> bool:
        self._learn_sessions()
        return self._is_session_expr(node, self.aliases(function))

    # -- pushes and snapshots ----------------------------------------------------------
    def _scan(self, function: Function) -> None:
        vocabulary, (pushes, snapshots) = self.vocabulary, self._scanned
        for node in self.index.nodes(function.node):
            if isinstance(node, ast.Attribute) and node.attr in vocabulary.mirror_properties:
                if isinstance(node.ctx, ast.Load) and self.is_realtime_session(node.value, function):
                    snapshots.append(MirrorSnapshot(node, self.statement_of(node), function))
            elif isinstance(node, ast.Await):
                for call in awaited_calls(node):
                    func = call.func
                    if isinstance(func, ast.Attribute) and func.attr in vocabulary.push_methods:
                        if self.is_realtime_session(func.value, function):
                            argument = pushed_argument(call)
                            pushes.append(Push(call, self.statement_of(call), function, func.value, argument))

    # -- the shared index, under the names the rules use ---------------------------------
    def nodes(self, function_node: ast.AST) -> list[ast.AST]:
        return self.index.nodes(function_node)

    def statement_of(self, node: ast.AST) -> ast.stmt:
        return self.index.statement_of(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        return self.index.ancestors(node)

    def path(self, stmt: ast.stmt) -> StatementPath:
        return self.file.path_of(stmt)

    def statement_at(self, path: StatementPath) -> ast.stmt:
        return self.index.statement_at(path)


def _named_count(node: ast.AST) -> int:
    """Positional and keyword-only parameters (not *args, **kwargs)."""
    a = node.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
