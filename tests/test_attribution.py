"""lib.analyses.attribution (signed attribution, cancellation, crossing times at several thresholds,
paired contrasts), the cancellation factors recorded by lib.experiments.kernel_dynamics, and the
figures of lib.book.plot_attribution."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.analyses import attribution as at  # noqa: E402
from lib.book import plot_attribution, plot_style  # noqa: E402
from lib.core.tasks import TaskEnvironment  # noqa: E402
from lib.experiments import kernel_dynamics as kd  # noqa: E402
from tests.test_plot_style import legibility_problems  # noqa: E402

RNG = np.random.default_rng(0)
C = len(kd.SHARING_CATEGORIES)


def fake_run(n_pairs=4, n_snapshots=5):
    """A run's sharing and window arrays with known values: signed shares (2, -1, 0.5, -0.5)
    plus pair noise that keeps their sum 1, |C| shares (0.2, 0.1, 0.3, 0.4)."""
    signed = np.tile(np.array([2.0, -1.0, 0.5, -0.5]), (n_pairs, 2, n_snapshots, 2, 1))
    noise = RNG.normal(scale=0.1, size=signed.shape[:-1])
    signed[..., 0] += noise
    signed[..., 3] -= noise
    absolute = np.tile(np.array([0.2, 0.1, 0.3, 0.4]), (n_pairs, 2, n_snapshots, 2, 1))
    fraction = np.tile(np.array([0.1, 0.2, 0.3, 0.4]), (n_pairs, 2, 2, 1))
    cancellation = 1 + RNG.random((n_pairs, 2, n_snapshots, 2)) * 5
    iterations = np.arange(n_snapshots) * 10
    decay = np.linspace(1, 0, n_snapshots)  # crosses 0.7, 0.5, 0.3 at growing iterations
    window = np.broadcast_to(decay[None, None, :, None, None], (n_pairs, 2, n_snapshots, 2, 9)).copy()
    window[:, 1] = 0.2  # large init: below every threshold from the first snapshot on
    window[:, 1, 0] = 1.0
    return {"sharing_signed": signed, "sharing_abs": absolute, "sharing_pattern_fraction": fraction,
            "cancellation": cancellation, "cancellation_patterns": 2 * cancellation, "iterations": iterations,
            **{key: window for key in at.WINDOW_MEASURES.values()}}


def test_other_tasks_is_the_sum_of_the_other_categories():
    shares = RNG.random((3, C))
    out = at.with_other_tasks(shares)
    assert out.shape == (3, C + 1)
    np.testing.assert_allclose(out[:, -1], shares[:, 1:].sum(axis=1))
    with pytest.raises(ValueError, match="shares"):
        at.with_other_tasks(np.ones((3, C + 1)))


def test_attribution_table_reports_signed_and_absolute_shares_with_intervals():
    table = at.attribution_table({"ET": fake_run()}, "authors")
    assert len(table) == 2 * (C + 1)
    row = table[(table.init == "standard") & (table["training patterns"] == at.OTHER_TASKS)].iloc[0]
    same = table[(table.init == "standard") & (table["training patterns"] == "same task")].iloc[0]
    assert row._signed == pytest.approx(1 - same._signed)  # signed shares sum to 1
    assert row._signed < 0 < row._abs  # other tasks push against the change although their |C| share is 0.8
    assert row._abs == pytest.approx(0.8)
    assert same._signed_low < same._signed < same._signed_high
    assert row._fraction == pytest.approx(0.9)
    with pytest.raises(ValueError, match="index_set"):
        at.attribution_table({"ET": fake_run()}, "rows")


def test_cancellation_table_summarises_every_network():
    run = fake_run()
    table = at.cancellation_table({"LR": run}, "principled")
    values = run["cancellation"][:, 0, -1, 0]
    row = table[(table.init == "standard") & (table["sum |C| / |dy|"] == "by category")].iloc[0]
    assert row._median == pytest.approx(np.median(values)) and row._max == pytest.approx(values.max())
    assert row._low < row._mean < row._high and row.networks == len(values)
    pattern = table[(table.init == "standard") & (table["sum |C| / |dy|"] == "by training pattern")].iloc[0]
    assert pattern._median == pytest.approx(2 * row._median)


def test_crossing_times_order_and_threshold_dependence():
    iterations = np.array([0, 10, 20, 30, 40])
    curves = np.array([[1.0, 0.8, 0.55, 0.35, 0.2], [1.0, 0.9, 0.9, 0.9, 0.9]])
    times = at.crossing_times(iterations, curves, (0.3, 0.5, 0.7))
    np.testing.assert_array_equal(times, [[40, np.nan], [30, np.nan], [20, np.nan]])
    order = at.crossing_order(np.array([10.0, np.nan, np.nan]), np.array([20.0, 10.0, np.nan]))
    np.testing.assert_array_equal(order, [1, 1, 1])  # a first, tie (both never), b first
    stacked = np.stack([times, times], axis=-1)
    assert at.threshold_dependence(stacked) == {"never_changes": False, "order_changes": False}
    stacked[0, 1, 1] = 10.0  # a large-init pair that crosses only at the lowest threshold
    assert at.threshold_dependence(stacked) == {"never_changes": True, "order_changes": True}
    assert at.crossing_text(np.array([200.0, np.nan])) == "200, never"
    with pytest.raises(ValueError, match="curves"):
        at.crossing_times(iterations, curves[0], (0.5,))
    with pytest.raises(ValueError, match="first_a"):
        at.crossing_order(np.ones(3), np.ones(4))


def test_crossing_table_lists_every_pair_at_every_threshold():
    table, crossings = at.crossing_table({"ET": fake_run()}, "principled")
    assert set(table.columns) >= {f"{t:g}" for t in at.THRESHOLDS}
    times = crossings[("ET", "alignment of eNTK(t) with eNTK(0)")]
    assert times.shape == (len(at.THRESHOLDS), 4, 2)
    assert (times[..., 1] == 10).all()  # large init: the first snapshot at every threshold
    assert (np.diff(times[:, 0, 0]) <= 0).all() and times[0, 0, 0] > times[-1, 0, 0]  # standard: later when lower
    counts = table[(table.measure == "alignment of eNTK(t) with eNTK(0)")
                   & (table.init == "large first / same / standard first")].iloc[0]
    assert counts["0.3"] == "4 / 0 / 0"


def test_paired_contrasts_and_representation_contrasts():
    a, b = np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.1, 0.2, 0.2, 0.3])
    contrast = at.paired_contrasts({"a": a, "b": b}, [("a", "b")])["a − b"]
    assert contrast[0] == pytest.approx(0.45) and at.direction(contrast) == "above 0"
    assert at.direction((0.0, -0.1, 0.1)) == "unresolved" and at.direction((-1.0, -2.0, -0.5)) == "below 0"
    assert at.direction((0.0, 0.0, 0.0)) == "zero in every pair" and at.direction((1.0, np.nan, np.nan)) == "unresolved"
    with pytest.raises(ValueError, match="contrasts"):
        at.paired_contrasts({"a": a}, [("a", "c")])
    predictors = [p for pair in at.REPRESENTATION_CONTRASTS for p in pair]
    agreement = {"ET": {f"{m}/{p}": np.stack([a, b], axis=1) * (k + 1) for m in ("rsa", "ari3")
                        for k, p in enumerate(dict.fromkeys(predictors))}}
    table = at.representation_contrasts(agreement, metrics=("rsa", "ari3"))
    assert len(table) == 2 * 2 * len(at.REPRESENTATION_CONTRASTS)
    assert set(table.direction) <= {"above 0", "below 0", "unresolved"}
    with pytest.raises(ValueError, match="metrics"):
        at.representation_contrasts(agreement, metrics=("ari4",))


def test_largest_error_names_the_worst_case_and_ignores_undefined_errors():
    errors = {("ET", "standard"): np.array([np.nan, 0.01, 0.02]), ("LR", "standard"): np.array([np.nan, 7.5, 6.0])}
    value, worst, each = at.largest_error(errors)
    assert value == 7.5 and worst == ("LR", "standard") and each[("ET", "standard")] == 0.02
    with pytest.raises(ValueError, match="errors"):
        at.largest_error({("ET", "large"): np.array([np.nan])})


def test_recorded_cancellation_factors_match_the_final_path():
    """The run's cancellation factors against a direct split of its final ePNTK (small network)."""
    env = TaskEnvironment()
    options = dict(n_iterations=40, n_snapshots=3, node_every=((20, 1), (40, 5)), path_kernel="step", n_hidden=16,
                   n_train=60, n_test=60, statistics=False, keep_final_path=True, progress=False)
    out = kd.run_kernel_dynamics(env, "LR", [0], **options)
    category = kd.pair_kernel_data(env, [0], 60, 60)["sharing"][0]  # (N, M)
    for init in range(2):
        path = out["path_final"][0, init].astype(np.float64)  # (K, N, M)
        for s, rows in enumerate((slice(0, 60), slice(60, None))):
            change = np.abs(path[:, rows].sum(axis=2)).sum()
            parts = np.stack([np.where(category[rows] == c, path[:, rows], 0.0).sum(axis=2) for c in range(C)])
            np.testing.assert_allclose(out["cancellation"][0, init, -1, s], np.abs(parts).sum() / change, rtol=1e-4)
            np.testing.assert_allclose(out["cancellation_patterns"][0, init, -1, s],
                                       np.abs(path[:, rows]).sum() / change, rtol=1e-4)
            by_pattern, by_category = out["cancellation_patterns"][0, init, -1, s], out["cancellation"][0, init, -1, s]
            assert by_pattern >= by_category * (1 - 1e-5) >= 1 - 1e-5


