"""The results cache recomputes only what changed: an entry's code digest covers the ``lib`` modules
its computation can run (:mod:`lib.core.code_closure`), so editing the book layer (labels,
plotting, the runner) leaves every cached training run and kernel valid, and editing the
training kernel invalidates every one of them."""

import ast
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from lib.core import code_closure, results
from lib.experiments import sweep
from tests.test_faults import REPO, copy_of_code, run_python

POINT_SPEC = re.compile(r"lib(\.\w+)+:\w+")  # a sweep's point function, "package.module:function"


def cached_calls() -> list[tuple[str, int, ast.Call]]:
    """``(module, line, call)`` of every ``results.cached(...)`` call in ``lib/``."""
    calls = []
    for path in sorted((REPO / "lib").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cached":
                calls.append((module, node.lineno, node))
    return calls


def computations() -> dict[str, tuple[str, ...]]:
    """Where -> ``computed_by`` of every cached computation of the book: each ``results.cached`` call
    in ``lib`` that names its modules, and each sweep point function named in ``lib`` (its
    :func:`lib.experiments.sweep.point_code`)."""
    found = {}
    for module, line, call in cached_calls():
        given = [k.value for k in call.keywords if k.arg == "computed_by"]
        if given and isinstance(given[0], ast.Name) and given[0].id == "computed_by":
            continue  # the sweep's run_point, which passes on its point function's modules (below)
        if given:
            namespace = {**vars(importlib.import_module(module)), "__name__": module}
            found[f"{module}:{line}"] = results.code_modules(eval(ast.unparse(given[0]), namespace))
    for path in sorted((REPO / "lib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and POINT_SPEC.fullmatch(node.value):
                found[node.value] = sweep.point_code(sweep.resolve_function(node.value))
    return found


def test_every_cached_call_in_lib_names_the_code_that_computes_it():
    unnamed = [f"{module}:{line}" for module, line, call in cached_calls()
               if not any(k.arg == "computed_by" for k in call.keywords)]
    assert not unnamed, f"results.cached without computed_by (keyed on all of lib/): {unnamed}"
    assert len(computations()) >= 20  # schedules, kernels, continuum and horizon points, representations, ...


def test_no_computation_depends_on_the_book_layer_and_each_runs_the_training_kernel():
    for where, modules in computations().items():
        closure = code_closure.module_closure(modules)
        assert not [m for m in closure if m.startswith("lib.book")], where
        assert "lib.core.training_kernel" in closure and "lib.core.kernels" in closure, where


def write_tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_module_closure_follows_every_import_and_the_packages_on_the_way(tmp_path):
    lib = tmp_path / "lib"
    write_tree(tmp_path, {
        "lib/__init__.py": "", "lib/a/__init__.py": "", "lib/b/__init__.py": "from . import w\n",
        "lib/a/x.py": "import numpy\n\ndef f():\n    from .y import g\n    return g()\n",
        "lib/a/y.py": "from ..b import z\nfrom lib.b.v import h\n",
        "lib/b/z.py": "", "lib/b/v.py": "", "lib/b/w.py": "", "lib/b/u.py": "",
    })
    assert code_closure.module_closure(["lib.a.x"], lib) == [
        "lib", "lib.a", "lib.a.x", "lib.a.y", "lib.b", "lib.b.v", "lib.b.w", "lib.b.z"]  # w: lib.b's __init__ imports it
    assert code_closure.module_closure(["lib.b.u"], lib) == ["lib", "lib.b", "lib.b.u", "lib.b.w"]
    assert "lib.b.u" in code_closure.module_closure(["lib.b"], lib)  # a package: every module in it
    with pytest.raises(ValueError, match="computed_by: 'lib.a.nothing' is not a module"):
        code_closure.module_closure(["lib.a.nothing"], lib)
    with pytest.raises(ValueError, match="computed_by must be a module name"):
        results.code_modules([])


def test_the_parse_memo_gives_what_a_parse_gives_and_rejects_a_damaged_file(tmp_path, monkeypatch):
    """Every file of lib: the memoized facts equal a fresh parse's; a second process reads them from the
    memo without parsing; a memo file whose contents no longer match its checksum is parsed again and
    rewritten; a memo folder that cannot be written leaves the facts unchanged."""
    monkeypatch.setenv(code_closure.MEMO_ENV, str(tmp_path / "memo"))
    sources = {path: path.read_bytes() for path in sorted((REPO / "lib").rglob("*.py"))}
    parsed = {path: code_closure.source_facts(source, str(path)) for path, source in sources.items()}
    assert all(code_closure.memoized_facts(source) == parsed[path] for path, source in sources.items())
    assert len(list((tmp_path / "memo").glob("*.json"))) == len(set(sources.values()))
    with monkeypatch.context() as patched:
        patched.setattr(code_closure, "source_facts", lambda *a: pytest.fail("parsed although memoized"))
        assert all(code_closure.memoized_facts(source) == parsed[path] for path, source in sources.items())
    path, source = next(iter(sources.items()))
    memo = code_closure.memo_path(source)
    check, _, body = memo.read_bytes().partition(b"\n")
    memo.write_bytes(check + b"\n" + body.replace(b"def ", b"def x", 1))  # damaged: the checksum no longer matches
    assert code_closure.memoized_facts(source) == parsed[path]
    assert memo.read_bytes() == check + b"\n" + body  # rewritten
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(code_closure.MEMO_ENV, str(tmp_path / "file" / "memo"))  # not a folder: cannot be written
    assert code_closure.memoized_facts(source) == parsed[path]


CACHE_EVERY = """
    import json, sys
    import numpy as np
    from lib.core import results
    for i, modules in enumerate(json.loads(sys.argv[1])):
        results.cached("demo", {"i": i}, lambda: {"a": np.arange(3.0) + i}, computed_by=modules)
"""
LOAD_EVERY = """
    import json, sys
    from lib.core import results
    found = [results.load("demo", {"i": i}, computed_by=modules) is not None
             for i, modules in enumerate(json.loads(sys.argv[1]))]
    print(json.dumps([found, len(results.stale_entries())]))
"""


def run_with(code: str, root, argument: str) -> str:
    """Stdout of ``code`` run with ``argument`` in a fresh interpreter on the copy ``root`` and its
    own results folder."""
    env = {**os.environ, "PYTHONPATH": str(root), "REPRO_RESULTS_DIR": str(root / "results")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), argument], cwd=root, capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_editing_labels_or_plots_keeps_every_entry_and_editing_the_training_kernel_recomputes_each(tmp_path):
    root = copy_of_code(tmp_path)
    modules = sorted(set(computations().values()))
    argument = json.dumps(modules)
    run_with(CACHE_EVERY, root, argument)
    for name in ("book/names.py", "book/plot_style.py", "book/runner.py", "analyses/claims.py"):
        path = root / "lib" / name
        path.write_text(path.read_text() + "\nEDITED = 1  # a reader label, a plot style, the runner, a verdict\n")
    found, stale = json.loads(run_with(LOAD_EVERY, root, argument))
    assert found == [True] * len(modules) and stale == 0
    kernel = root / "lib" / "core" / "training_kernel.py"
    kernel.write_text(kernel.read_text() + "\nEDITED = 1\n")
    found, stale = json.loads(run_with(LOAD_EVERY, root, argument))
    assert found == [False] * len(modules) and stale == len(modules)


def test_rewording_docstrings_and_comments_of_the_training_kernel_recomputes_nothing(tmp_path):
    """Docstrings, comments and formatting are not code: the entries stay valid (the test above
    shows that one line of code in the same file recomputes every one)."""
    root = copy_of_code(tmp_path)
    modules = sorted(set(computations().values()))
    argument = json.dumps(modules)
    run_with(CACHE_EVERY, root, argument)
    kernel = root / "lib" / "core" / "training_kernel.py"
    text = kernel.read_text()
    first_docstring = text.index('"""') + 3
    kernel.write_text(text[:first_docstring] + "Reworded. " + text[first_docstring:] + "\n# a new comment\n\n\n")
    for path in (root / "lib").rglob("*.py"):  # every function's docstring reworded too
        path.write_text(re.sub(r'(\n    """)(?=[A-Z])', r"\1Reworded: ", path.read_text()))
    found, stale = json.loads(run_with(LOAD_EVERY, root, argument))
    assert found == [True] * len(modules) and stale == 0


def test_an_entry_without_modules_is_keyed_on_all_of_lib(tmp_path):
    root = copy_of_code(tmp_path)
    done = run_python("""
        import numpy as np
        from lib.core import results
        results.cached("demo", {"i": 0}, lambda: {"a": np.zeros(2)})
        print(results.metadata_of("demo", {"i": 0})["computed_by"])
    """, root, {"REPRO_RESULTS_DIR": str(root / "results")})
    assert done.stdout.strip() == "['lib']", done.stderr
    path = root / "lib" / "book" / "names.py"
    path.write_text(path.read_text() + "\nEDITED = 1\n")
    done = run_python("from lib.core import results; print(len(results.stale_entries()))", root,
                      {"REPRO_RESULTS_DIR": str(root / "results")})
    assert done.stdout.strip() == "1", done.stderr
