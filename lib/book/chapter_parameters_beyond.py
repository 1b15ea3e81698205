"""The checkers of the chapters beyond the paper, 10-13, one per chapter (see
:mod:`lib.book.chapter_parameters`, which maps every chapter to its checker in
:data:`lib.book.chapter_parameters.CHECKERS` and re-exports these).

Chapter 10's rich-lazy continuum (:func:`check_rich_lazy_continuum`), chapter 11's live explorer
(:func:`check_live_explorer`), chapter 12's prediction horizon (:func:`check_prediction_horizon`)
and chapter 13's rival theories (:func:`check_rival_theories`); the checks that chapters 10, 12 and
13 share (the continuum's runs) are in :mod:`lib.book.parameter_checks`. Each checker raises
ValueError naming the parameter, the value and the allowed values.
"""

from __future__ import annotations

import numpy as np

from ..analyses.continuum_points import LR_SELECTION_SEED
from ..analyses.continuum_sweeps import RECORDED_TEST_LOSS, scale_grid
from ..analyses.explorer import check_explorer
from ..analyses.horizon_points import KERNEL_PREDICTORS, RIVAL_PREDICTORS
from ..analyses.within_scale import resampling_bytes
from ..core.validation import (check_choice, check_int, check_learning_rate, check_memory, check_number_list,
                               check_positive_float, check_seeds, check_size, check_workload)
from .parameter_checks import (G_RANGE, Plan, bootstrap_interval_bytes, check_continuum_training,
                               check_converged_continuum, check_converged_replication, check_converged_runs,
                               check_converged_seeds, check_phase_lengths, check_replication_plan,
                               check_schedule_plan, correlation_report_bytes)


# --- 10: the rich-lazy continuum ------------------------------------------------------------------
def _check_scale_grid(g_min, g_max, n_scales) -> None:
    """The log grid of init scales: inside :data:`G_RANGE`, ``n_scales`` distinct values after rounding,
    holding the anchors 1 and 10 where they fall inside [g_min, g_max]."""
    for name, value in (("g_min", g_min), ("g_max", g_max)):
        if not G_RANGE[0] <= check_positive_float(name, value) <= G_RANGE[1]:
            raise ValueError(f"{name} must be a number in [{G_RANGE[0]:g}, {G_RANGE[1]:g}], got {value!r}")
    if not g_min < g_max:
        raise ValueError(f"g_min and g_max must satisfy g_min < g_max, got {g_min!r}, {g_max!r}")
    grid = scale_grid(g_min, g_max, n_scales)
    if len(grid) != n_scales or not all(np.isfinite(g) and g > 0 for g in grid):
        raise ValueError(f"g_min = {g_min!r}, g_max = {g_max!r}, n_scales = {n_scales!r} give {len(grid)} distinct "
                         f"init scales {grid} (the grid is rounded to 4 decimals), not {n_scales}: widen "
                         "[g_min, g_max] or ask for fewer scales")
    missing = [anchor for anchor in (1.0, 10.0) if g_min <= anchor <= g_max and anchor not in grid]
    if missing:
        raise ValueError(f"n_scales = {n_scales} scales between g_min = {g_min!r} and g_max = {g_max!r} cannot hold "
                         f"both anchors 1 and 10 (grid {grid}, missing {missing}): ask for more scales or a narrower "
                         "range")


