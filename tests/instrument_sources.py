"""What a theorem file prints, read from its source (ast): the evidence keys it records and the
estimands of the decisions it hands to ``evidence.decide``, each as a text in which every
formatted value of an f-string reads ``*`` (``f"P(success | d={d})"`` -> ``P(success | d=*)``).

An estimand is resolved through the file: a string or f-string, a sum of them, a local variable
(its assignments, or the tuples a ``for`` loop unpacks it from), a parameter of the enclosing
function (the arguments of every call of that function in the file), or the first argument of
a call (a decision helper of the file). What cannot be resolved reads ``*`` and is reported; a
record merged whole (``evidence.update(rep.as_evidence())``) is one key, ``**`` and its expression.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

#: what a formatted value reads as
HOLE = "*"
#: the prefix of a record merged into the evidence whole (``evidence.update(rep.as_evidence())``)
RECORD = "**"


def _text(node) -> str | None:
    """A string or f-string literal as text (formatted values read ``*``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)
    return None


@dataclass
class Printed:
    """The evidence keys and decision estimands of one theorem file (resolved texts)."""

    keys: set = field(default_factory=set)
    estimands: set = field(default_factory=set)
    unresolved: list = field(default_factory=list)


class _Resolver:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.parents = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def enclosing(self, node):
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return None

    def resolve(self, node, depth=0) -> set[str]:
        if depth > 6:
            return {HOLE}
        text = _text(node)
        if text is not None:
            return {text}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return {a + b for a in self.resolve(node.left, depth + 1) for b in self.resolve(node.right, depth + 1)}
        if isinstance(node, ast.Call) and node.args:
            return self.resolve(node.args[0], depth + 1)
        if isinstance(node, ast.Name):
            return self._name(node, depth)
        return {HOLE}

    def _name(self, node, depth) -> set[str]:
        func = self.enclosing(node)
        scope = func if func is not None else self.tree
        found = set()
        for sub in ast.walk(scope):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if isinstance(target, ast.Name) and target.id == node.id:
                        found |= self.resolve(sub.value, depth + 1)
            elif isinstance(sub, ast.For):
                found |= self._unpacked(sub, node.id, depth)
        if found:
            return found
        if func is not None:
            params = [a.arg for a in func.args.posonlyargs + func.args.args]
            if node.id in params or node.id in [a.arg for a in func.args.kwonlyargs]:
                return self._arguments(func, node.id, params, depth)
        return {HOLE}

    def _unpacked(self, loop: ast.For, name: str, depth) -> set[str]:
        """The values ``name`` takes in ``for (.., name, ..) in ((..), (..))``."""
        target, it = loop.target, loop.iter
        if isinstance(target, ast.Name) and target.id == name and isinstance(it, (ast.Tuple, ast.List)):
            return set().union(*(self.resolve(e, depth + 1) for e in it.elts)) if it.elts else set()
        if isinstance(target, ast.Tuple) and isinstance(it, (ast.Tuple, ast.List)):
            names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
            if name in names:
                i = names.index(name)
                out = set()
                for row in it.elts:
                    if isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) > i:
                        out |= self.resolve(row.elts[i], depth + 1)
                    else:
                        out.add(HOLE)
                return out
        return set()

    def _arguments(self, func, name, params, depth) -> set[str]:
        """The texts passed for parameter ``name`` at every call of ``func`` in the file."""
        out = set()
        for call in ast.walk(self.tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == func.name):
                continue
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and name in params and params.index(name) < len(call.args):
                arg = call.args[params.index(name)]
            out |= self.resolve(arg, depth + 1) if arg is not None else {HOLE}
        return out or {HOLE}


def _is_evidence(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "evidence"


def printed(source: str, fname: str = "<theorem>") -> Printed:
    """The evidence keys and decision estimands of a theorem file's ``source``."""
    tree = ast.parse(source, fname)
    res = _Resolver(tree)
    out = Printed()

    def add(into, node, what):
        texts = res.resolve(node)
        into |= texts
        if HOLE in texts:
            out.unresolved.append(f"line {node.lineno}: {what} {ast.unparse(node)[:80]}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_evidence(node.value) and isinstance(node.ctx, ast.Store):
            add(out.keys, node.slice, "evidence key")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_evidence(node.func.value):
            if node.func.attr == "update":
                for arg in node.args:
                    if isinstance(arg, ast.Dict):
                        for key in arg.keys:
                            if key is not None:
                                add(out.keys, key, "evidence key")
                    elif isinstance(arg, ast.DictComp):
                        add(out.keys, arg.key, "evidence key")
                    else:
                        # a whole record merged in: its keys are the record's, named by the expression
                        out.keys.add(RECORD + ast.unparse(arg))
                out.keys |= {k.arg for k in node.keywords if k.arg}
            elif node.func.attr == "decide" and node.args:
                add(out.estimands, node.args[0], "estimand")
    return out


def defined_functions(source: str) -> dict[str, bool]:
    """The module-level functions of ``source``: name -> whether it runs in the file's tests
    (a ``test*`` function, or one whose name the file reads elsewhere, e.g. calls)."""
    tree = ast.parse(source)
    defs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {name: name.startswith("test") or name in used for name in defs}
