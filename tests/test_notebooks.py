"""Notebook hygiene: paired files in sync, a parameters cell, and a runner that knows them all."""

from pathlib import Path

import jupytext
import pytest

from lib.book.notebook_sources import NOTEBOOKS
from lib.book.run_parameters import parse_assignment
from lib.book.runner import PROFILES

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO_ROOT / "notebooks"
SOURCES = sorted(NOTEBOOK_DIR.glob("*.py"))


def test_runner_lists_every_notebook():
    assert sorted(p.stem for p in SOURCES) == sorted(NOTEBOOKS)
    assert set(PROFILES["quick"]) <= set(NOTEBOOKS)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_paired_ipynb_matches_py_source(source):
    py, ipynb = jupytext.read(source), jupytext.read(source.with_suffix(".ipynb"))
    assert [c.source for c in py.cells] == [c.source for c in ipynb.cells], "run jupytext --sync"
    assert all(not c.get("outputs") for c in ipynb.cells if c.cell_type == "code"), "commit .ipynb without outputs"
    tagged = [c for c in py.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1


CAPTION_SOURCES = ("Paper Fig", "Sec ", "App ", "Beyond the paper")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_caption_names_the_paper_figure_it_reproduces(source):
    """A caption starts with the paper figure (or section) it reproduces, or says it is new."""
    notebook = jupytext.read(source)
    captions = [cell.metadata["mystnb"]["figure"]["caption"] for cell in notebook.cells
                if "figure" in cell.metadata.get("mystnb", {})]
    unnamed = [c[:60] for c in captions if not c.startswith(CAPTION_SOURCES)]
    assert not unnamed, f"{source.name}: captions must start with one of {CAPTION_SOURCES}: {unnamed}"


def test_parse_assignment():
    assert parse_assignment("seed=3") == ("seed", 3)
    assert parse_assignment("seeds=[0, 1]") == ("seeds", [0, 1])
    assert parse_assignment("schedule=LR") == ("schedule", "LR")


def test_bad_notebook_parameter_stops_with_a_clear_message(tmp_path):
    from lib.book.runner import NotebookFailed, execute

    with pytest.raises(NotebookFailed, match="schedule must be one of \\['ET', 'LR'\\]"):
        execute("00_quickstart", {"schedule": "XX"}, tmp_path)


def test_grid_points_and_folders():
    from lib.book.run_parameters import grid_points, parse_grid, point_folder

    grids = [parse_grid("seed=0,1"), parse_grid("schedule=ET,LR")]
    points = grid_points(grids)
    assert points == [{"seed": 0, "schedule": "ET"}, {"seed": 0, "schedule": "LR"},
                      {"seed": 1, "schedule": "ET"}, {"seed": 1, "schedule": "LR"}]
    assert point_folder(points[1]).startswith("seed-0_schedule-LR_")
    assert len({point_folder(p) for p in points}) == 4
    assert grid_points([]) == [{}]


def test_up_to_date_notebooks_are_not_re_executed(tmp_path, capsys):
    from lib.book.runner import execute, execution_key

    params = {"n_iterations": 100, "n_hidden": 8}
    output = execute("00_quickstart", params, tmp_path)
    first = output.stat().st_mtime_ns
    execute("00_quickstart", params, tmp_path)
    assert output.stat().st_mtime_ns == first
    assert "up to date" in capsys.readouterr().out
    assert execution_key("00_quickstart", params) != execution_key("00_quickstart", {**params, "seed": 1})
    execute("00_quickstart", {**params, "seed": 1}, tmp_path)
    assert output.stat().st_mtime_ns != first


def _code_tree(source: Path):
    """The syntax tree of a notebook's code cells (IPython's % and ! lines left out)."""
    import ast

    code = "\n".join(c.source for c in jupytext.read(source).cells if c.cell_type == "code")
    return ast.parse("\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_notebook_states_a_claim_s_conditions_itself(source):
    """A claim's conditions come from lib (its rule) under the criterion's own names
    (lib.analyses.claims.named_conditions): a notebook that spells out a conditions dict restates a
    verdict rule the registry and its tests cannot see."""
    import ast

    tree = _code_tree(source)
    spelled = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.keyword) and node.arg == "conditions"
               and isinstance(node.value, ast.Dict)]
    assert not spelled, f"{source.name}: conditions written as a dict literal (use claims.named_conditions): {spelled}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_notebook_restates_its_parameters_for_its_record(source):
    """What a chapter records and checks its headline numbers under is its parameters cell as it ran
    (lib.book.summary.ran_with): a dict written out by hand restates every parameter once more
    and drifts when one is added (a record without it, a headline check that raises)."""
    import ast

    tree = _code_tree(source)
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and ast.unparse(node.func) in ("summary.record", "summary.check_headline")]
    by_hand = [node.lineno for node in calls if not (isinstance(node.args[1], ast.Name) and node.args[1].id == "run_parameters"
                                                      or ast.unparse(node.args[1]).startswith("summary.ran_with("))]
    assigned = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assign)
                and any(getattr(t, "id", "") == "run_parameters" for t in node.targets)
                and not ast.unparse(node.value).startswith("summary.ran_with(")]
    assert not by_hand and not assigned, (f"{source.name}: parameters restated by hand for a record or headline check "
                                          f"(use summary.ran_with): lines {by_hand + assigned}")
    named = [ast.literal_eval(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
             and ast.unparse(node.func) in ("summary.ran_with", "summary.record", "summary.check_headline")]
    assert set(named) <= {source.stem}, f"{source.name} records or reads another chapter's parameters: {set(named)}"


def test_ran_with_gives_the_parameters_cell_as_it_ran():
    from lib.book import summary
    from lib.book.notebook_sources import notebook_parameters

    defaults = notebook_parameters("01_one_step_entk")
    namespace = {**defaults, "n_hidden": 7, "unrelated": 1}
    got = summary.ran_with("01_one_step_entk", namespace)
    assert list(got) == list(defaults) and got["n_hidden"] == 7 and "unrelated" not in got
    with pytest.raises(ValueError, match=r"lacks parameters \['seed'\]"):
        summary.ran_with("01_one_step_entk", {k: v for k, v in namespace.items() if k != "seed"})


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_name_a_notebook_takes_from_lib_exists(source):
    """Each ``from lib... import name`` of a notebook and each attribute it reads off an imported lib
    module exists: a function renamed or moved in lib fails here in seconds, not in the quick profile."""
    import ast
    import importlib

    tree = _code_tree(source)
    modules, missing = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lib":
            for alias in node.names:
                value = getattr(importlib.import_module(node.module), alias.name, None)
                if value is None:  # a submodule not yet imported by its package
                    try:
                        value = importlib.import_module(f"{node.module}.{alias.name}")
                    except ModuleNotFoundError:
                        missing.append(f"{node.module}.{alias.name}")
                        continue
                if isinstance(value, type(importlib)):
                    modules[alias.asname or alias.name] = value
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and not hasattr(modules[node.value.id], node.attr):
            missing.append(f"{modules[node.value.id].__name__}.{node.attr} (line {node.lineno})")
    assert not missing, f"{source.name} uses names lib does not have: {missing}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_notebook_imports_lib_from_lib_book_only(source):
    """A chapter takes every name of lib from one place, ``lib.book`` (its modules and its PUBLIC
    names), not from deep paths."""
    import ast

    deep = [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(_code_tree(source))
            if (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lib"
                and node.module != "lib.book")
            or (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "lib" for a in node.names))]
    assert not deep, f"{source.name} imports lib from elsewhere than lib.book: {deep}"


def test_the_public_names_of_lib_book_resolve_and_hide_no_module_of_it():
    import importlib
    import types

    import lib.book as book

    for name, (module, attribute) in book.PUBLIC.items():
        value = getattr(book, name)
        expected = importlib.import_module(module)
        assert value is (expected if attribute is None else getattr(expected, attribute)), name
        assert isinstance(value, types.ModuleType) == (attribute is None), name
    submodules = {p.stem for p in (REPO_ROOT / "lib" / "book").glob("*.py")} - {"__init__"}
    assert not submodules & set(book.PUBLIC), "a public name would hide the lib.book module of that name"
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        book.no_such_name  # noqa: B018


def test_importing_lib_book_imports_none_of_its_public_modules():
    import json
    import subprocess
    import sys

    code = "import json, sys, lib.book; print(json.dumps(sorted(m for m in sys.modules if m.startswith('lib'))))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["lib", "lib.book"]