def check_rich_lazy_continuum(g_min, g_max, n_scales, hidden_scales, n_seeds, n_lr_seeds, lr_candidates, iterations,
                              n_train, n_hidden, n_pairs, first_seeds, robustness_iterations, block_pairs,
                              converged_scales, converged_seeds, converged_iterations, n_resamples,
                              n_permutations, converged_only, converged_first_seed,
                              converged_replication_first_seed) -> Plan:
    """Chapter 10; returns the robustness runs' plan, schedule -> (seeds, n_iterations)."""
    check_choice("converged_only", converged_only, (True, False))
    plan = check_schedule_plan(n_pairs, first_seeds, robustness_iterations, iterations_name="robustness_iterations")
    check_size("n_scales", n_scales, minimum=3, sane_maximum=40)
    check_size("n_seeds", n_seeds, minimum=3, sane_maximum=200)
    check_int("n_seeds", n_seeds, minimum=3, maximum=LR_SELECTION_SEED)  # evaluated seeds stay below the held-out ones
    check_continuum_training(lr_candidates, n_lr_seeds, n_train, n_hidden)
    check_size("n_resamples", n_resamples, minimum=100, sane_maximum=1_000_000)
    check_size("block_pairs", block_pairs, minimum=1, sane_maximum=200)
    _check_scale_grid(g_min, g_max, n_scales)
    check_number_list("hidden_scales", hidden_scales, *G_RANGE)
    check_phase_lengths("iterations", iterations, ("finetune", "lr_choice", "route", "single"),
                        ("finetune", "lr_choice", "route", "single"))
    n_cells = n_scales + len(hidden_scales)
    check_workload(f"the continuum's training work, (n_scales + len(hidden_scales)) x (2 n_seeds x (3 "
                   f"iterations['single'] + iterations['finetune'] + iterations['route']) + len(lr_candidates) x "
                   f"n_lr_seeds x iterations['lr_choice']) x n_train x n_hidden (the defaults: 3.4e10)",
                   n_cells * (2 * n_seeds * (3 * iterations["single"] + iterations["finetune"] + iterations["route"])
                              + len(lr_candidates) * n_lr_seeds * iterations["lr_choice"]) * n_train * n_hidden, 5e11)
    check_size("n_permutations", n_permutations, minimum=99, sane_maximum=1_000_000)
    check_size("converged_seeds", converged_seeds, minimum=3, sane_maximum=200)
    check_int("converged_seeds", converged_seeds, minimum=n_seeds, maximum=LR_SELECTION_SEED)
    check_converged_seeds(converged_first_seed, converged_seeds)
    check_converged_replication(converged_first_seed, converged_replication_first_seed, converged_seeds)
    check_converged_runs(converged_scales, converged_iterations)
    if not {1.0, 10.0} <= {float(g) for g in converged_scales}:
        raise ValueError(f"converged_scales must include 1 and 10, got {converged_scales!r}")
    check_workload(f"the converged continuum's training work, its two blocks (the discovery and the replication "
                   f"block), 2 x len(converged_scales) x converged_seeds x (3 converged_iterations['single'] + "
                   f"converged_iterations['finetune'] + converged_iterations['route']) x n_train x n_hidden (the "
                   f"defaults: 1.2e11)",
                   2 * len(converged_scales) * converged_seeds * (3 * converged_iterations["single"]
                                                              + converged_iterations["finetune"]
                                                              + converged_iterations["route"]) * n_train * n_hidden,
                   5e11)
    largest = max(n_scales * n_seeds, len(hidden_scales) * n_seeds, len(converged_scales) * converged_seeds)
    check_workload("n_resamples x the networks of the largest bootstrap (max(n_scales x n_seeds, len(hidden_scales) x "
                   "n_seeds, len(converged_scales) x converged_seeds, 4 n_pairs); its arrays hold that many numbers)",
                   n_resamples * max(largest, 4 * n_pairs), 2e7)
    check_workload("n_permutations x the networks of the largest setting (max(n_scales x n_seeds, len(hidden_scales) x "
                   "n_seeds, len(converged_scales) x converged_seeds); its permutation array holds that many indices)",
                   n_permutations * largest, 2e7)
    _check_resampling_memory(n_scales, hidden_scales, n_seeds, converged_scales, converged_seeds, n_pairs, n_resamples,
                             n_permutations)
    return plan


