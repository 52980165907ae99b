"""What class an expression's value is, as far as the file says it (no framework words).

A value's type names come from an annotation (a parameter's, a variable's, an attribute's,
in the class body or on `self.<attr>: T = ...`), from an assignment of a constructor call
(`x = Store()`, `self._store = Store(url)`: a class of the file, or a capitalised name) or of
an annotated parameter (`self._crm = crm`), and `self` is its class. `None` means the file
does not say (an unannotated parameter, an attribute set from a call's result); a framework
then decides by its own words. `lineage` is the class hierarchy inside the file, with the
names of the outside bases it reaches; `method` the definition of a method there.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .index import ClassInfo, Function, FunctionNode, Index, annotation_names, final_name, index, parameters

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

_UNKNOWN = object()  # an assignment whose value the file does not type


class Types:
    def __init__(self, idx: Index) -> None:
        self.index = idx
        self.classes: dict[str, ClassInfo] = {c.node.name: c for c in idx.classes}
        self._attributes: dict[int, dict[str, list]] = {}

    # -- classes ------------------------------------------------------------------------
    def lineage(self, name: str) -> tuple[str, ...]:
        """`name`, the names of its bases in the file (nearest first) and of the outside
        classes they derive from."""
        info = self.classes.get(name)
        if info is None:
            return (name,)
        found = [name]
        for klass in (info, *self.index.bases(info)):
            if klass is not info:
                found.append(klass.node.name)
            found += [n for n in (final_name(b) for b in klass.node.bases) if n and n not in self.classes]
        return tuple(dict.fromkeys(found))

    def method(self, name: str, method: str) -> FunctionNode | None:
        """The definition of `method` that instances of class `name` (of the file) run, or
        None when neither the class nor its bases in the file define it."""
        info = self.classes.get(name)
        if info is None:
            return None
        for klass in (info, *self.index.bases(info)):
            if method in klass.methods:
                return klass.methods[method]
        return None

    # -- values -------------------------------------------------------------------------
    def of(self, expr: ast.AST, function: Function | None) -> tuple[str, ...] | None:
        """The type names of `expr`'s value (a union gives several), or None when unknown."""
        if isinstance(expr, ast.Name):
            return self._name(expr.id, function)
        if isinstance(expr, ast.Attribute) and function is not None and function.cls is not None:
            if isinstance(expr.value, ast.Name) and expr.value.id == function.self_name:
                return self._attribute(function.cls, expr.attr)
        if isinstance(expr, ast.Call):
            return self._constructed(expr)
        return None

    def _constructed(self, call: ast.Call) -> tuple[str, ...] | None:
        name = final_name(call.func)
        if name and (name in self.classes or name[:1].isupper()):
            return (name,)
        return None

    def _name(self, name: str, function: Function | None) -> tuple[str, ...] | None:
        while function is not None:
            if name == function.self_name and function.cls is not None and function.outer is None:
                return (function.cls.node.name,)
            values = [v for node in self.index.nodes(function.node) for v in _bindings_of(node, name)]
            parameter = next((a for a in parameters(function.node) if a.arg == name), None)
            if parameter is not None:
                values.append(("annotation", parameter.annotation) if parameter.annotation else _UNKNOWN)
            if values:
                return self._merge(values, function)
            if name == function.self_name and function.cls is not None:
                return (function.cls.node.name,)
            function = function.outer
        return None

    def _attribute(self, cls: ClassInfo, attr: str) -> tuple[str, ...] | None:
        key = id(cls.node)
        if key not in self._attributes:
            self._attributes[key] = self._learn_attributes(cls)
        values = self._attributes[key].get(attr)
        return self._merge(values, None) if values else None

    def _learn_attributes(self, cls: ClassInfo) -> dict[str, list]:
        """attr -> what it is assigned (or annotated) in the class and its bases in the file."""
        found: dict[str, list] = {}
        for klass in (cls, *self.index.bases(cls)):
            for statement in klass.node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    found.setdefault(statement.target.id, []).append(("annotation", statement.annotation))
            for method in klass.methods.values():
                function = self.index.function_of.get(id(method))
                if function is None or function.self_name is None:
                    continue
                for node in self.index.method_nodes.get(id(method), ()):
                    targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", ())
                    for target in targets:
                        if (
                            isinstance(target, ast.Attribute)
                            and isinstance(target.value, ast.Name)
                            and target.value.id == function.self_name
                        ):
                            owner = self.index.function_of_node(node) or function
                            found.setdefault(target.attr, []).append(_value_of(node, owner))
        return found

    def _merge(self, values: list, function: Function | None) -> tuple[str, ...] | None:
        """The names of every typed value; None when one of them is untyped (the file does
        not say what the value is on that path). Annotations win over assignments."""
        annotated = [names for kind, names in (v for v in values if isinstance(v, tuple)) if kind == "annotation"]
        if annotated:
            return tuple(dict.fromkeys(n for a in annotated for n in annotation_names(a) if n != "None"))
        names: list[str] = []
        for value in values:
            if value is _UNKNOWN:
                return None
            kind, node = value
            if isinstance(node, ast.Constant) and node.value is None:
                continue
            typed = self._value(node, function if kind == "value" else kind)
            if typed is None:
                return None
            names += typed
        return tuple(dict.fromkeys(names)) or None

    def _value(self, node: ast.AST, function) -> tuple[str, ...] | None:
        if isinstance(node, ast.Call):
            return self._constructed(node)
        if isinstance(node, ast.Name) and isinstance(function, Function):
            parameter = next((a for a in parameters(function.node) if a.arg == node.id), None)
            if parameter is not None and parameter.annotation is not None:
                return tuple(n for n in annotation_names(parameter.annotation) if n != "None") or None
        return None


def _bindings_of(node: ast.AST, name: str) -> list:
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
        return [("annotation", node.annotation)]
    if isinstance(node, ast.Assign):
        if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return [("value", node.value)]
        if any(isinstance(t, (ast.Tuple, ast.List)) and _binds(t, name) for t in node.targets):
            return [_UNKNOWN]
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr, ast.AugAssign)):
        targets = (
            [node.target]
            if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr, ast.AugAssign))
            else [i.optional_vars for i in node.items if i.optional_vars is not None]
        )
        if any(_binds(t, name) for t in targets):
            return [_UNKNOWN]
    return []


def _binds(target: ast.AST, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
        elements = target.elts if not isinstance(target, ast.Starred) else [target.value]
        return any(_binds(e, name) for e in elements)
    return False


def _value_of(node: ast.AST, function: Function) -> tuple:
    if isinstance(node, ast.AnnAssign):
        return ("annotation", node.annotation)
    return (function, node.value)


def accepts_one_argument(function: FunctionNode) -> bool:
    """Whether `method(x)` binds a method definition's parameters: one positional parameter
    after `self` takes it (the others have defaults, or `*args` does), and no keyword-only
    parameter is required."""
    a = function.args
    positional = [*a.posonlyargs, *a.args][1:]
    required = len(positional) - len(a.defaults)
    if any(d is None for d in a.kw_defaults):
        return False
    return required == 1 or (required <= 0 and (bool(positional) or a.vararg is not None))


def types(file: FileContext) -> Types:
    return file.memo("rules._analysis.types", lambda: Types(index(file)))


__all__ = ["Types", "accepts_one_argument", "types"]
