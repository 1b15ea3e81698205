"""Which files of ``lib/`` a module's code depends on: the module, every ``lib`` module it imports
(transitively, found in the syntax tree, so an import inside a function counts too) and the
``__init__.py`` of every package on the way (importing a module runs them).

The results cache keys an entry on the digest of these files (:func:`lib.core.results.code_digest`),
so an entry is recomputed when code its computation can run changes, and only then (its code
as :func:`code_text` reads it: docstrings, comments and formatting do not count): the book
layer (plotting, labels, the runner) is imported by no computation, so editing it recomputes
nothing. A module reached only by ``importlib.import_module`` with a computed name is not found;
the one place that does so (a sweep's point function, :mod:`lib.experiments.sweep`) names that
module itself.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

LIB_DIR = Path(__file__).resolve().parents[1]
PACKAGE = LIB_DIR.name  # "lib"


def module_file(module: str, lib_dir: Path = LIB_DIR) -> Path | None:
    """The file that defines ``module`` (``lib.core.results`` -> ``lib/core/results.py``, a package
    -> its ``__init__.py``), ``None`` if ``lib_dir`` has none."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = lib_dir.joinpath(*parts[1:])
    for path in (base.with_suffix(".py") if len(parts) > 1 else None, base / "__init__.py"):
        if path is not None and path.is_file():
            return path
    return None


def is_package(module: str, lib_dir: Path = LIB_DIR) -> bool:
    """Whether ``module`` names a package (a folder with ``__init__.py``) of ``lib_dir``."""
    path = module_file(module, lib_dir)
    return path is not None and path.name == "__init__.py"


def imported_modules(module: str, lib_dir: Path = LIB_DIR) -> set[str]:
    """The ``lib`` modules that ``module``'s source imports anywhere in it (absolute and relative
    imports; ``from package import name`` counts as the module ``package.name`` when there is one,
    else as the package)."""
    path = module_file(module, lib_dir)
    if path is None:
        return set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            found.add(origin)
            found |= {f"{origin}.{alias.name}" for alias in node.names
                      if module_file(f"{origin}.{alias.name}", lib_dir) is not None}
    return {name for name in found if module_file(name, lib_dir) is not None}


def _with_packages(module: str) -> list[str]:
    """``module`` and every package above it (``lib.core.results`` -> ``lib``, ``lib.core``, itself)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def package_modules(package: str, lib_dir: Path = LIB_DIR) -> list[str]:
    """Every module in ``package`` and the packages below it (``lib`` -> all of the library)."""
    folder = module_file(package, lib_dir).parent
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(lib_dir).with_suffix("").parts
        names.append(".".join((PACKAGE, *(parts[:-1] if parts[-1] == "__init__" else parts))))
    return names


def module_closure(modules: Iterable[str], lib_dir: Path = LIB_DIR) -> list[str]:
    """Sorted names of ``modules`` (a package stands for every module in it), every ``lib`` module
    they import transitively, and the packages above each; :class:`ValueError` naming a module
    that is not part of ``lib_dir``."""
    todo = []
    for module in modules:
        if not isinstance(module, str) or module_file(module, lib_dir) is None:
            raise ValueError(f"computed_by: {module!r} is not a module of {lib_dir} (give module names such as "
                             f"'{PACKAGE}.core.training', usually __name__ of the module that computes the result)")
        todo += package_modules(module, lib_dir) if is_package(module, lib_dir) else [module]
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        for name in _with_packages(module):
            if name not in seen:
                seen.add(name)
                todo += sorted(imported_modules(name, lib_dir))
    return sorted(seen)


@functools.lru_cache(maxsize=None)
def closure_files(modules: tuple[str, ...]) -> tuple[Path, ...]:
    """The files of :func:`module_closure` of ``modules`` in this checkout, read once per process."""
    return tuple(module_file(name) for name in module_closure(modules))


def code_text(path: Path) -> bytes:
    """What of a file decides what its code computes: for a Python file its syntax tree written back
    as source (:func:`ast.unparse`) with every docstring emptied, so rewording a docstring or a
    comment, or reformatting, changes nothing; any other file (``requirements.txt``) byte for byte; a
    missing file, nothing."""
    if not path.exists():
        return b""
    if path.suffix != ".py":
        return path.read_bytes()
    return _python_code_text(path, path.stat().st_mtime_ns, path.stat().st_size)


@functools.lru_cache(maxsize=None)
def _python_code_text(path: Path, mtime_ns: int, size: int) -> bytes:  # the file's version: its time and size
    tree = ast.parse(path.read_bytes(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                first.value.value = ""
    return ast.unparse(tree).encode()
