"""Parameter checks shared by several chapters' checkers, and the constants they check against.

The chapters' checkers live in :mod:`lib.book.chapter_parameters` (chapters 00-09, the paper's
reproduction, and the map :data:`lib.book.chapter_parameters.CHECKERS` of every chapter) and
:mod:`lib.book.chapter_parameters_beyond` (chapters 10-13, beyond the paper); both import from
here, nothing here imports them. Here: :data:`Plan` (the schedule plans that checkers return),
the init-scale and learning-rate ranges (:data:`G_RANGE`, :data:`LR_MAXIMUM`), and the checks of
chapter 10's continuum networks, which chapters 12 and 13 read from its cache
(:func:`check_converged_continuum`, one checker for both, whose messages use each notebook's own
parameter names); the standard/large pairs' schedules under each chapter's names
(:func:`check_schedule_plan`); the memory that resampling counts take: the correlation reports'
resamples (:func:`correlation_report_bytes`), chapter 04's label shuffles (:func:`shuffle_null_bytes`)
and chapter 12's bootstrap (:func:`bootstrap_interval_bytes`). Each check raises ValueError naming the
parameter, the value and the allowed values.
"""

from __future__ import annotations

from ..analyses.continuum_points import LR_SELECTION_SEED
from ..core.validation import (FLOAT32_LR_RANGE, check_choice, check_int, check_learning_rate, check_memory,
                               check_number_list, check_seed, check_size)
from ..experiments.schedules import SCHEDULES, check_schedule_parameters

Plan = dict[str, tuple[tuple[int, ...], int]]  # schedule -> (seeds, n_iterations)

# --- the continuum's init scales and learning rates (chapters 10, 12, 13) -------------------------
G_RANGE = (1e-4, 1e6)  # the grid rounds to 4 decimals; float32 weights and losses stay finite up to 1e6
LR_MAXIMUM = FLOAT32_LR_RANGE[1]  # learning rates are float32 (and at least FLOAT32_LR_RANGE[0], not 0 there)


# --- the paper's standard/large pairs, as several chapters name them ---------------------------------
PLAN_BYTES_PER_PAIR = 200  # 2 schedules x (a tuple's pointer, a Python int, a set's slots): 164 measured at 1e6 pairs


def check_schedule_plan(n_pairs, first_seeds, iterations, n_pairs_name="n_pairs", first_seeds_name="first_seeds",
                        iterations_name="iterations") -> Plan:
    """:func:`lib.experiments.schedules.check_schedule_parameters` (schedule -> (seeds, n_iterations))
    with the chapter's names of its three parameters in the messages (chapter 12's ``pair_n_pairs``,
    ``pair_first_seeds``, ``pair_iterations``, ...), after checking that the plan's seeds fit in the
    memory available (even with --allow-large)."""
    n_pairs = check_int(n_pairs_name, n_pairs, minimum=2)
    check_memory(f"{n_pairs_name}: the plan's seeds, {PLAN_BYTES_PER_PAIR} bytes per pair (each schedule's tuple "
                 f"and set of Python ints)", PLAN_BYTES_PER_PAIR * n_pairs)
    return check_schedule_parameters(n_pairs, first_seeds, iterations, n_pairs_name, first_seeds_name, iterations_name)


def correlation_report_bytes(n_networks: int, n_resamples: int) -> int:
    """Bytes that :func:`lib.analyses.stats.correlation_report` holds at once for ``n_networks``
    networks and ``n_resamples`` resamples: its within-condition permutations' eight (n_resamples,
    n_networks) arrays of 8 bytes (random keys, their argsort, the shuffled predictor and
    :func:`lib.analyses.stats._batch_pearson`'s centred and squared copies)."""
    return 64 * n_resamples * n_networks


STRUCTURE_PATTERNS = 500  # chapter 04's t=0 structure's training patterns (run_initial_structure's n_train)


