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

Each file is parsed once for both (:func:`source_facts`), and what a parse found is kept on disk
under the file's contents (:func:`memoized_facts`), so that the many processes of a build (each
chapter's kernel, each Dask worker) do not parse every file of ``lib`` again.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

LIB_DIR = Path(__file__).resolve().parents[1]
PACKAGE = LIB_DIR.name  # "lib"
MEMO_ENV = "REPRO_CODE_MEMO"


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
    for level, origin, names in _source_facts(path).imports:
        if level:
            base = package.rsplit(".", level - 1)[0] if level > 1 else package
            origin = f"{base}.{origin}" if origin else base
        found.add(origin)
        found |= {f"{origin}.{name}" for name in names if module_file(f"{origin}.{name}", lib_dir) is not None}
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
    return _source_facts(path).code_text


class SourceFacts(NamedTuple):
    """What the cache reads from one Python source, from one parse (:func:`source_facts`):
    ``code_text`` (see :func:`code_text`) and ``imports``, one ``(level, module, names)`` per import:
    ``from ..a import b, c`` is ``(2, "a", ("b", "c"))``, ``import a.b`` is ``(0, "a.b", ())``."""

    code_text: bytes
    imports: tuple


def source_facts(source: bytes, filename: str = "<source>") -> SourceFacts:
    """The :class:`SourceFacts` of a Python ``source``, parsed once."""
    tree = ast.parse(source, filename=filename)
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.level, node.module or "", tuple(alias.name for alias in node.names)))
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                first.value.value = ""
    return SourceFacts(ast.unparse(tree).encode(), tuple(imports))


def _source_facts(path: Path) -> SourceFacts:
    stat = path.stat()
    return _file_facts(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=None)
def _file_facts(path: Path, mtime_ns: int, size: int) -> SourceFacts:  # the file's version: its time and size
    return memoized_facts(path.read_bytes(), str(path))


def memo_dir() -> Path:
    """Where :func:`memoized_facts` keeps what it parsed: ``$REPRO_CODE_MEMO`` or ``_build/code-facts``
    of this checkout."""
    return Path(os.environ.get(MEMO_ENV) or LIB_DIR.parent / "_build" / "code-facts")


def memo_path(source: bytes) -> Path:
    """The memo file of a Python ``source`` in :func:`memo_dir`: named by the SHA-256 of the Python
    version and the source."""
    key = hashlib.sha256(sys.version.encode() + b"\0" + source).hexdigest()
    return memo_dir() / f"{key}.json"


def memoized_facts(source: bytes, filename: str = "<source>") -> SourceFacts:
    """:func:`source_facts` of ``source``, kept on disk (:func:`memo_dir`) under the SHA-256 of the
    source and of the Python version (whose :func:`ast.unparse` writes the code text), so that each
    process of a build does not parse every file of ``lib`` again. A memo file holds the SHA-256 of
    its contents and is read only if it matches (else parsed again and rewritten); one that cannot
    be written is skipped: the facts are the same either way (tests/test_cache_code.py)."""
    path = memo_path(source)
    try:
        check, _, body = path.read_bytes().partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() == check:
            record = json.loads(body)
            return SourceFacts(record["code_text"].encode(),
                               tuple((level, module, tuple(names)) for level, module, names in record["imports"]))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    facts = source_facts(source, filename)
    body = json.dumps({"code_text": facts.code_text.decode(), "imports": facts.imports}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        pass
    return facts
