"""The layers of the suite, checked on the import graph (ast): every import points to the same
package or a lower layer, and no module imports itself back through a cycle.

The table is the one drawn in docs/architecture.md. Imports inside functions count too: a lazy
import that points upwards is still an upward dependency. ``conftest.py`` files are pytest's
wiring (they register the report layer's plugin for a test folder), not modules of a layer.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: (layer, packages); a module may import its own package and any package of a lower layer.
LAYERS = (
    (0, ("numeric",)),
    (1, ("verify.common",)),
    (2, ("verify.stats",)),
    (3, ("verify.symbolic",)),
    (4, ("verify.reference",)),
    (5, ("verify.experiments", "verify.crossval", "verify.derivations")),
    (6, ("theorems",)),
    (7, ("verify.report",)),
    (8, ("verify.cli", "verify", "bench")),
    (9, ("tests",)),
)
_RANK = {pkg: rank for rank, pkgs in LAYERS for pkg in pkgs}
_TOP = ("numeric", "verify", "theorems", "bench", "tests")


def module_files(root: Path = ROOT):
    for top in _TOP:
        for path in sorted((root / top).rglob("*.py")):
            if path.name == "conftest.py":
                continue
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


def package_of(module: str) -> str:
    """The longest registered package that contains ``module``."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        if name in _RANK:
            return name
    raise KeyError(module)


def imports_of(module: str, path: Path, known: set[str]):
    """Suite modules imported by ``module`` (``from pkg import submodule`` resolves to the
    submodule), with line numbers."""
    tree = ast.parse(path.read_text(), str(path))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _TOP:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in _TOP:
                continue
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            if subs:
                yield from ((s, node.lineno) for s in subs)
            else:
                yield target, node.lineno


def import_graph(root: Path = ROOT):
    files = dict(module_files(root))
    known = set(files)
    return {mod: sorted(set(imports_of(mod, path, known))) for mod, path in files.items()}


def upward_imports(graph):
    bad = []
    for mod, targets in graph.items():
        src = package_of(mod)
        for target, line in targets:
            dst = package_of(target)
            if dst != src and _RANK[dst] >= _RANK[src]:
                bad.append(f"{mod}:{line} imports {target} (layer {_RANK[dst]} >= {_RANK[src]})")
    return bad


def cycles(graph):
    """Strongly connected components with more than one module (or a self-import)."""
    edges = {m: {t for t, _ in ts if t in graph} for m, ts in graph.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges[v]:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_every_module_belongs_to_a_layer():
    unknown = [m for m, _ in module_files() if not any(
        m == p or m.startswith(p + ".") for p in _RANK)]
    assert unknown == []


def test_imports_point_only_downward():
    assert upward_imports(import_graph()) == []


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def copy_suite(dest: Path) -> None:
    """The suite's Python files under ``dest``, for planting a violation in a copy."""
    for top in _TOP:
        for src in (ROOT / top).rglob("*.py"):
            dst = dest / src.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(src.read_text())


def test_checker_catches_a_planted_upward_import_and_cycle(tmp_path):
    """The same checks on a copy of the tree with one upward import planted in the engine."""
    copy_suite(tmp_path)
    engine = tmp_path / "numeric" / "boolean" / "_functions.py"
    engine.write_text(engine.read_text() + "\nfrom verify.reference.bounds import crossover\n")
    graph = import_graph(tmp_path)
    assert any(b.startswith("numeric.boolean._functions:") for b in upward_imports(graph))
    sens = tmp_path / "numeric" / "boolean" / "_functions.py"
    sens.write_text(sens.read_text() + "\nfrom numeric.boolean._sensitivity import profile\n")
    assert any("numeric.boolean._functions" in c and "numeric.boolean._sensitivity" in c for c in cycles(import_graph(tmp_path)))


@pytest.mark.parametrize("module", ["numeric.xor", "numeric.boolean", "numeric.transformer"])
def test_engine_loads_no_symbolic_side(module):
    code = (f"import sys, {module}; bad = [m for m in ('sympy', 'mpmath', 'verify') "
            "if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_cli_and_validation_load_no_torch():
    code = ("import sys, verify.cli, numeric.validation, verify; "
            "assert 'torch' not in sys.modules and 'sympy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_stats_load_no_torch():
    code = ("import sys, verify.stats; bad = [m for m in ('torch', 'sympy', 'mpmath') "
            "if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# --------------------------------------------------------------------------- private modules

#: the library: every module outside the tests
_LIBRARY = ("numeric", "verify", "theorems", "bench")
#: the longest a library file may grow before it is split by concept
MAX_LIBRARY_LINES = 600


def _private_owner(module: str) -> str | None:
    """The package whose private module ``module`` is (``numeric.xor`` for ``numeric.xor._stream``),
    or None for a public module."""
    parts = module.split(".")
    for k, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:k])
    return None


def private_imports(root: Path = ROOT) -> list[str]:
    """``module:line imports target`` for every library module that imports a private module
    (a name starting with ``_``) of a package it is not inside."""
    files = dict(module_files(root))
    known = set(files)
    bad = []
    for mod, path in files.items():
        if mod.split(".")[0] not in _LIBRARY:
            continue
        for target, line in imports_of(mod, path, known):
            owner = _private_owner(target)
            if owner is not None and not (mod == owner or mod.startswith(owner + ".")):
                bad.append(f"{mod}:{line} imports {target}")
    return sorted(set(bad))


def long_files(root: Path = ROOT) -> list[str]:
    # a claim is one theorem file, however long its known-answer checks make it
    return [f"{path.relative_to(root)}: {n} lines" for top in _LIBRARY if top != "theorems" for path in sorted((root / top).rglob("*.py"))
            if (n := len(path.read_text().splitlines())) > MAX_LIBRARY_LINES]


def test_no_library_module_imports_another_packages_private_module():
    assert private_imports() == []


def test_private_import_check_catches_a_planted_one(tmp_path):
    copy_suite(tmp_path)
    user = tmp_path / "verify" / "experiments" / "training.py"
    user.write_text(user.read_text() + "\nfrom numeric.transformer._model import initialize_\n")
    sibling = tmp_path / "numeric" / "transformer" / "_eval.py"
    sibling.write_text(sibling.read_text() + "\nfrom numeric.xor import _stream\n")
    found = private_imports(tmp_path)
    assert any(f.startswith("verify.experiments.training:") and f.endswith("numeric.transformer._model")
               for f in found), found
    assert any(f.startswith("numeric.transformer._eval:") and f.endswith("numeric.xor._stream") for f in found), found
    assert len(found) == 2, found


def test_engine_has_one_package_per_model():
    packages = sorted(p.parent.name for p in (ROOT / "numeric").glob("*/__init__.py"))
    assert packages == ["boolean", "transformer", "xor"]
    flat = sorted(p.stem for p in (ROOT / "numeric").glob("*.py") if p.stem != "__init__")
    assert flat == ["intervals", "machine", "validation", "vocabulary"]
    for package in packages:
        modules = [p.name for p in (ROOT / "numeric" / package).glob("*.py") if p.name != "__init__.py"]
        assert all(m.startswith("_") for m in modules), modules


def test_no_library_file_is_over_the_line_limit():
    assert long_files() == []
