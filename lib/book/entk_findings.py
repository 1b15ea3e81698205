"""Chapter 08's findings as reader text: what the tables of the eNTK-over-training chapter say.

The chapter computes its tables with :mod:`lib.analyses.attribution` and
:mod:`lib.analyses.kernel_analysis`; these functions read them and return the sentences and
numbers its "What we found" section glues, keyed by glue name (``kd_find_...``). The tables, by
the names the chapter gives them:

* ``window``: :func:`lib.analyses.kernel_analysis.window_table` (one row per schedule, init and
  window measure, in the order of :data:`WINDOW_SLUGS`; ``_median`` iteration and ``_fraction``);
* ``shared``: :func:`lib.analyses.attribution.attribution_table` indexed by (schedule, init,
  training-pattern category) with the signed share ``_signed`` (``_signed_low``, ``_signed_high``:
  its 95% interval over pairs) and the share of the summed absolute contributions ``_abs``;
* ``cancelled``: :func:`lib.analyses.attribution.cancellation_table` indexed by (schedule, init,
  kind) with the ``_median`` cancellation factor;
* ``representation``: one row per schedule, init and predictor with its ``_rsa``;
* ``contrast_of``: :func:`lib.analyses.attribution.representation_contrasts` indexed by
  (schedule, init, metric name, contrast) with ``_mean``, ``_low``, ``_high``.

An interval is (mean, low, high).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analyses import attribution
from ..analyses import kernel_analysis as ka
from ..core.models import INITS

WINDOW_SLUGS = ("align", "overlap", "path")  # the window measures of attribution.WINDOW_MEASURES, in order
METRIC_NAMES = {"rsa": "RSA", "ari3": "ARI (3 clusters)", "ari4": "ARI (4 clusters)"}
EPNTK, ENTK0, CONTROL = "final ePNTK, training-pattern side", "t=0 eNTK, training-pattern side", \
    "hidden layer at t=0 (control)"

Interval = tuple[float, float, float]


def signed(shared: pd.DataFrame, name: str, init: str, category: str) -> Interval:
    """The signed share of a category of training patterns (test inputs, end of training)."""
    return tuple(float(v) for v in shared.loc[(name, init, category), ["_signed", "_signed_low", "_signed_high"]])


def category_intervals(shared: pd.DataFrame, name: str, init: str, kind: str, categories) -> np.ndarray:
    """(categories, 3): the mean and 95% interval of each category's ``kind`` share ("signed" or "abs")."""
    return shared.loc[[(name, init, c) for c in categories], [f"_{kind}", f"_{kind}_low", f"_{kind}_high"]].to_numpy()


def interval_pair(intervals: list[Interval], fmt: str = "+.2f") -> tuple[str, str]:
    """(means, intervals) of several intervals as texts joined by " / "."""
    return (" / ".join(f"{m:{fmt}}" for m, _, _ in intervals),
            " / ".join(f"[{lo:{fmt}}, {hi:{fmt}}]" for _, lo, hi in intervals))


def negated(interval: Interval) -> Interval:
    """The interval of minus the quantity."""
    return -interval[0], -interval[2], -interval[1]


def contrast(contrast_of: pd.DataFrame, name: str, init: str, metric: str, a: str, b: str) -> Interval:
    """The paired difference a - b of a metric (a key of :data:`METRIC_NAMES`; a, b: predictor names)."""
    return tuple(float(v) for v in
                 contrast_of.loc[(name, init, METRIC_NAMES[metric], f"{a} − {b}"), ["_mean", "_low", "_high"]])


def same_task_difference(values: np.ndarray) -> Interval:
    """Large minus standard init of the same task's share, paired by pair: ``values`` (P, 2 inits)."""
    values = np.asarray(values)
    return ka.paired_interval(values[:, 1] - values[:, 0])


def listed(items: list[str], empty: str = "none") -> str:
    """The items joined by "; ", or ``empty``."""
    return "; ".join(items) if items else empty


