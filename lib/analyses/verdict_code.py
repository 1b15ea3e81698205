"""Digests of the code that decides a verdict, for the claims registry's check.

A criterion's verdict depends on more than its declared settings: on the code of its test
function and of every function, class and constant of the project that test uses, and on the
rules :func:`lib.analyses.claims.judge` applies (its seeds and the agreement it needs). This
module reduces such code to text that changes exactly when the code's behaviour may change:
functions and classes by their syntax tree with docstrings removed (comments, blank lines and
docstrings do not count; any change to a statement, an operator or a constant does), lambdas
by their bytecode, constants by their value; names of the project that a function uses are
followed transitively (``lib.*`` modules only: NumPy and SciPy are pinned in requirements.txt;
the input checks of :data:`INPUT_CHECK_MODULES` only refuse bad input, so they are not followed).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import textwrap
import types
from typing import Any

PROJECT_PREFIX = "lib."
INPUT_CHECK_MODULES = ("lib.core.validation", "lib.analyses.checks")  # refuse bad input; never change a verdict
CONSTANT_TYPES = (bool, int, float, str, bytes, type(None), tuple, list, dict, frozenset, set)


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with the docstring of every module, class and function removed."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def code_text(obj: Any) -> str:
    """The behaviour-bearing text of a function or class: its syntax tree without docstrings (a
    lambda: its bytecode, constants and names)."""
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        code = obj.__code__
        return f"lambda {code.co_code.hex()} {code.co_consts!r} {code.co_names!r}"
    return ast.dump(_without_docstrings(ast.parse(textwrap.dedent(inspect.getsource(obj)))))


def _is_project(obj: Any) -> bool:
    """Whether ``obj`` is project code that can change a verdict (the input checks cannot)."""
    module = getattr(obj, "__module__", None) or ""
    return module.startswith(PROJECT_PREFIX) and module not in INPUT_CHECK_MODULES


def constant_text(value: Any) -> str:
    """A constant's value as text; a function inside it by its name (a lambda by :func:`code_text`)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{constant_text(k)}: {constant_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + "(" + ", ".join(constant_text(v) for v in value) + ")"
    if isinstance(value, (frozenset, set)):
        return type(value).__name__ + "(" + ", ".join(sorted(constant_text(v) for v in value)) + ")"
    if isinstance(value, types.FunctionType):
        return code_text(value) if value.__name__ == "<lambda>" else f"{value.__module__}.{value.__qualname__}"
    return repr(value)


def _names(code: types.CodeType) -> set[str]:
    """Every global or attribute name a code object (and the code nested in it) uses."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _functions_of(obj: Any) -> list[types.FunctionType]:
    """A function itself, or a project class's own methods (not those a base such as NamedTuple adds)."""
    if isinstance(obj, types.FunctionType):
        return [obj]
    methods = [v for v in vars(obj).values() if isinstance(v, types.FunctionType)] if isinstance(obj, type) else []
    return [m for m in methods if _is_project(m)]


def local_imports(function: types.FunctionType) -> dict[str, Any]:
    """``name -> object`` of the ``from module import name`` statements inside ``function``'s body."""
    found = {}
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = importlib.import_module("." * node.level + (node.module or ""), function.__module__.rpartition(".")[0]
                                             if node.level else None)
            found |= {alias.asname or alias.name: getattr(module, alias.name) for alias in node.names
                      if hasattr(module, alias.name)}
    return found


def closure_texts(root: Any, exclude: frozenset[str] = frozenset()) -> dict[str, str]:
    """``qualified name -> text`` of ``root`` and of every project function, class and constant it
    uses, transitively (module attributes reached as ``module.name`` included); names in
    ``exclude`` (qualified, e.g. a registry's data) are left out."""
    texts: dict[str, str] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        name = f"{obj.__module__}.{obj.__qualname__}"
        if name in texts:
            continue
        texts[name] = code_text(obj)
        for function in _functions_of(obj):
            used = _names(function.__code__)
            scope = {**function.__globals__, **local_imports(function)}
            used |= set(local_imports(function))
            for word in sorted(used & set(scope)):
                value = scope[word]
                candidates = [(word, value)]
                if isinstance(value, types.ModuleType) and value.__name__.startswith(PROJECT_PREFIX) \
                        and value.__name__ not in INPUT_CHECK_MODULES:
                    candidates = [(f"{value.__name__}.{attr}", getattr(value, attr)) for attr in sorted(used)
                                  if hasattr(value, attr)]
                for label, item in candidates:
                    module = function.__module__ if label == word else label.rsplit(".", 1)[0]
                    qualified = f"{module}.{label.rsplit('.', 1)[-1]}"
                    if qualified in exclude:
                        continue
                    if isinstance(item, (types.FunctionType, type)) and _is_project(item):
                        todo.append(item)
                    elif isinstance(item, CONSTANT_TYPES):
                        texts.setdefault(qualified, constant_text(item))
    return texts


def code_digest(root: Any, exclude: frozenset[str] = frozenset()) -> str:
    """First 16 hex digits of the SHA-256 of :func:`closure_texts` of ``root`` (sorted by name)."""
    digest = hashlib.sha256()
    for name, text in sorted(closure_texts(root, exclude).items()):
        digest.update(f"{name}\0{text}\0".encode())
    return digest.hexdigest()[:16]