def _check_resampling_memory(n_scales, hidden_scales, n_seeds, converged_scales, converged_seeds, n_pairs, n_resamples,
                             n_permutations) -> None:
    """Chapter 10's resamples fit in the memory available, even with ``allow_large``: the within-scale
    tests of each setting (:func:`lib.analyses.within_scale.resampling_bytes`) and the robustness
    pairs' correlation reports (:func:`lib.book.parameter_checks.correlation_report_bytes`)."""
    settings = ((n_scales * n_seeds, n_seeds), (len(hidden_scales) * n_seeds, n_seeds),
                (len(converged_scales) * converged_seeds, converged_seeds))
    within = max(resampling_bytes(n, largest_scale, n_resamples, n_permutations) for n, largest_scale in settings)
    check_memory(f"n_resamples and n_permutations: the within-scale tests' resampling plan, 8 bytes x (n_resamples "
                 f"+ 2 n_permutations) x the networks of the largest setting "
                 f"(lib.analyses.within_scale.resampling_bytes; n_resamples={n_resamples}, "
                 f"n_permutations={n_permutations})", within)
    check_memory(f"n_resamples x the {4 * n_pairs} robustness networks (4 n_pairs), 64 bytes each "
                 f"(lib.book.parameter_checks.correlation_report_bytes)", correlation_report_bytes(4 * n_pairs,
                                                                                                  n_resamples))


# --- 11: the live explorer -----------------------------------------------------------------------
def check_live_explorer(g, seed, schedule, architecture, n_iterations, n_train) -> None:
    """Chapter 11 (one network at init scale ``g``; :func:`lib.analyses.explorer.check_explorer`)."""
    check_explorer(g, seed, schedule, architecture, n_iterations, n_train=n_train)


