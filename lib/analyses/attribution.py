"""What the chapter "The eNTK over training" may conclude from its ePNTK attribution, with the
spread over pairs or networks that each conclusion rests on.

Three kinds of evidence, all computed from the arrays that
:func:`lib.experiments.kernel_dynamics.run_kernel_dynamics` stores (nothing here trains or
computes a kernel):

* **Attribution by category of training pattern.** The ePNTK splits the learned change of the
  outputs, dy (N rows, K outputs), into the contributions C_c of the categories of
  :data:`~lib.experiments.kernel_dynamics.SHARING_CATEGORIES`. The share of ``sum |C_c|`` says
  how large a category's contributions are; the signed (projection) share
  ``<C_c, dy> / |dy|^2`` (summing to 1 over the categories) says how much of the change it makes,
  negative where it pushes against the change. The cancellation factor ``sum_c |C_c| / |dy|``
  (1: no category pushes against another) says how much of the magnitude cancels.
* **Crossing times at several thresholds**: the first snapshot at which a similarity to the t=0
  eNTK falls below each threshold, per pair, so that a reader sees whether a conclusion depends
  on the threshold.
* **Paired contrasts** between the predictors of the learned representation (the final ePNTK,
  the t=0 eNTK, the untrained hidden layer): differences per pair with t-intervals.

Intervals are Student-t intervals of a mean over pairs (or networks), from
:func:`lib.analyses.kernel_analysis.paired_interval`; with the chapter's 5 pairs they are wide, and
they are reported as such.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import as_array, check_level, check_ndim
from .kernel_analysis import first_below, paired_interval
from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import INITS
from ..core.validation import check_choice
from ..experiments.kernel_dynamics import SHARING_CATEGORIES

OTHER_TASKS = "other tasks (the three above)"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
WINDOW_MEASURES = {"alignment of eNTK(t) with eNTK(0)": "alignment_initial",
                   "overlap of leading vectors, eNTK(t) vs eNTK(0)": "overlap_initial",
                   "alignment of the ePNTK so far with eNTK(0)": "alignment_path_initial"}


def with_other_tasks(shares: np.ndarray) -> np.ndarray:
    """(..., C + 1): per-category shares (..., C) of :data:`SHARING_CATEGORIES` (the first is the
    same task) with the sum over the other categories, all other tasks' patterns, appended.
    Shares add over categories (both the ``|C|`` shares and the signed projection shares), so the
    appended column is the share of the union."""
    shares = as_array("shares", shares)
    if np.ndim(shares) < 1 or np.shape(shares)[-1] != len(SHARING_CATEGORIES):
        raise ValueError(f"shares must be an array (..., {len(SHARING_CATEGORIES)} categories), got shape "
                         f"{np.shape(shares)}")
    return np.concatenate([shares, shares[..., 1:].sum(axis=-1, keepdims=True)], axis=-1)


def interval_text(mean: float, low: float, high: float, fmt: str = ".2f") -> str:
    """'mean [low, high]' (an interval with nan bounds: 'mean (one value)')."""
    if not np.isfinite(low) or not np.isfinite(high):
        return f"{mean:{fmt}} (no interval)"
    return f"{mean:{fmt}} [{low:{fmt}}, {high:{fmt}}]"


def attribution_table(results: dict[str, dict], index_set: str = "authors", snapshot: int = -1,
                      level: float = 0.95) -> pd.DataFrame:
    """Per schedule, init and category (plus all other tasks together, :data:`OTHER_TASKS`): the
    category's share of the (row, training pattern) pairs, its share of ``sum |C|`` and its signed
    share of the learned change of the rows of ``index_set`` at ``snapshot``, each as the mean
    over pairs with a t-interval at ``level``.

    results: schedule -> run (``sharing_abs``, ``sharing_signed`` (P, 2, S, 2 sets, C) and
    ``sharing_pattern_fraction`` (P, 2, 2, C)). Columns: text columns, and numbers ``_abs``,
    ``_abs_low``, ``_abs_high``, ``_signed``, ``_signed_low``, ``_signed_high``, ``_fraction``."""
    s = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    check_level("level", level)
    rows = []
    for schedule, run in results.items():
        for i, init in enumerate(INITS):
            absolute = with_other_tasks(run["sharing_abs"][:, i, snapshot, s])  # (P, C + 1)
            signed = with_other_tasks(run["sharing_signed"][:, i, snapshot, s])
            fraction = with_other_tasks(run["sharing_pattern_fraction"][:, i, s])
            for c, category in enumerate((*SHARING_CATEGORIES, OTHER_TASKS)):
                a, g = paired_interval(absolute[:, c], level), paired_interval(signed[:, c], level)
                rows.append({"schedule": schedule, "init": init, "training patterns": category,
                             "share of the patterns": f"{fraction[:, c].mean():.3f}",
                             "share of |contribution|": interval_text(*a),
                             "signed share of the change": interval_text(*g),
                             "_abs": a[0], "_abs_low": a[1], "_abs_high": a[2],
                             "_signed": g[0], "_signed_low": g[1], "_signed_high": g[2],
                             "_fraction": float(fraction[:, c].mean())})
    return pd.DataFrame(rows)


def cancellation_table(results: dict[str, dict], index_set: str = "authors", snapshot: int = -1,
                       level: float = 0.95) -> pd.DataFrame:
    """Per schedule and init, the cancellation factors at ``snapshot`` on the rows of
    ``index_set``: by category (``cancellation``, ``sum_c |C_c| / sum |dy|``) and by single
    training pattern (``cancellation_patterns``), each as median, range and mean with a
    t-interval over the P networks of that init. results: schedule -> run with those entries
    (P, 2, S, 2 sets). Numbers in ``_median``, ``_min``, ``_max``, ``_mean``, ``_low``, ``_high``."""
    s = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    check_level("level", level)
    rows = []
    for schedule, run in results.items():
        for i, init in enumerate(INITS):
            for label, key in (("by category", "cancellation"), ("by training pattern", "cancellation_patterns")):
                values = as_array(key, run[key])[:, i, snapshot, s]
                mean, low, high = paired_interval(values, level)
                rows.append({"schedule": schedule, "init": init, "sum |C| / |dy|": label,
                             "median over networks": f"{np.median(values):.1f}",
                             "range": f"{values.min():.1f} to {values.max():.1f}",
                             "mean [95% CI]" if level == 0.95 else f"mean [{level:.0%} CI]":
                                 interval_text(mean, low, high, ".1f"),
                             "networks": len(values), "_median": float(np.median(values)),
                             "_min": float(values.min()), "_max": float(values.max()), "_mean": mean, "_low": low,
                             "_high": high})
    return pd.DataFrame(rows)


def crossing_times(iterations: np.ndarray, curves: np.ndarray, thresholds=THRESHOLDS) -> np.ndarray:
    """(T, P) the first snapshot iteration after 0 at which each of P curves (P, S) falls below
    each threshold (T,) (:func:`lib.analyses.kernel_analysis.first_below`); nan: not within the run."""
    curves = check_ndim("curves", as_array("curves", curves), 2, "(P pairs, S snapshots)")
    thresholds = check_ndim("thresholds", as_array("thresholds", thresholds), 1, "(T thresholds,)")
    if not len(thresholds):
        raise ValueError("thresholds must hold at least one threshold, got none")
    return np.stack([first_below(iterations, curves, float(t)) for t in thresholds])


def crossing_order(first_a: np.ndarray, first_b: np.ndarray) -> np.ndarray:
    """(..., 3) counts over the last axis (pairs) of: ``a`` crosses first, both at the same
    snapshot, ``b`` crosses first; crossing times (..., P) with nan for never (later than any
    crossing; two nevers tie)."""
    a, b = as_array("first_a", first_a), as_array("first_b", first_b)
    if np.shape(a) != np.shape(b) or np.ndim(a) < 1:
        raise ValueError(f"first_a and first_b must be arrays (..., P pairs) of one shape, got {np.shape(a)} and "
                         f"{np.shape(b)}")
    a, b = np.where(np.isnan(a), np.inf, a), np.where(np.isnan(b), np.inf, b)
    return np.stack([(a < b).sum(axis=-1), (a == b).sum(axis=-1), (a > b).sum(axis=-1)], axis=-1)


def crossing_text(times: np.ndarray) -> str:
    """The crossing times of the pairs (P,) as text: '200, 400, never'."""
    times = check_ndim("times", as_array("times", times), 1, "(P pairs,)")
    return ", ".join("never" if np.isnan(t) else f"{t:.0f}" for t in times)


def crossing_table(results: dict[str, dict], index_set: str, thresholds=THRESHOLDS) -> tuple[pd.DataFrame, dict]:
    """Per schedule and measure of :data:`WINDOW_MEASURES` (mean over outputs), the crossing
    times of every pair at each threshold, for both inits, and how many pairs see large init
    cross first, at the same snapshot, or later.

    Returns (table, crossings): the table has a row per (schedule, measure, init) with a column per
    threshold (the pairs' iterations) and one per (schedule, measure) "large vs standard" (counts
    'large first / same snapshot / standard first' per threshold); crossings maps (schedule,
    measure) -> (T, P, 2 inits) iterations (nan: never)."""
    i = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    thresholds = tuple(float(t) for t in check_ndim("thresholds", as_array("thresholds", thresholds), 1, "(T,)"))
    rows, crossings = [], {}
    for schedule, run in results.items():
        for label, key in WINDOW_MEASURES.items():
            times = np.stack([crossing_times(run["iterations"], run[key][:, j, :, i].mean(axis=-1), thresholds)
                              for j in range(len(INITS))], axis=-1)  # (T, P, 2)
            crossings[(schedule, label)] = times
            for j, init in enumerate(INITS):
                rows.append({"schedule": schedule, "measure": label, "init": init,
                             **{f"{t:g}": crossing_text(times[k, :, j]) for k, t in enumerate(thresholds)}})
            order = crossing_order(times[..., 1], times[..., 0])  # (T, 3): large first, tie, standard first
            rows.append({"schedule": schedule, "measure": label, "init": "large first / same / standard first",
                         **{f"{t:g}": " / ".join(str(n) for n in order[k]) for k, t in enumerate(thresholds)}})
    return pd.DataFrame(rows), crossings


def threshold_dependence(times: np.ndarray) -> dict[str, bool]:
    """Whether a conclusion drawn from crossing times (T thresholds, P pairs, 2 inits) depends on the
    threshold: ``never_changes`` (some pair and init crosses at one threshold and never at another),
    ``order_changes`` (in some pair, which init crosses first — large, standard, or both at the same
    snapshot, never counting as later than any crossing — differs between thresholds)."""
    times = check_ndim("times", as_array("times", times), 3, "(T thresholds, P pairs, 2 inits)")
    never = np.isnan(times)
    filled = np.where(never, np.inf, times)
    large, standard = filled[..., 1], filled[..., 0]
    order = np.where(large < standard, -1, np.where(large > standard, 1, 0))  # (T, P); both never: the same
    return {"never_changes": bool((never != never[:1]).any()), "order_changes": bool((order != order[:1]).any())}


def paired_contrasts(values: dict[str, np.ndarray], contrasts, level: float = 0.95) -> dict[str, tuple]:
    """{'a − b': (mean, low, high)}: t-interval of the mean paired difference ``values[a] -
    values[b]`` (each (P,), one value per pair) for each (a, b) in ``contrasts``."""
    check_level("level", level)
    out = {}
    for a, b in contrasts:
        for name in (a, b):
            if name not in values:
                raise ValueError(f"contrasts name {name!r}, which is not among the values {sorted(values)}")
        out[f"{a} − {b}"] = paired_interval(as_array(a, values[a]) - as_array(b, values[b]), level)
    return out


def direction(interval: tuple[float, float, float]) -> str:
    """'above 0', 'below 0', 'zero in every pair' (a degenerate interval at 0) or 'unresolved' (nan
    bounds included) for a (mean, low, high) interval."""
    mean, low, high = interval
    if mean == low == high == 0:
        return "zero in every pair"
    return "above 0" if low > 0 else "below 0" if high < 0 else "unresolved"


REPRESENTATION_CONTRASTS = (("final ePNTK, training-pattern side", "t=0 eNTK, training-pattern side"),
                            ("final ePNTK, training-pattern side", "hidden layer at t=0 (control)"),
                            ("t=0 eNTK, training-pattern side", "hidden layer at t=0 (control)"))


def representation_contrasts(agreement: dict[str, dict], metrics=("rsa", "ari3", "ari4"),
                             contrasts=REPRESENTATION_CONTRASTS, level: float = 0.95) -> pd.DataFrame:
    """Paired contrasts (:func:`paired_contrasts`) between predictors of the trained hidden layer's
    task similarity, per schedule, init and metric. agreement: schedule -> the output of
    :func:`lib.analyses.kernel_analysis.representation_agreement` (``<metric>/<predictor>`` (P, 2)).
    A row per (schedule, init, metric, contrast) with ``_mean``, ``_low``, ``_high`` and the
    ``direction`` of the interval."""
    rows = []
    for schedule, values in agreement.items():
        for i, init in enumerate(INITS):
            for metric in metrics:
                by_predictor = {name.split("/", 1)[1]: v[:, i] for name, v in values.items()
                                if name.split("/", 1)[0] == metric}
                if not by_predictor:
                    raise ValueError(f"metrics: no {metric!r} entries in agreement[{schedule!r}]")
                for contrast, interval in paired_contrasts(by_predictor, contrasts, level).items():
                    rows.append({"schedule": schedule, "init": init, "metric": metric, "contrast": contrast,
                                 "difference [95% CI]" if level == 0.95 else f"difference [{level:.0%} CI]":
                                     interval_text(*interval, "+.2f"),
                                 "direction": direction(interval), "_mean": interval[0], "_low": interval[1],
                                 "_high": interval[2]})
    return pd.DataFrame(rows)


def largest_error(errors: dict[tuple[str, str], np.ndarray]) -> tuple[float, tuple[str, str], dict]:
    """(largest value, its key, {key: largest value}) of relative errors per (schedule, init), each
    an array of any shape (snapshots x index sets) in which nan (an undefined error, e.g. 0/0 at
    iteration 0) is ignored; an all-nan entry is an error."""
    if not errors:
        raise ValueError("errors must map (schedule, init) to arrays of relative errors, got nothing")
    largest = {}
    for key, values in errors.items():
        values = as_array(f"errors[{key!r}]", values)
        if not np.isfinite(values).any():
            raise ValueError(f"errors[{key!r}] holds no finite value")
        largest[key] = float(np.nanmax(values))
    worst = max(largest, key=largest.get)
    return largest[worst], worst, largest
