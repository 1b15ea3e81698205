"""The checks of every chapter's parameters, one checker per chapter, run before any work starts.

Each notebook's first code cell after its ``parameters`` cell calls its chapter's checker once,
through :func:`check_chapter` (``check_chapter(name, globals())``, which passes the checker the
parameters it names); the runner executes that cell for every planned run before the first
notebook starts (:func:`lib.book.run_parameters.check_ranges`), so a bad value stops the whole run
at once. A checker raises ValueError naming the parameter, the value and the allowed values; sizes above a
chapter's sane maximum (hours of computation) pass only with ``allow_large`` (None: the runner's
``--allow-large``), sizes above a hard maximum never. :data:`CHECKERS` maps each notebook to its
checker and :func:`check_chapter` calls it with a dict of the notebook's parameters.

What lives where: the checkers of chapters 00-09 (the paper's reproduction) are here; those of
chapters 10-13 (beyond the paper) are in :mod:`lib.book.chapter_parameters_beyond` and the checks
and constants several chapters share in :mod:`lib.book.parameter_checks`. Every checker is
importable from here; imports point one way: this module -> ``chapter_parameters_beyond`` ->
``parameter_checks``.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Mapping
from typing import NamedTuple

from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import LARGE_SCALINGS
from ..core.tasks import ARCHITECTURES, SPLITS, TaskEnvironment
from ..core.validation import (check_choice, check_int, check_keys, check_learning_rate, check_memory,
                               check_positive_float, check_seed, check_size, check_workload, large_runs)
from ..experiments.epntk_stream import PATH_KERNELS, node_count, node_phases, truncate_phases
from ..experiments.kernel_dynamics import pair_kernel_data
from ..experiments.schedules import SCHEDULES
from .chapters import CHAPTERS, judging_chapters
from .chapter_parameters_beyond import (CONFIRMATORY_FIRST_SEED,  # noqa: F401 (re-exported: chapter 13's seeds)
                                        check_live_explorer, check_prediction_horizon, check_rich_lazy_continuum,
                                        check_rival_theories)
from .parameter_checks import (G_RANGE, LR_MAXIMUM, Plan,  # noqa: F401 (G_RANGE, LR_MAXIMUM: re-exported)
                               STRUCTURE_PATTERNS, check_replication_plan, check_schedule_plan,
                               correlation_report_bytes, shuffle_null_bytes)


# --- 00, 01: the quickstart and the one-step eNTK -------------------------------------------------
def check_quickstart(seed, schedule, n_iterations, n_hidden, entk_variant) -> None:
    """Chapter 00 (one standard/large pair)."""
    check_seed("seed", seed)
    check_choice("schedule", schedule, SCHEDULES)
    check_size("n_iterations", n_iterations, minimum=100, sane_maximum=100_000)
    if n_iterations % 100:
        raise ValueError(f"n_iterations must be a multiple of 100 (the run records 101 snapshots), got {n_iterations}")
    check_size("n_hidden", n_hidden, minimum=1, sane_maximum=5000)
    check_choice("entk_variant", entk_variant, ENTK_VARIANTS)


def check_one_step_entk(seed, n_hidden, n_train, learning_rate, n_iterations, n_learning_rates) -> None:
    """Chapter 01 (the eNTK's prediction of one gradient step)."""
    check_seed("seed", seed)
    check_size("n_hidden", n_hidden, minimum=1, sane_maximum=5000)
    check_size("n_train", n_train, minimum=1, sane_maximum=10_000)
    check_learning_rate("learning_rate", learning_rate)
    check_size("n_iterations", n_iterations, minimum=1, sane_maximum=1_000_000)
    check_size("n_learning_rates", n_learning_rates, minimum=3, sane_maximum=20)


# --- 02, 03: singular mode gradient descent (SMG) --------------------------------------------------
def check_smg_parameters(seed, learning_rate, n_iterations, record_every, analysis_times, n_sweep_seeds=None,
                         allow_large=None) -> None:
    """The SMG chapters' shared parameters; ``n_sweep_seeds`` (chapter 02's half-time sweep) when given.

    * ``learning_rate`` in (0, P N_out / (2 s_1)) = (0, 6.94) for the default problem (250
      patterns, 5 outputs, s_1 = 90): above it gradient descent oscillates or diverges instead of
      following SMG's dynamics;
    * ``n_iterations`` a multiple of ``record_every`` (and of 10, the half-time sweep's record
      spacing, when ``n_sweep_seeds`` is given), at most 100 000 and 10 000 recorded states unless
      ``allow_large``;
    * ``analysis_times`` two recorded iterations t1 < t2 (the paper's mode-1 time, then its mode-2
      time: the chapters label, compare and judge them in that order).
    """
    check_seed("seed", seed)
    n_samples, n_outputs, largest = 250, 5, 90.0  # make_smg_problem's defaults, which the chapters use
    limit = n_samples * n_outputs / (2 * largest)
    check_positive_float("learning_rate", learning_rate)
    if learning_rate >= limit:
        raise ValueError(f"learning_rate must be in (0, {limit:.3g}) (P * N_out / (2 s_1) = {n_samples} * "
                         f"{n_outputs} / (2 * {largest:g}): above it gradient descent oscillates or diverges), "
                         f"got {learning_rate!r}")
    check_size("record_every", record_every, minimum=1, sane_maximum=100_000, allow_large=allow_large)
    check_size("n_iterations", n_iterations, minimum=record_every, sane_maximum=100_000, allow_large=allow_large)
    if n_iterations % record_every:
        raise ValueError(f"n_iterations must be a multiple of record_every ({record_every}), got {n_iterations}")
    check_workload("n_iterations / record_every (recorded states, each analysed with the eNTK)",
                   n_iterations // record_every, 10_000, allow_large)
    if n_sweep_seeds is not None:
        check_size("n_sweep_seeds", n_sweep_seeds, minimum=1, sane_maximum=500, allow_large=allow_large)
        if n_iterations % 10:
            raise ValueError(f"n_iterations must be a multiple of 10 (the half-time sweep records every 10 "
                             f"iterations), got {n_iterations}")
    allowed = (f"two recorded iterations [t1, t2] with t1 < t2 (integers, multiples of record_every = {record_every} "
               f"in {record_every}..{n_iterations})")
    if (not isinstance(analysis_times, (list, tuple)) or len(analysis_times) != 2
            or any(isinstance(t, bool) or not isinstance(t, numbers.Integral) or t % record_every
                   or not 0 < t <= n_iterations for t in analysis_times)):
        raise ValueError(f"analysis_times must be {allowed}, got {analysis_times!r}")
    if not analysis_times[0] < analysis_times[1]:
        raise ValueError(f"analysis_times must be {allowed}: the first is the paper's mode-1 time (190), the second "
                         f"its mode-2 time (770), and the chapters label and judge them in that order; got "
                         f"{analysis_times!r}")


def check_smg_validation(seed, learning_rate, n_iterations, record_every, analysis_times, n_sweep_seeds,
                         allow_large=None) -> None:
    """Chapter 02 (:func:`check_smg_parameters` with the half-time sweep)."""
    check_smg_parameters(seed, learning_rate, n_iterations, record_every, analysis_times, n_sweep_seeds, allow_large)


def check_epntk(seed, learning_rate, n_iterations, record_every, analysis_times, n_halvings,
                allow_large=None) -> None:
    """Chapter 03 (:func:`check_smg_parameters` and the ePNTK's learning-rate halvings)."""
    check_smg_parameters(seed, learning_rate, n_iterations, record_every, analysis_times, allow_large=allow_large)
    check_size("n_halvings", n_halvings, minimum=2, sane_maximum=6, allow_large=allow_large)


# --- 04, 05, 06: the multitask chapters ------------------------------------------------------------
def check_multitask_representations(architecture, schedule, n_iterations, n_entk_pairs, n_ari_pairs, first_seed,
                                    show_swapped_architecture, n_swapped_pairs, n_permutations) -> None:
    """Chapter 04 (representations of one schedule's pairs, and of the swapped architecture)."""
    check_choice("architecture", architecture, ARCHITECTURES)
    check_choice("schedule", schedule, SCHEDULES)
    check_size("n_iterations", n_iterations, minimum=100, sane_maximum=100_000)
    if n_iterations % 100:
        raise ValueError(f"n_iterations must be a multiple of 100 (101 snapshots), got {n_iterations}")
    check_size("n_entk_pairs", n_entk_pairs, minimum=2, sane_maximum=200)
    check_int("n_ari_pairs", n_ari_pairs, minimum=2, maximum=n_entk_pairs)
    check_size("n_ari_pairs", n_ari_pairs, minimum=2, sane_maximum=100)
    check_seed("first_seed", first_seed)
    check_seed("first_seed + n_entk_pairs - 1", first_seed + n_entk_pairs - 1)
    check_choice("show_swapped_architecture", show_swapped_architecture, (True, False))
    check_size("n_swapped_pairs", n_swapped_pairs, minimum=2, sane_maximum=100)
    check_size("n_permutations", n_permutations, minimum=100, sane_maximum=100_000)
    env = TaskEnvironment(*ARCHITECTURES[architecture])
    n_groups = max(env.n_stimulus_units, env.n_tasks)  # the null's groupings: routed input unit, task
    check_memory(f"n_permutations: the shuffled-label null of one network, (n_permutations + 1) label sets of "
                 f"{STRUCTURE_PATTERNS} patterns in {n_groups} groups with {env.n_outputs} loading columns "
                 f"(lib.book.parameter_checks.shuffle_null_bytes; n_permutations={n_permutations})",
                 shuffle_null_bytes(STRUCTURE_PATTERNS, n_groups, n_permutations, env.n_outputs))


def check_multitask_performance(n_pairs, n_verdict_pairs, first_seeds, iterations, split, large_scaling,
                                replication_first_seeds, n_replication_pairs) -> tuple[Plan, Plan, Plan]:
    """Chapter 05; returns (the figures' plan, the verdicts' discovery plan, their replication plan),
    each schedule -> (seeds, n_iterations)."""
    plan = check_schedule_plan(n_pairs, first_seeds, iterations)
    check_int("n_verdict_pairs", n_verdict_pairs, minimum=n_pairs)
    verdict_plan = check_schedule_plan(n_verdict_pairs, first_seeds, iterations, n_pairs_name="n_verdict_pairs")
    check_choice("split", split, SPLITS)
    check_choice("large_scaling", large_scaling, LARGE_SCALINGS)
    return plan, verdict_plan, check_replication_plan(verdict_plan, replication_first_seeds, n_replication_pairs,
                                                      iterations)


def check_correlation_analysis(n_pairs, first_seeds, iterations, n_resamples, split, large_scaling, compare_choices,
                               n_verdict_pairs, replication_first_seeds, n_replication_pairs) -> tuple[Plan, Plan, Plan]:
    """Chapter 06; returns (the figures' plan, the verdicts' discovery plan, their replication plan),
    each schedule -> (seeds, n_iterations)."""
    plan = check_schedule_plan(n_pairs, first_seeds, iterations)
    check_size("n_resamples", n_resamples, minimum=100, sane_maximum=1_000_000)
    check_choice("split", split, SPLITS)
    check_choice("large_scaling", large_scaling, LARGE_SCALINGS)
    check_choice("compare_choices", compare_choices, (True, False))
    check_size("n_verdict_pairs", n_verdict_pairs, minimum=n_pairs, sane_maximum=200)
    verdict_plan = check_schedule_plan(n_verdict_pairs, first_seeds, iterations, n_pairs_name="n_verdict_pairs")
    replication_plan = check_replication_plan(verdict_plan, replication_first_seeds, n_replication_pairs, iterations)
    check_memory(f"n_resamples x the {4 * max(n_verdict_pairs, n_replication_pairs)} networks of the pooled verdict "
                 f"correlations (4 n_verdict_pairs or 4 n_replication_pairs), 64 bytes each "
                 f"(lib.book.parameter_checks.correlation_report_bytes)",
                 correlation_report_bytes(4 * max(n_verdict_pairs, n_replication_pairs), n_resamples))
    return plan, verdict_plan, replication_plan


# --- 07: the reproduction summary -----------------------------------------------------------------
def check_reproduction_summary(chapters) -> list[str]:
    """Chapter 07: ``chapters`` None (every chapter that judges claims, :func:`lib.book.chapters.judging_chapters`)
    or a non-empty list of the book's notebook names; returns the list."""
    from .notebook_sources import NOTEBOOKS

    if chapters is None:
        return judging_chapters()
    if not isinstance(chapters, list) or not chapters or any(c not in NOTEBOOKS for c in chapters):
        raise ValueError(f"chapters must be None (every chapter that judges claims) or a non-empty list of notebook "
                         f"names from {list(NOTEBOOKS)}, got {chapters!r}")
    return chapters


# --- 08: the eNTK over training -------------------------------------------------------------------
# size limits: above a sane maximum only with allow_large, above a hard maximum never (the computation breaks)
SANE_SNAPSHOTS, SANE_POINTS, MAX_POINTS, MAX_ROWS = 1001, 32, 256, 1000  # rows: 500 training + 500 test inputs
SANE_HALVINGS, SANE_CONVERGENCE_ITERATIONS, SANE_CONVERGENCE_STEPS = 10, 10_000, 100_000
MAX_STEPS = 2**31 - 1  # JAX counts the steps of a run in int32
SANE_KERNEL_WORK = 5e8  # networks x (nodes + snapshots) x kernel rows x points: ~28x the book's 1.8e7


class KernelDynamicsPlan(NamedTuple):
    """One schedule's runs in chapter 08: the main run and the checks' shorter run."""

    seeds: tuple[int, ...]  # pair seeds
    n_iterations: int  # gradient steps of the main run
    phases: tuple[tuple[int, int], ...]  # node phases ((until, spacing), ...) of the main run
    check_iterations: int  # gradient steps of the quadrature check
    check_phases: tuple[tuple[int, int], ...]  # the node phases cut at check_iterations
    check_snapshots: int  # snapshots of the quadrature check (the main run's spacing)


def missing_task_rows(env: TaskEnvironment, seeds, n_rows: int | None) -> list[tuple[int, str]]:
    """(pair seed, index set) whose first ``n_rows`` kernel rows
    (:func:`lib.experiments.kernel_dynamics.pair_kernel_data`) lack a task: the chapter's task
    statistics need every task among the rows of each index set."""
    if n_rows is None:
        return []
    data = pair_kernel_data(env, tuple(seeds), n_rows=n_rows)
    return [(seed, ENTK_VARIANTS[i]) for p, seed in enumerate(seeds) for i in range(len(ENTK_VARIANTS))
            if (data["row_average"][p, i].sum(axis=1) == 0).any()]


def _check_convergence_study(n_halvings, convergence_iterations, allow_large) -> None:
    """The convergence study doubles its every-step run ``n_halvings - 1`` times: bounded per run and in total."""
    check_size("n_halvings", n_halvings, minimum=2, sane_maximum=SANE_HALVINGS, maximum=31, allow_large=allow_large)
    check_size("convergence_iterations", convergence_iterations, minimum=1,
               sane_maximum=SANE_CONVERGENCE_ITERATIONS, allow_large=allow_large)
    longest = convergence_iterations * 2 ** (n_halvings - 1)
    if longest > MAX_STEPS:
        raise ValueError(f"convergence_iterations x 2**(n_halvings - 1), the longest run of the convergence study, "
                         f"must be <= {MAX_STEPS} (JAX counts steps in int32), got {longest} "
                         f"(convergence_iterations={convergence_iterations}, n_halvings={n_halvings})")
    check_workload(f"convergence_iterations x (2**n_halvings - 1), the every-step iterations of the convergence "
                   f"study (convergence_iterations={convergence_iterations}, n_halvings={n_halvings})",
                   convergence_iterations * (2**n_halvings - 1), SANE_CONVERGENCE_STEPS, allow_large)


def _kernel_dynamics_plan(schedule, seeds, n_iterations, n_snapshots, node_every,
                          check_iterations) -> KernelDynamicsPlan:
    """One schedule's :class:`KernelDynamicsPlan`, its node phases and check length validated."""
    if n_iterations % (n_snapshots - 1):
        raise ValueError(f"iterations[{schedule!r}] ({n_iterations}) must be a multiple of n_snapshots - 1 "
                         f"({n_snapshots - 1})")
    spacing = n_iterations // (n_snapshots - 1)
    try:
        phases = node_phases(node_every[schedule], n_iterations, spacing)
    except ValueError as err:
        raise ValueError(f"node_every[{schedule!r}]: {err}") from None
    n_check = check_int(f"check_iterations[{schedule!r}]", check_iterations[schedule], minimum=spacing)
    if n_check % spacing or n_check > n_iterations:
        raise ValueError(f"check_iterations[{schedule!r}] must be a multiple of the snapshot spacing {spacing} "
                         f"in {spacing}..{n_iterations}, got {n_check}")
    return KernelDynamicsPlan(seeds, n_iterations, phases, n_check, truncate_phases(phases, n_check),
                              n_check // spacing + 1)


def check_entk_over_training(architecture, n_pairs, first_seeds, iterations, n_snapshots, node_every, path_kernel,
                             n_points, n_rows, check_rows, check_iterations, n_halvings, convergence_iterations,
                             window_threshold, index_set, allow_large=None) -> dict[str, KernelDynamicsPlan]:
    """Chapter 08; returns schedule -> :class:`KernelDynamicsPlan`.

    Sizes above the chapter's sane maxima (:data:`SANE_SNAPSHOTS`, ..., :data:`SANE_KERNEL_WORK`)
    need ``allow_large``; the convergence study, which doubles its every-step run ``n_halvings``
    times, is bounded in total."""
    check_choice("architecture", architecture, ARCHITECTURES)
    with large_runs(allow_large):
        schedule_plan = check_schedule_plan(n_pairs, first_seeds, iterations)
    check_size("n_snapshots", n_snapshots, minimum=3, sane_maximum=SANE_SNAPSHOTS, allow_large=allow_large)
    check_choice("path_kernel", path_kernel, PATH_KERNELS)
    check_size("n_points", n_points, minimum=1, sane_maximum=SANE_POINTS, maximum=MAX_POINTS, allow_large=allow_large)
    if n_rows is not None:
        check_int("n_rows", n_rows, minimum=48, maximum=MAX_ROWS)
    check_int("check_rows", check_rows, minimum=2, maximum=MAX_ROWS)
    _check_convergence_study(n_halvings, convergence_iterations, allow_large)
    check_positive_float("window_threshold", window_threshold)
    if window_threshold >= 1:
        raise ValueError(f"window_threshold must be in (0, 1), got {window_threshold!r}")
    check_choice("index_set", index_set, ENTK_VARIANTS)
    for name, value in (("node_every", node_every), ("check_iterations", check_iterations)):
        check_keys(name, value, sorted(SCHEDULES))
    plan = {schedule: _kernel_dynamics_plan(schedule, seeds, n_iterations, n_snapshots, node_every, check_iterations)
            for schedule, (seeds, n_iterations) in schedule_plan.items()}
    work = sum(2 * len(p.seeds) * (node_count(p.phases) + n_snapshots) * (MAX_ROWS if n_rows is None else n_rows)
               * (n_points if path_kernel == "step" else 1) for p in plan.values())
    check_workload(f"the kernel work of the ePNTK runs, 2 n_pairs x (kernel nodes of node_every + n_snapshots) x "
                   f"kernel rows (n_rows) x n_points summed over the schedules (n_pairs={n_pairs}, n_rows={n_rows}, "
                   f"n_points={n_points}, n_snapshots={n_snapshots}, node_every={node_every})", work,
                   SANE_KERNEL_WORK, allow_large)
    env = TaskEnvironment(*ARCHITECTURES[architecture])
    missing = [(schedule, *m) for schedule, p in plan.items() for m in missing_task_rows(env, p.seeds, n_rows)]
    if missing:
        raise ValueError(f"n_rows = {n_rows} is too few kernel rows: the task statistics need every task among the "
                         f"{n_rows // 2} rows of each index set, and (schedule, pair seed, index set) {missing[:4]}"
                         f"{' ...' if len(missing) > 4 else ''} lack one; use more rows (the default 200) or None "
                         "(all)")
    return plan


# --- 09: your own network -------------------------------------------------------------------------
def check_your_own_network(seed, mlp_width, n_regression, cnn_channels, n_images, n_iterations, mlp_learning_rate,
                           cnn_learning_rate, n_multitask_patterns) -> None:
    """Chapter 09 (the eNTK of an MLP, a CNN and the multitask network)."""
    check_seed("seed", seed)
    check_size("mlp_width", mlp_width, minimum=1, sane_maximum=1024)
    check_size("n_regression", n_regression, minimum=2, sane_maximum=2000)
    check_size("cnn_channels", cnn_channels, minimum=1, sane_maximum=64)
    check_size("n_images", n_images, minimum=2, sane_maximum=2000)
    check_size("n_iterations", n_iterations, minimum=1, sane_maximum=100_000)
    check_learning_rate("mlp_learning_rate", mlp_learning_rate)
    check_learning_rate("cnn_learning_rate", cnn_learning_rate)
    check_size("n_multitask_patterns", n_multitask_patterns, minimum=1, sane_maximum=2000)


# --- every chapter --------------------------------------------------------------------------------
CHECKERS = {c.name: globals()[c.checker] for c in CHAPTERS}  # declared in lib.book.chapters


def check_chapter(name: str, parameters: Mapping[str, object], allow_large: bool | None = None):
    """Call notebook ``name``'s checker with its entries of ``parameters`` (a mapping holding every
    parameter of the notebook, e.g. its ``globals()`` after the parameters cell: each chapter's
    check cell is ``check_chapter(name, globals())``, so no parameter is restated there;
    ``allow_large`` where the checker takes it); return what the checker returns. An unknown
    chapter, or a parameter missing from ``parameters``, is a ValueError naming it."""
    if name not in CHECKERS:
        raise ValueError(f"no chapter {name!r}; the chapters are {sorted(CHECKERS)}")
    checker = CHECKERS[name]
    accepted = inspect.signature(checker).parameters
    missing = [k for k in accepted if k != "allow_large" and k not in parameters]
    if missing:
        raise ValueError(f"{name}: parameters {missing} are not set (its checker {checker.__name__} takes "
                         f"{[k for k in accepted if k != 'allow_large']})")
    arguments = {k: parameters[k] for k in accepted if k != "allow_large"}
    if "allow_large" in accepted:
        arguments["allow_large"] = allow_large
    return checker(**arguments)