# --- 12: the prediction horizon --------------------------------------------------------------------
def check_prediction_horizon(converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                             n_lr_seeds, lr_choice_iterations, n_train, n_hidden, fractions, converged_only,
                             n_resamples, pair_first_seeds, pair_iterations, pair_n_pairs, pair_block,
                             pair_fractions, finetune_fractions, pair_replication_first_seeds,
                             converged_first_seed, converged_replication_first_seed) -> tuple[Plan, Plan]:
    """Chapter 12: the converged continuum's parameters (as chapter 10's, whose cached runs it reads),
    the fractions of the single-task phase and the bootstrap size; the paper's pairs (as chapter 05's
    verdict pairs, whose cached runs it reads in chapter 05's blocks of ``pair_block`` pairs) and the
    fractions at which they are observed; the fractions of fine-tuning at which the continuum's networks
    are observed; the pairs' replication block (``pair_n_pairs`` pairs per schedule from
    ``pair_replication_first_seeds``, disjoint from the pairs) and the converged continuum's
    (``converged_seeds`` networks per scale from ``converged_replication_first_seed``, disjoint from
    ``converged_first_seed``'s). Returns (the pairs' plan, their replication block's plan), each
    schedule -> (seeds, n_iterations)."""
    from ..experiments.horizon_snapshots import snapshot_iterations

    check_converged_continuum(converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                              n_lr_seeds, lr_choice_iterations, n_train, n_hidden, converged_only,
                              converged_first_seed)
    check_converged_replication(converged_first_seed, converged_replication_first_seed, converged_seeds)
    check_number_list("fractions", fractions, 0.0, 0.5, increasing=True, min_length=3)
    if float(fractions[0]) != 0.0:
        raise ValueError(f"fractions must start at 0 (t=0), got {fractions!r}")
    if not any(float(f) in RECORDED_TEST_LOSS for f in fractions):
        raise ValueError(f"fractions must include one of {list(RECORDED_TEST_LOSS)}, where the converged continuum "
                         f"recorded its test loss (the snapshots are checked against it), got {fractions!r}")
    snapshot_iterations(fractions, converged_iterations["single"])
    check_size("n_resamples", n_resamples, minimum=100, sane_maximum=100_000)
    n_predictors = len(KERNEL_PREDICTORS) + len(RIVAL_PREDICTORS)
    check_memory(f"n_resamples: the bootstrap of the earliest fraction, 8 bytes x n_resamples x (2 x {n_predictors} "
                 f"predictors + 1) (lib.book.parameter_checks.bootstrap_interval_bytes; n_resamples={n_resamples})",
                 bootstrap_interval_bytes(n_predictors, n_resamples))
    check_workload("the horizon's kernels, 2 blocks (the continuum and its replication) x len(converged_scales) x "
                   "converged_seeds x len(fractions) snapshots, each two eNTKs on n_train x n_train inputs (the "
                   "defaults: 2700 snapshots)", 2 * len(converged_scales) * converged_seeds * len(fractions), 40_000)
    check_size("pair_n_pairs", pair_n_pairs, minimum=4, sane_maximum=200)  # >= 4 networks per group for a within-group r
    check_number_list("finetune_fractions", finetune_fractions, 0.0, 0.5, increasing=True, min_length=2)
    if float(finetune_fractions[0]) != 0.0:
        raise ValueError(f"finetune_fractions must start at 0 (the start of fine-tuning), got {finetune_fractions!r}")
    snapshot_iterations(finetune_fractions, converged_iterations["finetune"], "finetune_fractions")
    pair_plan = check_schedule_plan(pair_n_pairs, pair_first_seeds, pair_iterations, "pair_n_pairs", "pair_first_seeds",
                                    "pair_iterations")
    check_int("pair_block", pair_block, minimum=1, maximum=pair_n_pairs)
    check_number_list("pair_fractions", pair_fractions, 0.0, 0.5, increasing=True, min_length=2)
    if float(pair_fractions[0]) != 0.0:
        raise ValueError(f"pair_fractions must start at 0 (t=0), got {pair_fractions!r}")
    for n_iterations in pair_iterations.values():
        snapshot_iterations(pair_fractions, n_iterations, "pair_fractions")
    check_workload("the pairs' horizon kernels, 2 blocks (the pairs and their replication) x 2 schedules x 2 x "
                   "pair_n_pairs networks x len(pair_fractions) snapshots, each two eNTKs on 500 x 500 inputs and 9 "
                   "eigendecompositions (the defaults: 800)", 8 * pair_n_pairs * len(pair_fractions), 8_000)
    replication_plan = check_replication_plan(pair_plan, pair_replication_first_seeds, pair_n_pairs, pair_iterations,
                                              "pair_replication_first_seeds", "pair_n_pairs")
    return pair_plan, replication_plan


# --- 13: the rival theories ---------------------------------------------------------------------
CONFIRMATORY_FIRST_SEED = 10  # seeds 0-4 were explored before chapter 13's criteria were declared


