"""Realtime vocabulary for the contexts a push sends: what they were copied from, the items
added to them before the push, and the statements that commit items to a local context.

    contexts = pushed_contexts(file, function, push)   # {"ctx", "chat_ctx"}: sent, or copied from
    items = pushed_items(file, function, push, contexts)   # name -> Item
    commit_call(stmt)                                   # (local context, committed names) or None
    committed_before(file, function, "self._ctx", ["msg"], stmt)   # such a commit runs before stmt
    pushed_source(file, function, statement, push)      # "self._agent._chat_ctx": what is sent
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from rtlint.core.astnodes import walk

from ...._analysis.index import dotted, final_name, index, walk_function
from ...._analysis.loops import runs_before

ADDERS = {"insert", "_upsert_item"}  # ctx.<adder>(item) / ctx.items.append(item)
COMMITS = {"_upsert_item", "insert", "append", "extend", "add_message"}


@dataclass(frozen=True)
class Item:
    name: str
    is_list: bool  # a list of items (items.extend(xs), insert([...]))
    fresh: bool  # made here (add_message, a constructor): removing it undoes exactly the commit


def pushed_contexts(file, function: ast.AST, push) -> set[str]:
    """Names whose context is what the push sends: its argument, and what that was copied
    from before the push."""
    if not isinstance(push.argument, ast.Name):
        return set()
    names = {push.argument.id}
    copies = [
        n
        for n in walk_function(function)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and runs_before(file, function, n, push.call)
    ]
    changed = True
    while changed:
        changed = False
        for node in copies:
            source = node.value
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "copy":
                source = source.func.value
            if node.targets[0].id in names and isinstance(source, ast.Name) and source.id not in names:
                names.add(source.id)
                changed = True
    return names


def _bindings(function: ast.AST) -> dict[str, list[ast.AST]]:
    found: dict[str, list[ast.AST]] = {}
    for node in walk_function(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
    return found


def _fresh(value: ast.AST) -> bool:
    """A new item: `ctx.add_message(...)`, `ChatMessage(...)`, or a list of such items."""
    if isinstance(value, ast.Call):
        name = final_name(value.func) or ""
        return name == "add_message" or (name[:1].isupper() and isinstance(value.func, (ast.Name, ast.Attribute)))
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(_fresh(e) for e in value.elts)
    return False


def pushed_items(file, function: ast.AST, push, contexts: set[str]) -> dict[str, Item]:
    """Items added to a pushed context before the push, by name."""
    items: dict[str, Item] = {}
    bindings = _bindings(function)
    for node in walk_function(function):
        made = _added_message(node, contexts)
        added = None if made else _added_items(node, contexts)
        if (made or added) and runs_before(file, function, node, push.call):
            if made:
                items[made] = Item(made, False, True)
            for name, is_list in added or ():
                values = bindings.get(name, [])
                items[name] = Item(name, is_list, bool(values) and all(_fresh(v) for v in values))
    return items


def _added_message(node: ast.AST, contexts: set[str]) -> str | None:
    """`msg = ctx.add_message(...)` on a pushed context: "msg"."""
    target = value = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign):
        target, value = node.target, node.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "add_message" and dotted(func.value) in contexts:
            return target.id
    return None


def _added_items(node: ast.AST, contexts: set[str]) -> list[tuple[str, bool]] | None:
    """`ctx.insert(x)`, `ctx.items.append(x)`, `ctx.items.extend(xs)` on a pushed context:
    the names added, and whether each is a list of items."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return None
    receiver, method = dotted(node.func.value), node.func.attr
    if receiver is None:
        return None
    base = receiver[: -len(".items")] if receiver.endswith(".items") else None
    if receiver in contexts and method in ADDERS or base in contexts and method == "append":
        return list(_item_names(node.args[0], False))
    if base in contexts and method == "extend":
        return list(_item_names(node.args[0], True))
    return None


def _item_names(argument: ast.AST, listed: bool) -> Iterator[tuple[str, bool]]:
    if isinstance(argument, ast.Name):
        yield argument.id, listed
    elif isinstance(argument, (ast.List, ast.Tuple)):
        for element in argument.elts:
            if isinstance(element, ast.Name):
                yield element.id, False


def commit_call(stmt: ast.stmt) -> tuple[ast.AST, list[str]] | None:
    """(the local context, the committed names) for a commit statement such as
    `ctx._upsert_item(msg)`, `ctx.insert([call, output])`, `ctx.items.append(msg)`."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in COMMITS:
        return None
    target = func.value
    if func.attr in ("append", "extend"):
        if not (isinstance(target, ast.Attribute) and target.attr == "items"):
            return None
        target = target.value
    if func.attr == "add_message":  # add_message(id=msg.id, content=msg.content, ...)
        arguments = [*call.args, *(k.value for k in call.keywords)]
        names = [n.id for a in arguments for n in walk(a) if isinstance(n, ast.Name)]
        return (target, names[:1]) if names else None
    argument = call.args[0] if call.args else None
    if isinstance(argument, ast.Name):
        return target, [argument.id]
    if (
        isinstance(argument, (ast.List, ast.Tuple))
        and argument.elts
        and all(isinstance(e, ast.Name) for e in argument.elts)
    ):
        return target, [e.id for e in argument.elts]
    return None


def committed_before(file, function: ast.AST, local: str, names: list[str], stmt: ast.AST) -> bool:
    """Whether a commit of (at least) `names` to the context `local` (dotted) can run before `stmt`."""
    commits = [(node, commit_call(node)) for node in index(file).nodes(function)]
    return any(
        c is not None and dotted(c[0]) == local and set(names) <= set(c[1]) and runs_before(file, function, node, stmt)
        for node, c in commits
    )


def pushed_source(file, function: ast.AST, holder: ast.stmt, push) -> str | None:
    """The context the push sends, as text: its argument, or what that was copied from
    (`.copy()`, or a name bound inside `holder` before the push)."""
    argument = push.argument
    for _ in range(3):
        if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr == "copy":
            argument = argument.func.value
            continue
        if isinstance(argument, ast.Name):  # `ctx = self._agent._chat_ctx.copy()` in the try?
            name = argument.id
            binding = next(
                (
                    n
                    for n in walk_function(holder)
                    if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                    and runs_before(file, function, n, push.call)
                ),
                None,
            )
            if binding is not None:
                argument = binding.value
                continue
        break
    return dotted(argument)
