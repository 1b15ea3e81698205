"""Correlations between t=0 eNTK structure and later performance, with controls (paper Sec 5.2, App A.6.4-A.6.5).

All functions take per-network values arranged as (P pairs, 2 inits) arrays, column 0 the
standard and column 1 the large init of the same pair. A pair's *relative* loss is its own
final loss minus its partner's, so the two entries of a pair are +d and -d: any variable
that separates the two inits (the init label itself) correlates with relative loss through
the sign of d alone. The controls below measure how much a predictor adds beyond that.

Inputs are checked at entry: the correlation functions need finite values (a NaN or infinite
entry raises ``ValueError`` naming the argument, where it would otherwise give nan, or a
bootstrap interval drawn only from the resamples that happen to miss it). nan is returned only
where it is the answer: r of a constant predictor or outcome, an iteration that is never reached.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .checks import as_array, check_finite, check_iterations, check_level, check_names
from ..core.validation import check_int, check_positive_float, check_seed

STANDARD, LARGE = 0, 1


def _pairs(name: str, values: np.ndarray, finite: bool = False) -> np.ndarray:
    values = as_array(name, values)
    if values.ndim != 2 or values.shape[1] != 2 or values.shape[0] < 2:
        raise ValueError(f"{name} must be an array of shape (pairs >= 2, 2), got {values.shape}")
    return check_finite(name, values) if finite else values


def _two_pairs(x_name: str, x: np.ndarray, y_name: str, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two finite (P, 2) arrays of the same pairs."""
    x, y = _pairs(x_name, x, finite=True), _pairs(y_name, y, finite=True)
    if x.shape != y.shape:
        raise ValueError(f"{x_name} and {y_name} must hold the same pairs, got shapes {x.shape} and {y.shape}")
    return x, y


def relative_to_partner(values: np.ndarray) -> np.ndarray:
    """(P, 2) own value minus the partner's: column 0 is std - large, column 1 is large - std.
    Elementwise: a NaN entry gives NaN in both columns of its pair (the correlations reject it)."""
    values = _pairs("values", values)
    return values - values[:, ::-1]


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two equal-size arrays (flattened, >= 2 finite values each); nan if either is constant."""
    x, y = check_finite("x", as_array("x", x)), check_finite("y", as_array("y", y))
    x, y = np.ravel(x), np.ravel(y)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
    if x.size < 2:
        raise ValueError(f"x and y must hold at least 2 values each, got {x.size}")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _batch_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(B,) Pearson r of the rows of x and y, each (B, n); nan where a row is constant."""
    xc, yc = x - x.mean(axis=1, keepdims=True), y - y.mean(axis=1, keepdims=True)
    denom = np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (xc * yc).sum(axis=1) / denom, np.nan)


def init_label(n_pairs: int) -> np.ndarray:
    """(P, 2) condition label: 1 for standard init, 0 for large init."""
    check_int("n_pairs", n_pairs, minimum=0)
    return np.tile([1.0, 0.0], (n_pairs, 1))