def shuffle_null_bytes(n_patterns: int, n_groups: int, n_permutations: int, n_columns: int) -> int:
    """Bytes that :func:`lib.analyses.controls.eta_squared_permutation` holds at once for
    ``n_patterns`` labelled patterns in ``n_groups`` groups, ``n_columns`` loading columns and
    ``n_permutations`` label shuffles. Per label set (n_permutations + 1 of them), the larger of two
    moments of :func:`lib.analyses.controls._batch_eta_squared`: while it sums the last column, the
    int64 labels, their bins and the tiled column (24 bytes per pattern) with the group sums (8 bytes
    per group and column) and counts (8 per group); while it divides the sums, the labels and bins
    (16 bytes per pattern) with the sums, their squares and the quotient (24 bytes per group and
    column) and the counts."""
    per_set = max(24 * n_patterns + 8 * n_groups * n_columns, 16 * n_patterns + 24 * n_groups * n_columns)
    return (n_permutations + 1) * (per_set + 8 * n_groups)


def bootstrap_interval_bytes(n_predictors: int, n_resamples: int) -> int:
    """Bytes that :func:`lib.analyses.horizon.earliest_fraction_interval` holds at once for
    ``n_predictors`` predictors and ``n_resamples`` resamples: the (n_resamples, n_predictors)
    float64 first fractions, :func:`numpy.quantile`'s copy of them and its work array of
    n_resamples 8-byte entries."""
    return 8 * n_resamples * (2 * n_predictors + 1)


# --- the continuum's runs, as chapter 10 trains them and chapters 12 and 13 read them -------------
def check_phase_lengths(name, iterations, keys, snapshot_keys) -> None:
    """A dict of phase lengths with exactly ``keys``, each in [10, 100000]; those of ``snapshot_keys``
    multiples of 10 (11 snapshots)."""
    if not isinstance(iterations, dict) or set(iterations) != set(keys):
        raise ValueError(f"{name} must be a dict with the keys {', '.join(sorted(keys))}, got {iterations!r}")
    for key, value in iterations.items():
        check_size(f"{name}[{key!r}]", value, minimum=10, sane_maximum=100_000)
        if key in snapshot_keys and value % 10:
            raise ValueError(f"{name}[{key!r}] must be a multiple of 10 (11 snapshots), got {value}")


def check_continuum_training(lr_candidates, n_lr_seeds, n_train, n_hidden, n_train_name="n_train",
                             n_hidden_name="n_hidden") -> None:
    """The training of chapter 10's continuum networks, which chapters 12 and 13 read from its cache: the
    candidate learning rates ``lr_candidates`` (in :data:`~lib.core.validation.FLOAT32_LR_RANGE`: a
    smaller rate is 0 in float32, a larger one inf), ``n_lr_seeds`` held-out networks per
    candidate (seeds from ``LR_SELECTION_SEED``), ``n_train`` training patterns and ``n_hidden`` hidden
    units; ``n_train_name``, ``n_hidden_name`` are the notebook's names of the last two (chapter 13's
    ``converged_n_train``, ``converged_n_hidden``), used in the messages."""
    rates = check_number_list("lr_candidates", lr_candidates, 0.0, LR_MAXIMUM, include_minimum=False)
    for i, rate in enumerate(rates):
        check_learning_rate(f"lr_candidates[{i}]", rate)
    check_size("n_lr_seeds", n_lr_seeds, minimum=1, sane_maximum=50)
    check_seed("n_lr_seeds: the last held-out seed", LR_SELECTION_SEED + n_lr_seeds - 1)
    check_size(n_train_name, n_train, minimum=24, sane_maximum=2000)
    check_size(n_hidden_name, n_hidden, minimum=1, sane_maximum=2000)


def check_converged_runs(converged_scales, converged_iterations) -> None:
    """The converged continuum's init scales (at least 2 distinct, in :data:`G_RANGE`) and phase lengths
    (``single``, ``finetune`` with 11 snapshots, ``route``)."""
    check_number_list("converged_scales", converged_scales, *G_RANGE, min_length=2)
    check_phase_lengths("converged_iterations", converged_iterations, ("finetune", "route", "single"),
                        ("finetune", "single"))


