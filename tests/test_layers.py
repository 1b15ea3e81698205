"""``lib`` is layered: core -> experiments -> analyses -> book. A module imports only from its
own layer or the layers below it (lazy imports inside functions included)."""

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