def window_text(window: pd.DataFrame, name: str, init: str, slug: str = "align") -> str:
    """"at iteration N (x% of training)" or "never during training" (median over pairs)."""
    r = window[(window.schedule == name) & (window.init == init)].iloc[WINDOW_SLUGS.index(slug)]
    return "never during training" if np.isnan(r["_median"]) else \
        f"at iteration {r['_median']:.0f} ({r['_fraction']:.0%})"


def other_tasks_reading(interval: Interval) -> str:
    """What the signed share of other tasks' patterns says."""
    _, low, high = interval
    return ("they push against the learned change overall (signed share below 0)" if high < 0 else
            "they make most of it (signed share above 0.5)" if low > 0.5 else
            "they make part of it (signed share above 0)" if low > 0 else "their net part is not resolved")


def sharing_reading(d_abs: Interval, d_signed: Interval) -> str:
    """What the large-minus-standard differences of the same task's share say, by magnitude and signed."""
    agree = attribution.direction(d_abs), attribution.direction(d_signed)
    if agree == ("above 0", "above 0"):
        return "both larger for large init, as separated representations would have it"
    if set(agree) == {"above 0", "below 0"}:
        return ("the two measures point in opposite directions, so the kernel shows no consistent "
                "shared-versus-separated contrast")
    return "not resolved by both measures"


def window_findings(window: pd.DataFrame, dependence: dict, crossings: dict, name: str) -> dict[str, str]:
    """glue name -> text: the time-window findings of schedule ``name`` (``dependence``: (schedule,
    measure) -> :func:`lib.analyses.attribution.threshold_dependence`; ``crossings``: (schedule,
    measure) -> first crossing times (thresholds, pairs, 2 inits))."""
    out = {f"kd_find_window_{slug}_{name}_{init}": window_text(window, name, init, slug)
           for init in INITS for slug in WINDOW_SLUGS}
    depends = [label for (schedule, label), d in dependence.items() if schedule == name and d["never_changes"]]
    out[f"kd_find_depends_{name}"] = listed(depends, "none of the three")
    standard_first = sum(int(attribution.crossing_order(times[..., 1], times[..., 0])[:, 2].sum())
                         for (schedule, _), times in crossings.items() if schedule == name)
    out[f"kd_find_standard_first_{name}"] = f"{standard_first}"
    return out


def sharing_findings(shared: pd.DataFrame, cancelled: pd.DataFrame, same_task: dict[str, np.ndarray],
                     name: str) -> dict[str, str]:
    """glue name -> text: the sharing findings of schedule ``name`` (test inputs, end of training);
    ``same_task``: "sharing_abs" / "sharing_signed" -> the same task's share (P, 2 inits)."""
    out = {}
    for init in INITS:
        other = signed(shared, name, init, attribution.OTHER_TASKS)
        out[f"kd_find_other_abs_{name}_{init}"] = f"{shared.loc[(name, init, attribution.OTHER_TASKS), '_abs']:.0%}"
        out[f"kd_find_other_signed_{name}_{init}"] = attribution.interval_text(*other, "+.2f")
        out[f"kd_find_same_signed_{name}_{init}"] = attribution.interval_text(*signed(shared, name, init, "same task"),
                                                                             "+.2f")
        out[f"kd_find_other_reading_{name}_{init}"] = other_tasks_reading(other)
        for kind, fmt in (("by category", ".1f"), ("by training pattern", ".0f")):
            out[f"kd_find_cancel_{kind.split()[-1]}_{name}_{init}"] = \
                f"{cancelled.loc[(name, init, kind), '_median']:{fmt}}"
    d_abs, d_signed = (same_task_difference(same_task[key]) for key in ("sharing_abs", "sharing_signed"))
    out[f"kd_find_same_difference_abs_{name}"] = attribution.interval_text(*d_abs, "+.2f")
    out[f"kd_find_same_difference_signed_{name}"] = attribution.interval_text(*d_signed, "+.2f")
    out[f"kd_find_sharing_reading_{name}"] = sharing_reading(d_abs, d_signed)
    return out


