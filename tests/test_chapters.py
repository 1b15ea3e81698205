"""The chapter declarations (lib.book.chapters) are the one place a chapter's facts are written:
every table the runner, the concurrency plan, the checks and the verdicts chapter use is derived
from them, and they agree with the notebooks and the table of contents."""

import re

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
