"""One declaration per chapter: what the runner, its concurrency plan, the parameter checks and the
verdicts chapter need to know about it, written once.

Book layer, imported by :mod:`lib.book.notebook_sources`, :mod:`lib.book.concurrent_runs`,
:mod:`lib.book.runner` and :mod:`lib.book.chapter_parameters`, importing nothing of ``lib``. A chapter
is its notebook ``notebooks/<name>.py`` (narrative, parameters cell with the defaults, calls and
figures), its :class:`Chapter` here and its line in ``_toc.yml``; everything else about it (the
runner's order and quick profile, which chapters must finish first, which run alone, its parameter
checker, whether the verdicts page collects its claims) is derived from :data:`CHAPTERS`. Parameters
that several chapters must give alike (they read each other's cached results) are declared once as a
group, with each chapter's name for each entry: :data:`CONVERGED_CONTINUUM` and :data:`PAPER_PAIRS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Chapter(NamedTuple):
    """A chapter of the book: ``name``, its notebook ``notebooks/<name>.py``; ``checker``, the
    function of :mod:`lib.book.chapter_parameters` that checks its parameters (the notebook calls
    it in the cell after its ``parameters`` cell); ``quick``, the parameters that override its
    defaults in the quick profile (``make test``, which exercises every code path in little time,
    not meaningful numbers); ``reads``, the chapters whose results it reads (results-cache entries
    or summary records), so it starts after them when they run in the same output folder
    (``("*",)``: every other one); ``every_core``, whether it keeps every core busy for most of its
    run (Dask sweeps with one worker per core, or numba training on every core), so it runs alone;
    ``judges``, whether it judges claims (writes a summary record), so the verdicts chapter
    collects them; ``reports_times``, whether its page reports measured times (speeds, or how long
    its computations took), so it never runs in the runner's background, where it would time what
    gets only the CPU time others leave idle."""

    name: str
    checker: str
    quick: Mapping[str, object] = {}
    reads: tuple[str, ...] = ()
    every_core: bool = False
    judges: bool = False
    reports_times: bool = False


# The converged continuum: chapter 10 trains it, chapters 12 and 13 read it from the results cache, so
# the three must give it the same parameters. Declared once here, as (the book's value, the quick
# profile's); each chapter's parameters cell holds the book's values as literals (papermill reads
# them there) under the names CONVERGED_NAMES gives, and tests/test_chapters.py checks both against
# this declaration.
CONVERGED_CONTINUUM: dict[str, tuple[object, object]] = {
    "converged_scales": ([0.3246, 1.0, 3.42, 10.0, 20.0], [1.0, 10.0]),
    "converged_seeds": (30, 4),
    "first_block": (14, 3),  # the first networks per scale, shared with chapter 10's short run
    "converged_iterations": ({"single": 2500, "finetune": 2500, "route": 200}, {"single": 100, "finetune": 50,
                                                                              "route": 50}),
    "lr_candidates": ([0.01, 0.03, 0.1], [0.01, 0.1]),
    "n_lr_seeds": (2, 1),
    "lr_choice_iterations": (500, 100),
    "n_train": (200, 200),
    "n_hidden": (200, 200),
    "converged_only": (True, False),  # the one convergence filter (the quick profile's runs are too short)
    "converged_first_seed": (0, 0),  # the networks' first seed: another value gives a disjoint replication block
    # the first seed of its declared replication block (lib.analyses.replication.CONTINUUM_SAMPLE), which
    # chapter 10 trains and chapters 10, 12 and 13 judge
    "converged_replication_first_seed": (3000, 3000),
}
# chapter -> the parameter (or "parameter.key" of a dict parameter) that holds each entry there
CONVERGED_NAMES: dict[str, dict[str, str]] = {
    "10_rich_lazy_continuum": {**{k: k for k in CONVERGED_CONTINUUM}, "first_block": "n_seeds",
                               "lr_choice_iterations": "iterations.lr_choice"},
    "12_prediction_horizon": {k: k for k in CONVERGED_CONTINUUM},
    "13_rival_theories": {**{k: k for k in CONVERGED_CONTINUUM},
                          "n_train": "converged_n_train",
                          "n_hidden": "converged_n_hidden"},
}


# The paper's standard/large pairs: chapter 10 trains the verdict pairs (its robustness block), chapter
# 05 reads them and trains the replication block, chapters 06 and 12 read both from the results cache,
# in blocks of the figures' pairs, so the four must give them the same parameters (a block of another
# size or seeds is another cache entry, trained again). Declared once here, as CONVERGED_CONTINUUM is.
PAPER_PAIRS: dict[str, tuple[object, object]] = {
    "block_pairs": (10, 3),  # the figures' pairs, and the pairs per cached block of schedule runs
    "n_verdict_pairs": (50, 6),  # pairs per schedule of the verdicts' discovery block
    "n_replication_pairs": (50, 6),  # pairs per schedule of their replication block
    "iterations": ({"ET": 10000, "LR": 2500}, {"ET": 1000, "LR": 500}),
    "first_seeds": ({"ET": 0, "LR": 100}, {"ET": 0, "LR": 100}),
    "replication_first_seeds": ({"ET": 1000, "LR": 1100}, {"ET": 1000, "LR": 1100}),
}
_PERFORMANCE_PAIR_NAMES = {**{k: k for k in PAPER_PAIRS}, "block_pairs": "n_pairs"}
PAPER_PAIR_NAMES: dict[str, dict[str, str]] = {
    "05_multitask_performance": _PERFORMANCE_PAIR_NAMES,
    "06_correlation_analysis": _PERFORMANCE_PAIR_NAMES,
    "10_rich_lazy_continuum": {"block_pairs": "block_pairs", "n_verdict_pairs": "n_pairs",
                               "iterations": "robustness_iterations", "first_seeds": "first_seeds"},
    # chapter 12 judges a replication block as large as its discovery block
    "12_prediction_horizon": {"block_pairs": "pair_block", "n_verdict_pairs": "pair_n_pairs",
                              "n_replication_pairs": "pair_n_pairs", "iterations": "pair_iterations",
                              "first_seeds": "pair_first_seeds",
                              "replication_first_seeds": "pair_replication_first_seeds"},
}


def shared_quick(declaration: Mapping[str, tuple[object, object]], names: Mapping[str, str]) -> dict[str, object]:
    """The quick-profile overrides of a shared parameter group ``declaration`` (entry -> (the book's
    value, the quick profile's)) under a chapter's ``names`` (entry -> parameter): the entries whose
    quick value differs from the book's; names of a dict parameter's key are left to the chapter."""
    return {names[k]: quick for k, (book, quick) in declaration.items()
            if k in names and quick != book and "." not in names[k]}


def converged_quick(chapter: str) -> dict[str, object]:
    """The quick-profile overrides of the converged continuum under ``chapter``'s names."""
    return shared_quick(CONVERGED_CONTINUUM, CONVERGED_NAMES[chapter])


def pairs_quick(chapter: str) -> dict[str, object]:
    """The quick-profile overrides of the paper's pairs under ``chapter``'s names."""
    return shared_quick(PAPER_PAIRS, PAPER_PAIR_NAMES[chapter])


# in the order the runner runs them one at a time (each after the chapters it reads: 02 before 03, the
# verdicts last); with --jobs, lib.book.concurrent_runs.start_order offers the free cores first to the
# longest chain of chapters that read each other's results, this order breaking ties
CHAPTERS: tuple[Chapter, ...] = (
    Chapter("10_rich_lazy_continuum", "check_rich_lazy_continuum",
            quick={"n_scales": 3, "hidden_scales": [10.0], **converged_quick("10_rich_lazy_continuum"),
                   "iterations": {"single": 100, "finetune": 50, "route": 50, "lr_choice": 100},
                   **pairs_quick("10_rich_lazy_continuum"), "n_resamples": 200, "n_permutations": 199},
            every_core=True,
            judges=True),
    Chapter("08_entk_over_training", "check_entk_over_training",
            quick={"n_pairs": 2, "iterations": {"ET": 1000, "LR": 500}, "n_snapshots": 11,
                   "node_every": {"ET": [[200, 1], [1000, 20]], "LR": [[100, 1], [500, 10]]},
                   "n_points": 4, "check_rows": 8,
                   "check_iterations": {"ET": 200, "LR": 100}, "n_halvings": 2,
                   "convergence_iterations": 20},
            judges=True,
            reports_times=True),  # how long its kernels took
    Chapter("04_multitask_representations", "check_multitask_representations",
            quick={"n_iterations": 1000, "n_entk_pairs": 3, "n_ari_pairs": 2},
            judges=True),
    Chapter("13_rival_theories", "check_rival_theories",
            quick={"tp_gains": [0.6, 1.2, 2.5], "tp_learning_rates": [0.02, 0.005, 0.0004],
                   "tp_fit_seeds": [10], "tp_test_seeds": [11, 12], "tp_steps": 3000, "tp_width": 50,
                   "scales": [0.3246, 3.42], "n_seeds": 4, "n_fit": 1, "n_iterations": 1000,
                   "n_snapshots": 21, **converged_quick("13_rival_theories"),
                   "continuum_fit_snapshots": 11},
            reads=("10_rich_lazy_continuum",),  # the converged continuum
            judges=True),
    Chapter("02_smg_validation", "check_smg_validation",
            quick={"n_sweep_seeds": 3},
            judges=True),
    Chapter("03_epntk", "check_epntk",
            quick={"n_halvings": 2},
            reads=("02_smg_validation",),  # its SMG runs (smg_run entries)
            judges=True),
    Chapter("05_multitask_performance", "check_multitask_performance",
            quick=pairs_quick("05_multitask_performance"),
            reads=("10_rich_lazy_continuum",),  # the schedule runs of the verdict pairs
            judges=True),
    Chapter("09_your_own_network", "check_your_own_network",
            quick={"mlp_width": 16, "n_regression": 10, "n_images": 16, "n_iterations": 200,
                   "n_multitask_patterns": 50},
            reports_times=True),  # lib's eNTK against neural-tangents
    Chapter("00_quickstart", "check_quickstart",
            quick={"n_iterations": 500}),
    Chapter("01_one_step_entk", "check_one_step_entk",
            quick={"n_iterations": 200, "n_learning_rates": 4},
            judges=True),
    Chapter("11_explorer", "check_live_explorer",
            quick={"n_iterations": 100},
            reports_times=True),  # a warm kernel's redraw time
    Chapter("06_correlation_analysis", "check_correlation_analysis",
            quick={**pairs_quick("06_correlation_analysis"), "n_resamples": 500},
            reads=("04_multitask_representations", "05_multitask_performance"),  # the t=0 structure; the pairs
            every_core=True,
            judges=True),
    Chapter("12_prediction_horizon", "check_prediction_horizon",
            quick={**converged_quick("12_prediction_horizon"),
                   "fractions": [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
                   "n_resamples": 100, **pairs_quick("12_prediction_horizon"), "finetune_fractions": [0.0, 0.1]},
            # the converged continuum; the pairs' t=0 structure
            reads=("10_rich_lazy_continuum", "06_correlation_analysis"),
            every_core=True,
            judges=True),
    Chapter("07_reproduction_summary", "check_reproduction_summary",
            quick={},
            reads=("*",)),  # the summary records of every other chapter

)


def chapter_names() -> tuple[str, ...]:
    """Every chapter's name, in the runner's start order."""
    return tuple(c.name for c in CHAPTERS)


def judging_chapters() -> list[str]:
    """The chapters that judge claims, in book order: the verdicts chapter's default."""
    return sorted(c.name for c in CHAPTERS if c.judges)


def quick_profile() -> dict[str, dict]:
    """Each chapter's quick-profile parameters."""
    return {c.name: dict(c.quick) for c in CHAPTERS if c.quick}


def runs_after() -> dict[str, tuple[str, ...]]:
    """For each chapter that reads others' results, those chapters (``"*"``: every other one)."""
    return {c.name: c.reads for c in CHAPTERS if c.reads}


def every_core_chapters() -> frozenset[str]:
    """The chapters that keep every core busy and run alone."""
    return frozenset(c.name for c in CHAPTERS if c.every_core)


def timing_chapters() -> frozenset[str]:
    """The chapters whose pages report measured times: never run in the background."""
    return frozenset(c.name for c in CHAPTERS if c.reports_times)