def _figures():
    run = fake_run()
    mean = RNG.normal(size=(2, C + 1))
    interval = np.stack([mean, mean - 0.2, mean + 0.2], axis=-1)
    positive = np.stack([np.abs(mean), np.abs(mean) * 0.8, np.abs(mean) * 1.2], axis=-1)
    shares = {s: {"signed": interval, "abs": positive, "fraction": np.linspace(0.1, 0.4, C + 1)}
              for s in ("ET", "LR")}
    times = at.crossing_times(run["iterations"], run["alignment_initial"][:, 0, :, 0].mean(axis=-1))
    crossings = {f"ET, {m}": ("ET", np.stack([times, times * 0 + 10], axis=-1)) for m in ("a", "b", "c")}
    return {
        "plot_signed_attribution": lambda: plot_attribution.plot_signed_attribution(
            shares, [*kd.SHARING_CATEGORIES, "other tasks"]),
        "plot_cancellation": lambda: plot_attribution.plot_cancellation(
            {"ET": run["iterations"]}, {"ET": {"by category": run["cancellation"][..., 1],
                                               "by training pattern": run["cancellation_patterns"][..., 1]}}),
        "plot_crossing_thresholds": lambda: plot_attribution.plot_crossing_thresholds(
            at.THRESHOLDS, crossings, {"ET": 40}),
    }


@pytest.mark.parametrize("name", sorted(_figures()))
def test_figures_are_legible(name):
    plot_style.use_book_style()
    _figures()[name]()
    problems = [p for num in plt.get_fignums() for p in legibility_problems(plt.figure(num))]
    plt.close("all")
    assert not problems, problems


def test_figures_refuse_empty_input():
    for call in (lambda: plot_attribution.plot_signed_attribution({}, []),
                 lambda: plot_attribution.plot_cancellation({}, {}),
                 lambda: plot_attribution.plot_crossing_thresholds(at.THRESHOLDS, {}, {})):
        with pytest.raises(ValueError):
            call()