def representation_findings(representation: pd.DataFrame, contrast_of: pd.DataFrame, name: str) -> dict[str, str]:
    """glue name -> text: the agreement of each kernel with the trained hidden layer, schedule ``name``."""
    out = {}
    for init in INITS:
        for key, predictor in (("epntk", EPNTK), ("entk0", ENTK0), ("control", CONTROL)):
            rsa = representation[(representation.schedule == name) & (representation.init == init)
                                 & (representation.predictor == predictor)]["_rsa"].iloc[0]
            out[f"kd_find_rsa_{key}_{name}_{init}"] = f"{rsa:.2f}"
        for metric in METRIC_NAMES:
            gain = contrast(contrast_of, name, init, metric, EPNTK, ENTK0)
            out[f"kd_find_gain_{metric}_{name}_{init}"] = attribution.interval_text(*gain, "+.2f")
            out[f"kd_find_gain_direction_{metric}_{name}_{init}"] = attribution.direction(gain)
        against = {m: [contrast(contrast_of, name, init, m, kernel, CONTROL) for kernel in (EPNTK, ENTK0)]
                   for m in METRIC_NAMES}
        resolved = [m for m, pair in against.items() if all(attribution.direction(c) == "below 0" for c in pair)]
        ahead = [m for m, pair in against.items() if all(c[0] < 0 for c in pair) and m not in resolved]
        out[f"kd_find_control_resolved_{name}_{init}"] = listed([METRIC_NAMES[m] for m in resolved])
        out[f"kd_find_control_mean_{name}_{init}"] = listed([METRIC_NAMES[m] for m in ahead])
    return out


def schedule_findings(runs: dict, window: pd.DataFrame, dependence: dict, crossings: dict, shared: pd.DataFrame,
                      cancelled: pd.DataFrame, representation: pd.DataFrame,
                      contrast_of: pd.DataFrame) -> dict[str, str]:
    """glue name -> text: every schedule's time-window, sharing and representation findings
    (:func:`window_findings`, :func:`sharing_findings` with the same task's share of each run's test
    inputs at the end of training, :func:`representation_findings`)."""
    texts = {}
    for name, run in runs.items():
        same_task = {key: run[key][:, :, -1, 1, 0] for key in ("sharing_abs", "sharing_signed")}  # (P, 2 inits)
        texts |= {**window_findings(window, dependence, crossings, name),
                  **sharing_findings(shared, cancelled, same_task, name),
                  **representation_findings(representation, contrast_of, name)}
    return texts


def count_range(counts: np.ndarray) -> str:
    """"a" or "a to b": the range of pair counts over the thresholds."""
    return f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()} to {counts.max()}"


def crossing_texts(crossings: dict, dependence: dict) -> dict[str, str]:
    """The page's texts of the threshold crossings (:func:`lib.analyses.attribution.crossing_table`'s
    (schedule, measure) -> (T thresholds, P pairs, 2 inits) iterations, NaN: never) and their
    dependence on the threshold (:func:`lib.analyses.attribution.threshold_dependence`): per schedule and
    window measure, the pairs that never cross at each threshold, the range of pairs in which large
    or standard init crosses first, and whether "never" changes with the threshold."""
    slugs = dict(zip(attribution.WINDOW_MEASURES, WINDOW_SLUGS))
    texts = {}
    for (name, label), times in crossings.items():
        key = f"kd_cross_{name}_{slugs[label]}"
        never = np.isnan(times).sum(axis=1)  # (T, 2 inits)
        order = attribution.crossing_order(times[..., 1], times[..., 0])  # (T, 3): large first, same, standard first
        texts |= {f"{key}_never": ", ".join(f"{t:g}: {a}/{b}" for t, (a, b) in zip(attribution.THRESHOLDS, never)),
                  f"{key}_large_first": count_range(order[:, 0]), f"{key}_standard_first": count_range(order[:, 2]),
                  f"{key}_depends": "yes" if dependence[(name, label)]["never_changes"] else "no"}
    return texts