def check_rival_theories(tp_gains, tp_learning_rates, tp_fit_seeds, tp_test_seeds, tp_steps, tp_width, scales,
                         first_seed, n_seeds, n_fit, learning_rate, n_iterations, n_snapshots, n_hidden,
                         n_train, converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                         n_lr_seeds, lr_choice_iterations, converged_n_train, converged_n_hidden, converged_only,
                         continuum_fit_seeds, continuum_fit_snapshots, converged_first_seed,
                         converged_replication_first_seed) -> None:
    """Chapter 13: the two-point network (gains with one learning rate each, fit and held-out seeds
    distinct and apart, all confirmatory: each seed is one network), the multitask networks (scales,
    seeds first_seed.. of which the first n_fit fit the two-point rates), and the converged continuum
    read from chapter 10's cache (as chapter 12 reads it; ``converged_n_train``,
    ``converged_n_hidden`` are chapter 12's ``n_train``, ``n_hidden``) with the held-out seeds
    ``continuum_fit_seeds`` (outside the analysed seeds of both blocks: ``converged_first_seed``.. and
    the replication block's ``converged_replication_first_seed``..) that fit the two-point rates per
    scale, observed at ``continuum_fit_snapshots`` snapshots."""
    from ..analyses.rival_continuum import check_fit_seeds

    check_converged_continuum(converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                              n_lr_seeds, lr_choice_iterations, converged_n_train, converged_n_hidden,
                              converged_only, converged_first_seed, n_train_name="converged_n_train",
                              n_hidden_name="converged_n_hidden")
    check_converged_replication(converged_first_seed, converged_replication_first_seed, converged_seeds)
    for first_analysed in (converged_first_seed, converged_replication_first_seed):
        check_fit_seeds(continuum_fit_seeds, converged_seeds, "continuum_fit_seeds", "converged_seeds",
                        first_analysed)
    check_size("continuum_fit_snapshots", continuum_fit_snapshots, minimum=3, sane_maximum=1000)
    if converged_iterations["single"] % (continuum_fit_snapshots - 1):
        raise ValueError(f"continuum_fit_snapshots - 1 must divide converged_iterations['single'] "
                         f"({converged_iterations['single']}), got {continuum_fit_snapshots}")
    check_workload("the held-out continuum networks' recorded hidden activity, len(converged_scales) x "
                   "len(continuum_fit_seeds) x continuum_fit_snapshots x 972 patterns x converged_n_hidden numbers "
                   "(the defaults: 9.9e7)", len(converged_scales) * len(continuum_fit_seeds) * continuum_fit_snapshots
                   * 972 * converged_n_hidden, 2e8)
    gains = check_number_list("tp_gains", tp_gains, 0.0, 100.0, increasing=True, min_length=2, include_minimum=False)
    rates = check_number_list("tp_learning_rates", tp_learning_rates, 0.0, 1.0, distinct=False, include_minimum=False)
    if len(rates) != len(gains):
        raise ValueError(f"tp_learning_rates must have one entry per gain ({len(gains)}), got {len(rates)}")
    fit = check_seeds("tp_fit_seeds", tp_fit_seeds, distinct=True)
    test = check_seeds("tp_test_seeds", tp_test_seeds, distinct=True)
    if not fit or not test or set(fit) & set(test) or min(fit + test) < CONFIRMATORY_FIRST_SEED:
        raise ValueError(f"tp_fit_seeds and tp_test_seeds must be non-empty, disjoint and >= "
                         f"{CONFIRMATORY_FIRST_SEED} (confirmatory seeds), got {tp_fit_seeds!r} and {tp_test_seeds!r}")
    check_size("tp_steps", tp_steps, minimum=100, sane_maximum=100_000)
    check_size("tp_width", tp_width, minimum=2, sane_maximum=2000)
    check_number_list("scales", scales, *G_RANGE, increasing=True, min_length=1)
    check_int("first_seed", first_seed, minimum=CONFIRMATORY_FIRST_SEED, maximum=LR_SELECTION_SEED - 1000)
    check_size("n_seeds", n_seeds, minimum=2, sane_maximum=200)
    check_int("n_fit", n_fit, minimum=1, maximum=n_seeds - 1)
    check_learning_rate("learning_rate", learning_rate, maximum=10.0)
    check_size("n_snapshots", n_snapshots, minimum=3, sane_maximum=1000)
    check_size("n_iterations", n_iterations, minimum=n_snapshots - 1, sane_maximum=100_000)
    if n_iterations % (n_snapshots - 1):
        raise ValueError(f"n_iterations must be a multiple of n_snapshots - 1 ({n_snapshots - 1}), got {n_iterations}")
    check_size("n_hidden", n_hidden, minimum=1, sane_maximum=2000)
    check_size("n_train", n_train, minimum=24, sane_maximum=2000)
    check_workload("the multitask networks' recorded hidden activity, len(scales) x n_seeds x n_snapshots x 972 "
                   "patterns x n_hidden numbers (the defaults: 4.8e7)",
                   len(scales) * n_seeds * n_snapshots * 972 * n_hidden, 2e8)
