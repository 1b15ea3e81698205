"""The chapter declarations (lib.book.chapters) are the one place a chapter's facts are written:
every table the runner, the concurrency plan, the checks and the verdicts chapter use is derived
from them, and they agree with the notebooks and the table of contents."""

import re

import pytest

from lib.analyses import replication
from lib.book import chapter_parameters, chapters, concurrent_runs, notebook_sources, runner
from lib.core.results import REPO_ROOT


def test_every_notebook_is_declared_once_and_in_the_table_of_contents():
    names = chapters.chapter_names()
    assert len(set(names)) == len(names)
    sources = sorted(p.stem for p in notebook_sources.NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
    assert sorted(names) == sources
    toc = set(re.findall(r"file: book/executed/(\d\d_\w+)", (REPO_ROOT / "_toc.yml").read_text()))
    assert toc == set(names)


def test_the_runner_plan_and_checks_are_derived_from_the_declarations():
    assert notebook_sources.NOTEBOOKS == chapters.chapter_names()
    assert runner.PROFILES["quick"] == chapters.quick_profile()
    assert concurrent_runs.RUNS_AFTER == chapters.runs_after()
    assert concurrent_runs.USES_EVERY_CORE == chapters.every_core_chapters()
    assert {name: f.__name__ for name, f in chapter_parameters.CHECKERS.items()} == {
        c.name: c.checker for c in chapters.CHAPTERS}


def test_every_parameter_is_documented_and_checked_and_nothing_else_is():
    """Each chapter's parameter table documents exactly the names of its parameters cell, each once,
    and its checker takes exactly those (and allow_large where it has one)."""
    import inspect

    for chapter in chapters.CHAPTERS:
        documented = notebook_sources.documented_parameters(chapter.name)
        defaults = notebook_sources.notebook_parameters(chapter.name)
        assert sorted(documented) == sorted(set(documented)) == sorted(defaults), chapter.name
        checker = inspect.signature(chapter_parameters.CHECKERS[chapter.name]).parameters
        assert set(checker) - {"allow_large"} == set(defaults), chapter.name


def test_the_parameter_table_is_read_from_its_dropdown_only(tmp_path, monkeypatch):
    source = tmp_path / "x.py"
    source.write_text("# | `outside` | before the dropdown | any |\n"
                      "# :::{dropdown} Parameters of this chapter\n# | name | meaning | allowed |\n# |---|---|---|\n"
                      "# | `a` | first | integer |\n# | `b`, `c` | two at once, `not_a_name` here | see `d` |\n"
                      "# :::\n# | `after` | after it | any |\n")
    monkeypatch.setattr(notebook_sources, "notebook_source", lambda name: source)
    assert notebook_sources.documented_parameters("x") == ["a", "b", "c"]
    source.write_text("# **Parameters**\n# | `a` | first | integer |\n")
    with pytest.raises(notebook_sources.ParameterError, match="has no ':::{dropdown} Parameters of this chapter'"):
        notebook_sources.documented_parameters("x")


def test_a_chapter_judges_claims_exactly_when_its_notebook_records_them():
    for chapter in chapters.CHAPTERS:
        assert chapter.judges == notebook_sources.writes_summary(chapter.name), chapter.name


def test_the_verdicts_chapter_collects_every_judging_chapter_by_default():
    default = notebook_sources.notebook_parameters("07_reproduction_summary")["chapters"]
    collected = chapter_parameters.check_reproduction_summary(default)
    assert collected == sorted(c.name for c in chapters.CHAPTERS if c.judges)
    assert "08_entk_over_training" in collected and "00_quickstart" not in collected


def test_a_chapter_reads_only_declared_chapters_that_start_before_it():
    names = chapters.chapter_names()
    for chapter in chapters.CHAPTERS:
        for other in chapter.reads:
            assert other == "*" or names.index(other) < names.index(chapter.name), (chapter.name, other)


THROWAWAY = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A throwaway chapter

# %% tags=["parameters"]
a = 1
b = 2

# %% tags=["remove-cell"]
from lib.book.chapter_parameters import check_throwaway

check_throwaway(a, b)

# %%
print("sum", a + b)
'''


def test_a_new_chapter_is_its_notebook_its_declaration_and_its_toc_line(tmp_path):
    """A chapter added to a copy of the code by only these three (and the checker its declaration
    names) runs in the quick profile with its quick values, and its checker refuses a bad value
    before any kernel starts."""
    import shutil
    import subprocess
    import sys

    from tests.test_faults import copy_of_code

    root = copy_of_code(tmp_path)
    shutil.copytree(REPO_ROOT / "notebooks", root / "notebooks")
    (root / "notebooks" / "99_throwaway.py").write_text(THROWAWAY)
    (root / "_toc.yml").write_text((REPO_ROOT / "_toc.yml").read_text() + "      - file: book/executed/99_throwaway\n")
    declarations = root / "lib" / "book" / "chapters.py"
    declarations.write_text(declarations.read_text().replace(
        '    Chapter("07_reproduction_summary",', '    Chapter("99_throwaway", "check_throwaway", quick={"b": 5}),\n'
        '    Chapter("07_reproduction_summary",'))
    checkers = root / "lib" / "book" / "chapter_parameters.py"
    checkers.write_text(checkers.read_text().replace("CHECKERS = {", 'def check_throwaway(a, b) -> None:\n'
                                                     '    check_int("a", a, minimum=0)\n    check_int("b", b)\n\n\n'
                                                     'CHECKERS = {'))
    env = {**__import__("os").environ, "PYTHONPATH": str(root)}
    run = lambda *extra: subprocess.run([sys.executable, "-m", "lib.book.runner", "--profile", "quick", "--only",
                                         "99_throwaway", "--output-dir", str(tmp_path / "out"), *extra], cwd=root,
                                        env=env, capture_output=True, text=True, timeout=300)
    done = run()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert '"sum 6' in (tmp_path / "out" / "99_throwaway.ipynb").read_text()  # a = 1 and the quick profile's b = 5
    refused = run("-p", "a=-1")  # the right type, refused by the chapter's own checker
    assert refused.returncode == 2 and "99_throwaway: a must be" in refused.stdout + refused.stderr


def _assert_each_chapter_gives_the_group(declaration: dict, names_by_chapter: dict) -> None:
    """Each chapter's defaults (its parameters cell) and quick profile give every entry of a shared
    parameter group ``declaration`` (entry -> (book, quick)) under its names (entry -> parameter)."""
    quick = chapters.quick_profile()
    for chapter, names in names_by_chapter.items():
        defaults = notebook_sources.notebook_parameters(chapter)
        quick_parameters = {**defaults, **quick[chapter]}
        assert set(names) <= set(declaration), chapter
        for entry, name in names.items():
            book, fast = declaration[entry]
            assert _at(defaults, name) == book, (chapter, name)
            assert _at(quick_parameters, name) == fast, (chapter, name, "quick")


def _at(parameters: dict, name: str):
    """A parameter's value, or a key of a dict parameter ("iterations.lr_choice")."""
    head, _, key = name.partition(".")
    return parameters[head][key] if key else parameters[head]


def test_the_chapters_that_share_the_converged_continuum_give_it_the_declared_parameters_in_both_profiles():
    """Chapter 10 trains the converged continuum and chapters 12 and 13 read it from the cache: a
    parameter that differed in one of them would make it train, or wait for, another continuum."""
    assert set(chapters.CONVERGED_NAMES) == {"10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories"}
    _assert_each_chapter_gives_the_group(chapters.CONVERGED_CONTINUUM, chapters.CONVERGED_NAMES)
    # the continuum's replication block is the declared one, and every chapter that judges it has it
    declared = replication.CONTINUUM_SAMPLE.replication_first_seeds["converged"]
    assert chapters.CONVERGED_CONTINUUM["converged_replication_first_seed"] == (declared, declared)
    for claim in ("sharing-new-task", "rival-continuum-similarity"):
        assert replication.DECLARED[claim].replication_first_seeds["converged"] == declared
    assert {c for c, names in chapters.CONVERGED_NAMES.items() if "converged_replication_first_seed" in names} == {
        "10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories"}


def test_the_chapters_that_share_the_paper_pairs_give_them_the_declared_parameters_in_both_profiles():
    """Chapter 10 trains the paper's verdict pairs, chapter 05 reads them and trains their replication
    block, chapters 06 and 12 read both, each in cached blocks of the figures' pairs: a parameter that
    differed in one of them, in either profile, would make it train the pairs again (in the quick
    profile, chapter 12 did, with blocks of 4 pairs against chapter 05's 3)."""
    assert set(chapters.PAPER_PAIR_NAMES) == {"05_multitask_performance", "06_correlation_analysis",
                                              "10_rich_lazy_continuum", "12_prediction_horizon"}
    _assert_each_chapter_gives_the_group(chapters.PAPER_PAIRS, chapters.PAPER_PAIR_NAMES)
    # the pairs' blocks are the declared samples of the correlation, performance and horizon-pair claims
    for sample in (replication.CORRELATION_SAMPLE, replication.PERFORMANCE_SAMPLE, replication.HORIZON_PAIRS_SAMPLE):
        assert chapters.PAPER_PAIRS["first_seeds"][0] == sample.discovery_first_seeds
        assert chapters.PAPER_PAIRS["replication_first_seeds"][0] == sample.replication_first_seeds
        assert chapters.PAPER_PAIRS["n_replication_pairs"][0] == sample.n_pairs