def bootstrap_ci(x: np.ndarray, y: np.ndarray, n_resamples: int = 10_000, seed: int = 0, level: float = 0.95):
    """Percentile bootstrap interval of r, resampling whole pairs (both members together), at
    ``level`` in (0, 1); (nan, nan) if the predictor or the outcome is constant."""
    x, y = _two_pairs("x", x, "y", y)
    check_int("n_resamples", n_resamples, minimum=100)
    check_seed("seed", seed)
    check_level("level", level)
    rng = np.random.default_rng(seed)
    idx = rng.integers(len(x), size=(n_resamples, len(x)))
    rs = _batch_pearson(x[idx].reshape(n_resamples, -1), y[idx].reshape(n_resamples, -1))
    if np.isnan(rs).all():  # a constant predictor or outcome
        return float("nan"), float("nan")
    lo, hi = np.nanpercentile(rs, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def permutation_within_condition(x: np.ndarray, y: np.ndarray, n_permutations: int = 10_000, seed: int = 0):
    """Null distribution of r when ``x`` is shuffled among networks of the same init.

    Keeps every between-condition difference of ``x`` and destroys its within-condition
    pairing with ``y``. Returns (null r values, two-sided p of ``|r_observed|`` under the null);
    p is nan if ``x`` or ``y`` is constant."""
    x, y = _two_pairs("x", x, "y", y)
    check_int("n_permutations", n_permutations, minimum=100)
    check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    observed = abs(pearson(x, y))
    order = np.argsort(rng.random((n_permutations, len(x), 2)), axis=1)  # independent shuffles per column
    shuffled = np.take_along_axis(np.broadcast_to(x, order.shape), order, axis=1)
    null = _batch_pearson(shuffled.reshape(n_permutations, -1), np.broadcast_to(y.ravel(), (n_permutations, y.size)))
    if np.isnan(observed):  # a constant predictor or outcome: nothing to test
        return null, float("nan")
    p = (1 + np.sum(np.abs(null) >= observed - 1e-12)) / (n_permutations + 1)
    return null, float(p)


def within_condition(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(r among standard-init networks, r among large-init networks); nan where one is constant."""
    x, y = _two_pairs("x", x, "y", y)
    return pearson(x[:, STANDARD], y[:, STANDARD]), pearson(x[:, LARGE], y[:, LARGE])


def correlation_report(predictor: np.ndarray, outcome: np.ndarray, n_resamples: int = 10_000, seed: int = 0) -> dict:
    """r(predictor, outcome) with a bootstrap interval, the label-only r, within-condition r
    and the within-condition permutation p-value; all inputs (P, 2), finite."""
    predictor, outcome = _two_pairs("predictor", predictor, "outcome", outcome)
    lo, hi = bootstrap_ci(predictor, outcome, n_resamples, seed)
    _, p = permutation_within_condition(predictor, outcome, n_resamples, seed)
    r_std, r_large = within_condition(predictor, outcome)
    return {
        "r": pearson(predictor, outcome),
        "ci_low": lo,
        "ci_high": hi,
        "r_label": pearson(init_label(len(predictor)), outcome),
        "r_within_standard": r_std,
        "r_within_large": r_large,
        "p_within_permutation": p,
    }


def correlation_table(by_schedule: dict, n_resamples: int = 10_000, seed: int = 0,
                      predictor: str = "silhouette") -> list[dict]:
    """One row per (quantity, phase, schedule) of :data:`lib.experiments.paper.PAPER_CORRELATIONS`.

    Args:
        by_schedule: schedule name -> dict with the predictor (P, 2) under the key ``predictor``
            (default ``silhouette``) and final test losses ``single`` and ``finetune`` (P, 2).
            "combined" pools all schedules' pairs. All values finite.
    """
    rows = []
    for (quantity, phase, schedule), paper_r, x, outcome in _correlation_rows(by_schedule, predictor):
        report = correlation_report(x, outcome, n_resamples, seed)
        rows.append({"quantity": quantity, "phase": phase, "schedule": schedule, "paper_r": paper_r,
                     "n_networks": int(np.size(outcome)), **report})
    return rows


def _correlation_rows(by_schedule: dict, predictor: str):
    """For each (quantity, phase, schedule) of :data:`lib.experiments.paper.PAPER_CORRELATIONS` that
    ``by_schedule`` has ("combined": every schedule's pairs pooled), in order: (that key, the paper's
    r, the predictor (P, 2), the outcome (P, 2): the phase's final test loss, relative to the
    partner's for a "relative" quantity)."""
    from ..experiments.paper import PAPER_CORRELATIONS

    if not isinstance(predictor, str):
        raise ValueError(f"predictor must be the name of a key of every by_schedule entry, got {predictor!r}")
    keys = (predictor, "single", "finetune")
    _check_by_schedule(by_schedule, keys)
    pooled = {key: np.concatenate([d[key] for d in by_schedule.values()]) for key in keys}
    for (quantity, phase, schedule), paper_r in PAPER_CORRELATIONS.items():
        data = pooled if schedule == "combined" else by_schedule.get(schedule)
        if data is not None:
            outcome = relative_to_partner(data[phase]) if quantity == "relative" else data[phase]
            yield (quantity, phase, schedule), paper_r, data[predictor], outcome


def within_init_p_values(by_schedule: dict, n_permutations: int = 10_000, seed: int = 0,
                         predictor: str = "silhouette") -> np.ndarray:
    """(rows,) the within-init permutation p (:func:`permutation_within_condition` with
    ``n_permutations`` shuffles drawn under ``seed``) of every row of :func:`correlation_table` of the
    same ``by_schedule`` and ``predictor``, in its order: under the table's own ``n_resamples`` and
    seed, its ``p_within_permutation`` column (tested); under other seeds, the same tests drawn anew."""
    return np.array([permutation_within_condition(x, outcome, n_permutations, seed)[1]
                     for _, _, x, outcome in _correlation_rows(by_schedule, predictor)], np.float64)


def _check_by_schedule(by_schedule: dict, keys: tuple[str, ...]) -> None:
    """Every entry of ``by_schedule`` a dict holding finite (P, 2) arrays of one shape under ``keys``."""
    if not isinstance(by_schedule, Mapping) or not by_schedule:
        raise ValueError(f"by_schedule must be a non-empty dict schedule -> dict of (P, 2) arrays, got "
                         f"{type(by_schedule).__name__} of length {len(by_schedule) if hasattr(by_schedule, '__len__') else '?'}")
    for name, data in by_schedule.items():
        if not isinstance(data, Mapping) or any(key not in data for key in keys):
            present = sorted(data) if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(f"by_schedule[{name!r}] must be a dict with (P, 2) arrays under {list(keys)}, got {present}")
        shapes = {key: _pairs(f"by_schedule[{name!r}][{key!r}]", data[key], finite=True).shape for key in keys}
        if len(set(shapes.values())) > 1:
            raise ValueError(f"by_schedule[{name!r}] must hold arrays of one shape (P, 2), got {shapes}")


def rival_correlations(by_schedule: dict, predictors: list[str], n_resamples: int = 10_000, seed: int = 0) -> list[dict]:
    """:func:`correlation_table` for each of ``predictors`` (keys of every ``by_schedule`` entry),
    plus the init label itself; each row names its ``predictor``. A predictor that is the same for
    every network gives r = nan."""
    predictors = check_names("predictors", predictors)
    _check_by_schedule(by_schedule, ("single", "finetune"))
    rows = []
    for predictor in predictors:
        rows += [{"predictor": predictor, **row} for row in correlation_table(by_schedule, n_resamples, seed, predictor)]
    labelled = {name: {**d, "init label": init_label(len(d["single"]))} for name, d in by_schedule.items()}
    rows += [{"predictor": "init label", **row} for row in correlation_table(labelled, n_resamples, seed, "init label")]
    return rows


def paired_trajectory_summary(iterations: np.ndarray, losses: np.ndarray) -> dict:
    """Summary of standard - large test-loss differences over training.

    Args:
        iterations: (S,) snapshot iterations.
        losses: (P, 2, S) test losses.

    Returns: final mean loss per init, pairs in which standard init ends lower, the share
    of snapshots (after 0) at which the mean difference favours standard init, and the
    iteration after which the mean difference keeps its final sign (nan if it never changes).
    ``losses`` must be finite, with at least one pair and two snapshots.
    """
    losses = as_array("losses", losses)
    if losses.ndim != 3 or losses.shape[0] < 1 or losses.shape[1] != 2 or losses.shape[2] < 2:
        raise ValueError(f"losses must be an array of shape (pairs >= 1, 2 inits, snapshots >= 2), got {losses.shape}")
    check_finite("losses", losses)
    check_iterations("iterations", iterations, losses.shape[2], "losses")
    diff = losses[:, 0] - losses[:, 1]
    mean = diff.mean(axis=0)
    final_sign = np.sign(mean[-1])
    other = np.flatnonzero(np.sign(mean[1:]) != final_sign)
    settle = float(iterations[1:][other[-1] + 1]) if len(other) else float("nan")
    return {
        "final_standard": float(losses[:, 0, -1].mean()),
        "final_large": float(losses[:, 1, -1].mean()),
        "pairs_standard_better_at_end": int((diff[:, -1] < 0).sum()),
        "n_pairs": int(losses.shape[0]),
        "share_standard_better": float((mean[1:] < 0).mean()),
        "settles_at": settle,
    }


def first_iteration_below(iterations: np.ndarray, curves: np.ndarray, fraction: float) -> np.ndarray:
    """First snapshot iteration at which each curve reaches ``fraction`` of its first value.

    iterations: (S,); curves: (..., S), finite; fraction > 0. Returns (...) floats, nan where a
    curve never gets there. Resolution is that of the snapshots, so two curves can tie."""
    curves = as_array("curves", curves)
    if curves.ndim < 1 or curves.shape[-1] < 1:
        raise ValueError(f"curves must be an array (..., snapshots >= 1), got shape {curves.shape}")
    check_finite("curves", curves)
    check_iterations("iterations", iterations, curves.shape[-1], "curves")
    check_positive_float("fraction", fraction)
    reached = curves <= fraction * curves[..., :1]
    first = np.argmax(reached, axis=-1)
    return np.where(reached.any(axis=-1), np.asarray(iterations, dtype=float)[first], np.nan)


def relative_to_start(curves: np.ndarray) -> np.ndarray:
    """Each curve divided by its first value: (..., S) -> (..., S), 1 at the start.

    The first values must be finite and non-zero; a NaN later in a curve stays NaN in place."""
    curves = as_array("curves", curves)
    if curves.ndim < 1 or curves.shape[-1] < 1:
        raise ValueError(f"curves must be an array (..., snapshots >= 1), got shape {curves.shape}")
    start = curves[..., :1]
    if not (np.isfinite(start).all() and (start != 0).all()):
        bad = np.argwhere(~np.isfinite(start) | (start == 0))[0][:-1]
        raise ValueError(f"curves must start at a finite non-zero value (each curve is divided by its first value), "
                         f"got {start[tuple(bad)][0]!r} for the curve at index {tuple(int(i) for i in bad)}")
    return curves / start


def relative_loss_area(curves: np.ndarray) -> np.ndarray:
    """Each curve divided by its first value, averaged over its snapshots: (..., S) -> (...).

    Lower means a faster improvement relative to the curve's own start (1 = no improvement).
    ``curves`` must be finite, with a non-zero first value."""
    return relative_to_start(check_finite("curves", as_array("curves", curves))).mean(axis=-1)


def halving_iteration(iterations: np.ndarray, curves: np.ndarray, fraction: float = 0.5) -> np.ndarray:
    """First iteration at which each curve falls to ``fraction`` of its own first value, linearly
    interpolated between the two snapshots around the crossing.

    iterations: (S,) increasing snapshot iterations; curves: (..., S) finite losses with a positive
    first value; fraction in (0, 1). Returns (...) float iterations; nan where a curve does not get
    there within its snapshots (censored: the window ends first)."""
    curves = as_array("curves", curves)
    if curves.ndim < 1 or curves.shape[-1] < 2:
        raise ValueError(f"curves must be an array (..., snapshots >= 2), got shape {curves.shape}")
    check_finite("curves", curves)
    check_iterations("iterations", iterations, curves.shape[-1], "curves")
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float, np.floating)) or not 0 < fraction < 1:
        raise ValueError(f"fraction must be a number in (0, 1), got {fraction!r}")
    if not (curves[..., 0] > 0).all():
        raise ValueError("curves must start at a positive value (each is compared with a fraction of its first "
                         f"value), got a minimum first value of {curves[..., 0].min()!r}")
    its = np.asarray(iterations, dtype=float)
    if not (np.isfinite(its).all() and (np.diff(its) > 0).all()):
        raise ValueError(f"iterations must be finite and strictly increasing, got {its!r}")
    target = fraction * curves[..., :1]
    reached = curves <= target
    j = np.maximum(np.argmax(reached, axis=-1), 1)  # the first snapshot at or below the target (never 0)
    before = np.take_along_axis(curves, (j - 1)[..., None], axis=-1)[..., 0]
    after = np.take_along_axis(curves, j[..., None], axis=-1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = (before - target[..., 0]) / (before - after)  # in (0, 1] where reached
    crossing = its[j - 1] + share * (its[j] - its[j - 1])
    return np.where(reached.any(axis=-1), crossing, np.nan)


def halving_comparison(times: np.ndarray) -> dict[str, int]:
    """Which init of each pair halves its loss first, from halving iterations ``times`` (P, 2)
    (column 0 standard, column 1 large; nan: does not halve within the window).

    Returns counts over pairs: ``large_faster`` (large halves, and standard does not or later),
    ``standard_faster`` (the reverse), ``tied`` (both halve at the same iteration), ``neither``
    (neither halves), and ``n_pairs``; the first four add up to ``n_pairs``."""
    times = _pairs("times", times)
    std, large = times[:, STANDARD], times[:, LARGE]
    if np.isinf(times).any():
        raise ValueError("times must be finite iterations or nan (not reached), got an infinite value")
    halves_s, halves_l = np.isfinite(std), np.isfinite(large)
    with np.errstate(invalid="ignore"):
        large_first = halves_l & (~halves_s | (large < std))
        standard_first = halves_s & (~halves_l | (std < large))
    return {"large_faster": int(large_first.sum()), "standard_faster": int(standard_first.sum()),
            "tied": int((halves_s & halves_l & (std == large)).sum()), "neither": int((~halves_s & ~halves_l).sum()),
            "n_pairs": int(len(times))}
