"""``lib`` is layered: core -> experiments -> analyses -> book. A module imports only from its
own layer or the layers below it, and no modules import each other, directly or round a longer
loop, within a layer or across (lazy imports inside functions included)."""

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"
LAYERS = ["core", "experiments", "analyses", "book"]


def imported_layers(path: Path) -> set[str]:
    """Layers (sub-packages of ``lib``) that a module of ``lib/<layer>/`` imports from."""
    own = path.parent.name
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                found.add(own)
            elif node.level == 2:  # from ..layer import x / from ..layer.module import x
                found.add((node.module or "").split(".")[0])
            elif node.level == 0 and (node.module or "").startswith("lib."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("lib.")}
    return found


def test_lib_holds_only_the_four_layers():
    assert sorted(p.name for p in LIB.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(LAYERS)
    assert [p.name for p in LIB.glob("*.py")] == ["__init__.py"]


@pytest.mark.parametrize("path", sorted(LIB.glob("*/*.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_imports_point_down(path):
    layer = LAYERS.index(path.parent.name)
    upward = {name for name in imported_layers(path) if name not in LAYERS[: layer + 1]}
    assert not upward, f"{path.relative_to(LIB)} imports from {sorted(upward)}, above its layer {LAYERS[layer]!r}"


def test_the_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "core" / "bad.py"
    module.parent.mkdir()
    module.write_text("def f():\n    from ..book import plotting\n")
    assert imported_layers(module) == {"book"}


def module_name(path: Path, root: Path) -> str:
    """``lib.core.training`` for ``<root>/core/training.py`` (``root`` is a ``lib`` folder)."""
    return ".".join((root.name, *path.relative_to(root).with_suffix("").parts))


def imported_modules(path: Path, root: Path) -> set[str]:
    """The modules of the ``lib`` folder ``root`` that the module at ``path`` imports (lazy imports
    included); ``from package import name`` counts as an import of the module ``package.name``
    where that is a module, else of ``package``."""
    modules = {module_name(p, root) for p in root.glob("*/*.py") if p.name != "__init__.py"}
    package = module_name(path, root).rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & modules


def import_cycles(root: Path) -> list[list[str]]:
    """Every set of modules of the ``lib`` folder ``root`` that import each other round a loop (the
    strongly connected components of the import graph with more than one module, or one module
    importing itself), each sorted."""
    graph = {module_name(p, root): imported_modules(p, root) for p in sorted(root.glob("*/*.py"))
             if p.name != "__init__.py"}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(module):  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1 or module in graph[module]:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_no_modules_import_each_other():
    cycles = import_cycles(LIB)
    assert not cycles, "modules that import each other (directly or round a loop): " + "; ".join(
        " <-> ".join(cycle) for cycle in cycles)


def test_the_check_sees_a_cycle_within_a_layer_and_across_layers(tmp_path):
    lib = tmp_path / "lib"
    for layer in ("core", "experiments"):
        (lib / layer).mkdir(parents=True)
        (lib / layer / "__init__.py").write_text("")
    (lib / "core" / "a.py").write_text("from .b import f\n")
    (lib / "core" / "b.py").write_text("def f():\n    from . import a\n")  # lazy: still a cycle
    (lib / "core" / "c.py").write_text("from lib.core import a\n")  # imports into the cycle, not part of it
    (lib / "experiments" / "d.py").write_text("from ..core.c import x\nfrom .e import y\n")
    (lib / "experiments" / "e.py").write_text("from ..experiments import d\n")
    assert import_cycles(lib) == [["lib.core.a", "lib.core.b"], ["lib.experiments.d", "lib.experiments.e"]]
    (lib / "core" / "b.py").write_text("def f():\n    pass\n")
    assert import_cycles(lib) == [["lib.experiments.d", "lib.experiments.e"]]