def check_converged_continuum(converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                              n_lr_seeds, lr_choice_iterations, n_train, n_hidden, converged_only,
                              converged_first_seed, n_train_name="n_train", n_hidden_name="n_hidden") -> None:
    """The converged continuum as chapters 12 and 13 read it from chapter 10's cache: its scales and phase
    lengths, ``converged_seeds`` >= 4 networks per scale (a within-scale r needs 4) computed in blocks of
    ``first_block`` seeds, the learning-rate choice (``lr_choice_iterations`` per candidate), the network
    size (:func:`check_continuum_training`, whose messages use ``n_train_name``, ``n_hidden_name``),
    ``converged_only`` and the seeds (:func:`check_converged_seeds`)."""
    check_converged_runs(converged_scales, converged_iterations)
    check_size("converged_seeds", converged_seeds, minimum=4, sane_maximum=200)
    check_int("converged_seeds", converged_seeds, minimum=4, maximum=LR_SELECTION_SEED)
    check_int("first_block", first_block, minimum=1, maximum=converged_seeds)
    check_size("lr_choice_iterations", lr_choice_iterations, minimum=10, sane_maximum=100_000)
    check_continuum_training(lr_candidates, n_lr_seeds, n_train, n_hidden, n_train_name, n_hidden_name)
    check_choice("converged_only", converged_only, (True, False))
    check_converged_seeds(converged_first_seed, converged_seeds)


def check_converged_seeds(converged_first_seed, converged_seeds) -> None:
    """The converged continuum's seeds ``converged_first_seed``.. (0: the book's; a replication block:
    any other range) stay below the learning-rate selection seeds."""
    check_int("converged_first_seed", converged_first_seed, minimum=0, maximum=LR_SELECTION_SEED - converged_seeds)


def check_converged_replication(converged_first_seed, converged_replication_first_seed, converged_seeds) -> None:
    """The converged continuum's replication block, ``converged_seeds`` networks per scale from
    ``converged_replication_first_seed``: below the learning-rate selection seeds and disjoint from the
    discovery block's seeds (``converged_first_seed``..)."""
    from ..analyses.replication import check_disjoint

    check_int("converged_replication_first_seed", converged_replication_first_seed, minimum=0,
              maximum=LR_SELECTION_SEED - converged_seeds)
    check_disjoint({"converged": range(converged_first_seed, converged_first_seed + converged_seeds)},
                   {"converged": range(converged_replication_first_seed,
                                       converged_replication_first_seed + converged_seeds)},
                   "converged_replication_first_seed")


def check_replication_plan(verdict_plan: Plan, replication_first_seeds, n_replication_pairs, iterations,
                           first_seeds_name: str = "replication_first_seeds",
                           n_pairs_name: str = "n_replication_pairs") -> Plan:
    """The replication block's plan (chapters 05, 06 and 12): ``n_replication_pairs`` pairs per
    schedule from ``replication_first_seeds``, at the verdicts' ``iterations``, with seeds
    disjoint from the discovery block's (``verdict_plan``; :func:`lib.analyses.replication.check_disjoint`).
    ``first_seeds_name``, ``n_pairs_name``: the chapter's names of the two parameters, for the messages."""
    from ..analyses.replication import check_disjoint

    check_size(n_pairs_name, n_replication_pairs, minimum=2, sane_maximum=200)
    replication_plan = check_schedule_plan(n_replication_pairs, replication_first_seeds, iterations,
                                           n_pairs_name=n_pairs_name, first_seeds_name=first_seeds_name)
    check_disjoint({s: seeds for s, (seeds, _) in verdict_plan.items()},
                   {s: seeds for s, (seeds, _) in replication_plan.items()}, first_seeds_name)
    return replication_plan
