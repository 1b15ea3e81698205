"""The declared learning-speed measure of the performance chapter (claim perf-multitask-speed v3):
halving iterations with interpolation and censoring, the per-pair comparison, the early-phase
re-runs (equal to the start of the cached runs), their cache, and the figure."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.analyses.stats import halving_comparison, halving_iteration  # noqa: E402
from lib.core import cache_entry, results  # noqa: E402
from lib.core.tasks import TaskEnvironment  # noqa: E402
from lib.experiments.schedules import (SCHEDULE_CODE, cached_schedule, params_of, run_early_phases, run_schedule,  # noqa: E402
                                       schedule_parameters)
from lib.experiments.sweep_points import (EARLY_PHASE_CACHE, cached_early_phase_blocks,  # noqa: E402
                                          cached_schedule_blocks)

ITS = np.array([0, 10, 20, 30])


# --- halving iterations -------------------------------------------------------------------------


def test_halving_interpolates_between_the_snapshots_around_the_crossing():
    # 10 -> 8 -> 4: half (5) is reached 3/4 of the way from 10 to 20
    assert halving_iteration(ITS, np.array([10.0, 8.0, 4.0, 2.0])) == pytest.approx(17.5)
    # exactly on a snapshot: that snapshot's iteration
    assert halving_iteration(ITS, np.array([10.0, 5.0, 3.0, 1.0])) == pytest.approx(10.0)
    # a plateau at the target after a drop: the first snapshot at the target
    assert halving_iteration(ITS, np.array([10.0, 6.0, 5.0, 5.0])) == pytest.approx(20.0)
    # another fraction, and uneven snapshot spacing
    assert halving_iteration(np.array([0, 5, 25]), np.array([8.0, 6.0, 1.0]), 0.25) == pytest.approx(5 + 20 * 4 / 5)


def test_halving_is_censored_when_the_window_ends_first_and_uses_the_first_crossing():
    curves = np.array([[10.0, 9.0, 8.0, 7.0],  # never halves: nan
                       [10.0, 4.0, 9.0, 2.0],  # crosses, comes back, crosses again: the first crossing
                       [4.0, 3.0, 2.5, 2.0]])  # reaches half exactly at the last snapshot
    np.testing.assert_allclose(halving_iteration(ITS, curves), [np.nan, 10 * 5 / 6, 30.0])


def test_halving_works_on_pairs_and_is_independent_of_the_starting_level():
    curves = np.array([[[10.0, 8.0, 4.0, 2.0], [1000.0, 800.0, 400.0, 200.0]]])  # (1 pair, 2 inits, 4)
    times = halving_iteration(ITS, curves)
    assert times.shape == (1, 2)
    np.testing.assert_allclose(times, [[17.5, 17.5]])


@pytest.mark.parametrize("kwargs, message", [
    ({"fraction": 1.0}, "fraction must be a number in \\(0, 1\\)"),
    ({"fraction": 0}, "fraction must be"),
    ({"iterations": np.array([0, 10, 10, 30])}, "strictly increasing"),
    ({"iterations": np.array([0, 10, 20])}, "one entry per snapshot"),
    ({"curves": np.array([0.0, 1.0, 1.0, 1.0])}, "positive value"),
    ({"curves": np.array([1.0, np.nan, 1.0, 1.0])}, "curves"),
    ({"curves": np.array([1.0])}, "snapshots >= 2"),
])
def test_halving_rejects_bad_input(kwargs, message):
    args = {"iterations": ITS, "curves": np.array([10.0, 8.0, 4.0, 2.0]), **kwargs}
    with pytest.raises(ValueError, match=message):
        halving_iteration(args["iterations"], args["curves"], args.get("fraction", 0.5))


def test_comparison_counts_censored_tied_and_neither():
    nan = np.nan
    times = np.array([[15.0, nan],    # standard halves, large does not: standard faster
                      [nan, 3.0],     # large halves, standard does not: large faster
                      [10.0, 10.0],   # tie: neither faster
                      [nan, nan],     # neither halves
                      [20.0, 12.0],   # large first
                      [12.0, 20.0]])  # standard first
    assert halving_comparison(times) == {"large_faster": 2, "standard_faster": 2, "tied": 1, "neither": 1,
                                         "n_pairs": 6}


def test_comparison_rejects_bad_input():
    with pytest.raises(ValueError, match="times must be an array of shape"):
        halving_comparison(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="infinite"):
        halving_comparison(np.array([[1.0, np.inf], [1.0, 2.0]]))


# --- early-phase runs -----------------------------------------------------------------------------

ENV = TaskEnvironment()


def test_early_phase_runs_equal_the_start_of_the_full_runs():
    """Full-batch GD is deterministic: the finer-sampled first window of both phases equals the
    full run at every shared snapshot (fine-tuning from the full run's single-task weights)."""
    full = run_schedule(ENV, "LR", (0, 1), 200, 16, progress=False)  # a snapshot every 2 iterations
    early = run_early_phases(ENV, "LR", (0, 1), params_of(full, "single/params_final"), 40, 10, 16)
    np.testing.assert_array_equal(early["iterations"], [0, 10, 20, 30, 40])
    shared, i, j = np.intersect1d(full["iterations"], early["iterations"], return_indices=True)
    assert len(shared) == 5
    for phase in ("single", "finetune"):
        for loss in ("loss_test", "loss_train"):
            assert early[f"{phase}/{loss}"].shape == (2, 2, 5)
            np.testing.assert_allclose(early[f"{phase}/{loss}"][..., j], full[f"{phase}/{loss}"][..., i], rtol=1e-6,
                                       err_msg=f"{phase}/{loss}")


def test_early_phase_runs_reject_bad_input():
    full = run_schedule(ENV, "LR", (0, 1), 100, 8, progress=False)
    start = params_of(full, "single/params_final")
    with pytest.raises(ValueError, match="window must be a multiple of every"):
        run_early_phases(ENV, "LR", (0, 1), start, 25, 10, 8)
    with pytest.raises(ValueError, match="start_finetune must hold"):
        run_early_phases(ENV, "LR", (0, 1, 2), start, 20, 10, 8)
    with pytest.raises(ValueError, match="every must be"):
        run_early_phases(ENV, "LR", (0, 1), start, 20, 0, 8)


def test_early_phase_blocks_read_the_schedule_blocks_and_are_cached(results_tmp):
    plan = {"LR": ((0, 1, 2), 100)}
    blocks = [cached_schedule(ENV, "LR", seeds, 100, 8) for seeds in ((0, 1), (2,))]
    early = cached_early_phase_blocks(ENV, plan, 0.2, 5, block_pairs=2, n_hidden=8)
    assert early["LR"]["single/loss_test"].shape == (3, 2, 5)
    for start, block in zip((0, 2), blocks):
        seeds = plan["LR"][0][start:start + 2]
        alone = run_early_phases(ENV, "LR", seeds, params_of(block, "single/params_final"), 20, 5, 8)
        for key, value in alone.items():
            got = early["LR"][key] if key == "iterations" else early["LR"][key][start:start + len(seeds)]
            np.testing.assert_array_equal(got, value, err_msg=key)
        key = schedule_parameters(ENV, "LR", seeds, 100, 8) | {"window": 20, "every": 5}
        assert results.entry_dir(EARLY_PHASE_CACHE, key, computed_by="lib.experiments.sweep_points").exists()
    again = cached_early_phase_blocks(ENV, plan, 0.2, 5, block_pairs=2, n_hidden=8)  # loaded, not recomputed
    np.testing.assert_array_equal(again["LR"]["finetune/loss_test"], early["LR"]["finetune/loss_test"])
    with pytest.raises(ValueError, match="window_fraction"):
        cached_early_phase_blocks(ENV, plan, 1.5, 5, block_pairs=2, n_hidden=8)


def test_schedule_blocks_key_a_non_default_split_like_cached_schedule(results_tmp):
    """With every block already cached (by cached_schedule of the same split), the blocks are read:
    the same cache entries, no training and no cluster."""
    alone = cached_schedule(ENV, "LR", (0, 1), 100, 8, split="disjoint", large_scaling="layer1_only")
    meta = results.entry_dir("schedule", schedule_parameters(ENV, "LR", (0, 1), 100, 8, "disjoint", "layer1_only"),
                             computed_by=SCHEDULE_CODE) / cache_entry.META_FILE
    written = meta.stat().st_mtime_ns
    joined = cached_schedule_blocks(ENV, {"LR": ((0, 1), 100)}, block_pairs=2, n_hidden=8, progress=False,
                                    split="disjoint", large_scaling="layer1_only")
    assert meta.stat().st_mtime_ns == written
    for key, value in alone.items():
        np.testing.assert_array_equal(joined["LR"][key], value, err_msg=key)


# --- the figure -----------------------------------------------------------------------------------


def test_early_halving_figure_is_legible_and_rejects_bad_input():
    from lib.book import plot_performance
    from tests.test_plot_style import legibility_problems

    rng = np.random.default_rng(0)
    curves = np.cumprod(0.5 + 0.5 * rng.random((4, 2, 6)), axis=-1)
    axes = plot_performance.plot_early_halving({"a": (np.arange(6) * 10, curves), "b": (np.arange(6) * 10, curves),
                                                "c": (np.arange(6) * 10, curves)})
    assert len(axes) == 4 and not axes[-1].axison  # a 2 x 2 grid, the spare panel hidden
    problems = [p for num in plt.get_fignums() for p in legibility_problems(plt.figure(num))]
    plt.close("all")
    assert not problems, problems
    with pytest.raises(ValueError, match="curves must be a non-empty dict"):
        plot_performance.plot_early_halving({})
