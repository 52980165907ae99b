"""Sessions, snapshots and pushes of one module, on the shared index.

A session is recognised by name (`session-names`), by annotation (`session-types`, on
parameters, attributes and functions returning one), by assignment from `.session()` or
from another session, and through local aliases, closures included (`rt = self._rt_session`
in a method, then `rt.chat_ctx` in a function nested in it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...._analysis.index import ClassInfo, Function, Index, awaited_calls, final_name, index, parameters
from ...._analysis.locks import LockModel, lock_model
from ...._analysis.paths import StatementPath
from ...._analysis.values import bound_names, local_names
from .vocabulary import Vocabulary, is_session_call

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

Aliases = dict[str, list[ast.AST]]


@dataclass
class Push:
    call: ast.Call
    stmt: ast.stmt
    function: Function
    session: ast.expr
    argument: ast.expr | None


@dataclass
class Snapshot:
    node: ast.Attribute  # `<session>.chat_ctx`
    stmt: ast.stmt
    function: Function


class Module:
    """The realtime view of one file."""

    def __init__(self, file: FileContext) -> None:
        self.file = file
        self.index: Index = index(file)
        self.vocabulary = Vocabulary.from_settings(file.settings)
        self.parents = self.index.parents
        self.classes: list[ClassInfo] = self.index.classes
        self.functions: list[Function] = self.index.functions
        self.session_factories: set[str] = set()  # functions annotated to return a session
        self._aliases: dict[int, Aliases] = {}
        self._learn_factories()
        self._learn_session_attributes()
        self._learn_from_assignments()
        self.locks: LockModel = lock_model(file, (self.vocabulary.push_lock,))
        self.pushes: list[Push] = []
        self.snapshots: list[Snapshot] = []
        for function in self.functions:
            if isinstance(function.node, ast.AsyncFunctionDef):  # no await, no interleaving
                self._scan(function)

    def pushes_in(self, function_node: ast.AST) -> list[Push]:
        """The pushes of one function (grouped once: a file of many functions asks each)."""
        return self._grouped("pushes").get(id(function_node), [])

    def snapshots_in(self, function_node: ast.AST) -> list[Snapshot]:
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
            for item in self.pushes if kind == "pushes" else self.snapshots:
                found.setdefault(id(item.function.node), []).append(item)
            return found

        return self.file.memo(("livekit.realtime.grouped", kind), group)

    @property
    def session_names(self) -> set[str]:
        return self.vocabulary.session_names

    # -- learning sessions -------------------------------------------------------------
    def _learn_factories(self) -> None:
        for function in self.functions:
            node = function.node
            if self.vocabulary.annotated_session(node.returns):
                self.session_factories.add(node.name)
                if any(final_name(d) in ("property", "cached_property") for d in node.decorator_list):
                    self.session_names.add(node.name)  # read as an attribute

    def _learn_session_attributes(self) -> None:
        """Attributes annotated as sessions or assigned from `.session()`, module-wide."""
        for node in self.index.assignments:
            if isinstance(node, ast.AnnAssign):
                name = final_name(node.target)
                if name and self.vocabulary.annotated_session(node.annotation):
                    self.session_names.add(name)
            elif is_session_call(node.value):
                self.session_names.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))

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
                            and t.attr not in self.session_names
                            and self.is_session(node.value, function)
                        }
            if not learned:
                return
            self.session_names.update(learned)
            self._aliases.clear()

    def aliases(self, function: Function) -> Aliases:
        """Local names bound to a session (parameters and an enclosing function's aliases
        the function does not rebind included), with the binding nodes."""
        key = id(function.node)
        if key not in self._aliases:
            self._aliases[key] = {}  # a guard while computing
            known: Aliases = {}
            if function.outer is not None:
                own = local_names(function.node)
                known = {n: b for n, b in self.aliases(function.outer).items() if n not in own}
            for argument in parameters(function.node)[: _named_count(function.node)]:
                if argument.arg in self.session_names or self.vocabulary.annotated_session(argument.annotation):
                    known.setdefault(argument.arg, []).append(argument)
            self._aliases[key] = bound_names(
                self.index.nodes(function.node),
                known,
                self._is_session_expr,
                lambda node: isinstance(node.target, ast.Name) and self.vocabulary.annotated_session(node.annotation),
            )
        return self._aliases[key]

    def _is_session_expr(self, node: ast.AST, aliases: Aliases) -> bool:
        if isinstance(node, ast.Name):
            return node.id in aliases or node.id in self.session_names
        if isinstance(node, ast.Attribute):
            return node.attr in self.session_names
        if isinstance(node, ast.Call):
            return is_session_call(node) or final_name(node.func) in self.session_factories
        if isinstance(node, ast.NamedExpr):
            return self._is_session_expr(node.value, aliases)
        return False

    def is_session(self, node: ast.AST, function: Function) -> bool:
        return self._is_session_expr(node, self.aliases(function))

    # -- pushes and snapshots ----------------------------------------------------------
    def _scan(self, function: Function) -> None:
        vocabulary = self.vocabulary
        for node in self.index.nodes(function.node):
            if isinstance(node, ast.Attribute) and node.attr in vocabulary.mirror_properties:
                if isinstance(node.ctx, ast.Load) and self.is_session(node.value, function):
                    self.snapshots.append(Snapshot(node, self.statement_of(node), function))
            elif isinstance(node, ast.Await):
                for call in awaited_calls(node):
                    func = call.func
                    if isinstance(func, ast.Attribute) and func.attr in vocabulary.push_methods:
                        if self.is_session(func.value, function):
                            argument = call.args[0] if call.args else _keyword(call, "chat_ctx")
                            self.pushes.append(Push(call, self.statement_of(call), function, func.value, argument))

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


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def analyse(file: FileContext) -> Module:
    return file.memo("livekit.realtime.module", lambda: Module(file))
