"""No underscore name crosses a module boundary: a module's private names are read only by that
module. The scan is on the syntax tree (imports inside functions included) of every module of the
suite and of the tests: ``from m import _x`` and ``m._x`` on a suite module bound by an import both
count; dunder names do not. Tests obey the same rule, so that a test exercises the public seam
that production code uses.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("numeric", "verify", "theorems", "bench", "tests")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def private_crossings(root: Path = ROOT) -> list[str]:
    """``path:line: what`` for every private name one suite module reads from another."""
    found = []
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            module = _module_name(path, root)
            tree = ast.parse(path.read_text(), str(path))
            suite_aliases = {}  # local name -> suite module it is bound to
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] in TOPS:
                            local = alias.asname or alias.name.split(".")[0]
                            suite_aliases[local] = alias.asname and alias.name or local
                elif isinstance(node, ast.ImportFrom):
                    source = _absolute(module, path, node)
                    if source.split(".")[0] not in TOPS or source == module:
                        continue
                    for alias in node.names:
                        # a package's own private modules are read by the package's modules
                        # (which package may read which module: tests/test_architecture.py)
                        own_module = (module == source or module.startswith(source + ".")) and (
                            root / Path(*source.split(".")) / f"{alias.name}.py").is_file()
                        if _is_private(alias.name) and not own_module:
                            found.append(f"{path.relative_to(root)}:{node.lineno}: "
                                         f"from {source} import {alias.name}")
                        else:
                            suite_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and _is_private(node.attr)
                        and isinstance(node.value, ast.Name) and node.value.id in suite_aliases):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: "
                                 f"{node.value.id}.{node.attr}")
    return found


def test_no_private_name_crosses_a_module_boundary():
    assert private_crossings() == []


def test_scan_catches_planted_private_imports_and_attributes(tmp_path):
    """The same scan on a small tree with one private import and one private attribute planted."""
    (tmp_path / "numeric").mkdir()
    (tmp_path / "numeric" / "__init__.py").write_text("")
    (tmp_path / "numeric" / "a.py").write_text("_x = 1\ny = _x\n")
    (tmp_path / "numeric" / "b.py").write_text("from numeric.a import _x\nfrom . import a\nz = a._x\n")
    (tmp_path / "numeric" / "c.py").write_text("import numeric.a as m\nw = m._x + len(m.__name__)\n")
    found = private_crossings(tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == ["from numeric.a import _x", "a._x", "m._x"]
