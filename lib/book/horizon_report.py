"""Tables and sentences of the prediction-horizon chapter, from its accuracy curves.

Book layer. The chapter (``notebooks/12_prediction_horizon.py``) computes, per outcome, the
accuracy curves of :func:`lib.analyses.horizon.accuracy_curves` — a dict with ``within``,
``within_lo``, ``within_hi``, ``across`` (P predictors, F fractions), ``earliest``,
``earliest_lo``, ``earliest_hi``, ``earliest_sure`` (P,) — and the rival cells of
:func:`lib.analyses.horizon.rival_cells`. The functions here select and format those numbers
(the strongest cells, the earliest fractions, the per-group correlations, the cells a claim
judges); they compute no new statistic except through :mod:`lib.analyses.horizon_checks`.
``predictors`` is the ordered list of predictor names behind the rows of every curve.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analyses import horizon, horizon_checks
from ..analyses.multiple_testing import holm_adjusted_finite
from . import summary
from .names import reader_name
from .tables import long_view, reading_table

DASH = "\u2013"


def fraction_label(f: float) -> str:
    """A fraction of a phase as text: "t = 0", "2.5%", or a dash when undefined (nan, inf)."""
    return DASH if not np.isfinite(f) else ("t = 0" if f == 0 else f"{100 * f:g}%")


def fractions_words(fractions) -> str:
    """"t = 0 and 10%": the observed fractions, joined (:func:`fraction_label`)."""
    return " and ".join(fraction_label(f) for f in fractions)


def strongest_text(curves: dict, kind: str, predictors, rows: slice, fractions, at: slice = slice(None)) -> str:
    """The largest ``|r|`` of ``kind`` ("within" or "across") over the predictors ``rows``, every outcome
    (the keys of ``curves``) and the fractions ``at``, as text naming predictor, outcome and fraction."""
    best = max(((abs(c[kind][i, f]), i, o, f) for o, c in curves.items()
                for i in range(len(predictors))[rows] for f in range(len(fractions))[at]
                if np.isfinite(c[kind][i, f])), default=None)
    if best is None:
        return "undefined"
    size, i, o, f = best
    return (f"|r| = {size:.2f} ({reader_name(predictors[i])} with the {reader_name(o)}, at "
            f"{fraction_label(fractions[f])})")


def earliest_table(curves: dict, predictors) -> pd.DataFrame:
    """Predictors x outcomes: the earliest fraction reaching the threshold with its bootstrap range."""
    def reached(c: dict, i: int) -> str:
        if not np.isfinite(c["earliest"][i]):
            return DASH
        return (f"{fraction_label(c['earliest'][i])} ({fraction_label(c['earliest_lo'][i])} to "
                f"{fraction_label(c['earliest_hi'][i])})")

    table = pd.DataFrame({reader_name(o): [reached(c, i) for i in range(len(predictors))] for o, c in curves.items()},
                         index=[reader_name(p) for p in predictors])
    table.index.name = "predictor"
    return table


def within_table(curves: dict, predictors, fractions) -> pd.DataFrame:
    """Predictors x (outcome, fraction): the pooled within-group r with its Fisher 95% interval."""
    def cell(c: dict, i: int, f: int) -> str:
        r = c["within"][i, f]
        return DASH if not np.isfinite(r) else f"{r:+.2f} [{c['within_lo'][i, f]:+.2f}, {c['within_hi'][i, f]:+.2f}]"

    table = pd.DataFrame({(reader_name(o), fraction_label(f)): [cell(c, i, j) for i in range(len(predictors))]
                          for o, c in curves.items() for j, f in enumerate(fractions)},
                         index=[reader_name(p) for p in predictors])
    table.index.name = "predictor"
    return table


def labelled_rival_cells(values: np.ndarray, kernels, outcomes: dict, groups, fractions) -> dict:
    """:func:`lib.analyses.horizon.rival_cells` of ``values`` (P, F, N) whose first ``len(kernels)``
    rows are the kernel quantities ``kernels`` and the others the rivals, with readable labels:
    ``p``, ``p_reverse``, ``r_partial``, ``p_partial`` (C,), ``kernel_of`` (C,) the kernel quantity's
    reader name, ``labels`` (C,) (kernel quantity, outcome, fraction) tuples."""
    k = len(kernels)
    cells = horizon.rival_cells(values[:k], values[k:], outcomes, groups, fractions)
    kernel_of = [reader_name(kernels[i]) for i in cells["kernel"]]
    labels = [(name, reader_name(o), fraction_label(fractions[f]))
              for name, o, f in zip(kernel_of, cells["outcome"], cells["fraction"])]
    return {"p": cells["p"], "p_reverse": cells["p_reverse"], "r_partial": cells["r_partial"],
            "p_partial": cells["p_partial"], "kernel_of": kernel_of, "labels": labels}


def rival_findings(cells: dict, level: float = 0.05) -> dict:
    """The findings among the C cells of :func:`labelled_rival_cells` after Holm's correction (each test
    over its finite p-values, :func:`lib.analyses.multiple_testing.holm_adjusted_finite`): ``cells``'
    entries and ``p_holm``, ``p_reverse_holm``, ``p_partial_holm`` (C,); ``winners``, the (kernel
    quantity, outcome, fraction, Holm p) of the cells where the kernel quantity beats every rival
    (``p_holm <= level``); ``beaten``, the sorted names of the kernel quantities some rival beats in some
    cell; ``adds``, the (kernel quantity, outcome, fraction, partial r as "+0.12", Holm p) of the cells
    where the kernel quantity adds information to the rivals. Raises ``ValueError`` for ``level``
    outside (0, 1) or ``cells`` missing an entry or of unequal lengths."""
    keys = ("p", "p_reverse", "r_partial", "p_partial", "kernel_of", "labels")
    if not isinstance(cells, dict) or any(k not in cells for k in keys) or len({len(cells[k]) for k in keys}) != 1:
        raise ValueError(f"cells must be a dict of equally long entries {list(keys)} (labelled_rival_cells), got "
                         + (f"{ {k: len(v) for k, v in cells.items()} }" if isinstance(cells, dict)
                            else type(cells).__name__))
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    p_holm, reverse_holm, partial_holm = (holm_adjusted_finite(cells[k]) for k in ("p", "p_reverse", "p_partial"))
    labels, kernel_of, r_partial = cells["labels"], cells["kernel_of"], cells["r_partial"]
    return {**cells, "p_holm": p_holm, "p_reverse_holm": reverse_holm, "p_partial_holm": partial_holm,
            "winners": [(*labels[i], p_holm[i]) for i in np.flatnonzero(p_holm <= level)],
            "beaten": sorted({kernel_of[i] for i in np.flatnonzero(reverse_holm <= level)}),
            "adds": [(*labels[i], f"{r_partial[i]:+.2f}", partial_holm[i])
                     for i in np.flatnonzero(partial_holm <= level)]}


WINNER_COLUMNS = ["kernel quantity", "outcome", "fraction f", "Holm-adjusted p"]
ADDS_COLUMNS = ["kernel quantity", "outcome", "fraction f", "partial r given the rivals", "Holm-adjusted p"]


def finding_tables(findings: dict, titles: dict[str, str]) -> list:
    """The reader's tables of :func:`rival_findings`' ``winners`` (a kernel quantity beats every
    rival) and ``adds`` (it adds to the rivals), each under ``titles[kind]`` for the kinds that
    ``titles`` names, in that order; a kind with no cell shows no table."""
    columns = {"winners": WINNER_COLUMNS, "adds": ADDS_COLUMNS}
    unknown = set(titles) - set(columns)
    if unknown:
        raise ValueError(f"titles may name only {sorted(columns)}, got {sorted(unknown)}")
    return [reading_table(pd.DataFrame(findings[kind], columns=columns[kind]), title)
            for kind, title in titles.items() if findings[kind]]


def control_text(found: np.ndarray) -> str:
    """The shuffled-outcome control in words: ``found`` (n,) discoveries per permutation (nan: untestable)."""
    testable = np.asarray(found, float)
    testable = testable[np.isfinite(testable)]
    if testable.size == 0:
        return "No cell could be tested in any permutation (too few networks)."
    return (f"Some cell is significant in {int(np.sum(testable > 0))} of the {testable.size} permutations "
            f"({np.mean(testable > 0):.1%}); the most discoveries in one permutation: {int(testable.max())}.")


def strongest_cells(curves: dict, fractions, predictors, names) -> list[tuple[str, str, int]]:
    """Per outcome, the (predictor, outcome, fraction index) among ``names`` and the fractions > 0
    with the largest pooled within-group ``|r|``."""
    later = [f for f, x in enumerate(fractions) if x > 0]
    rows = [list(predictors).index(p) for p in names]
    out = []
    for o, c in curves.items():
        size = np.abs(np.nan_to_num(c["within"][np.ix_(rows, later)]))
        i, f = np.unravel_index(np.argmax(size), size.shape)
        out.append((names[i], o, later[f]))
    return out


def per_group_table(values: np.ndarray, outcomes: dict, groups, fractions, curves: dict, predictors, kernels,
                    rivals) -> tuple[pd.DataFrame, str]:
    """For the strongest kernel and rival cell of each outcome: the r inside each group with its
    Fisher 95% interval, the pooled r and Cochran's Q p (one common correlation), one row per cell;
    and a sentence summarising the Q tests."""
    rows, q_p, spread = [], [], []
    for p, o, f in strongest_cells(curves, fractions, predictors, kernels) + \
            strongest_cells(curves, fractions, predictors, rivals):
        i = list(predictors).index(p)
        c = horizon_checks.per_group_correlations(values[i, f], outcomes[o], groups)
        _, qp = horizon_checks.cochran_q(c["r"], c["n"])
        row = {"cell": f"{reader_name(p)} at {fraction_label(fractions[f])} -> {reader_name(o)}"}
        row |= {str(g): DASH if not np.isfinite(r) else f"{r:+.2f} [{lo:+.2f}, {hi:+.2f}]"
                for g, r, lo, hi in zip(c["group"], c["r"], c["lo"], c["hi"])}
        row |= {"pooled r": f"{curves[o]['within'][i, f]:+.2f}",
                "Cochran's Q p": f"{qp:.2g}" if np.isfinite(qp) else DASH}
        rows.append(row)
        q_p.append(qp)
        spread.append(np.nanmax(c["r"]) - np.nanmin(c["r"]) if np.isfinite(c["r"]).sum() > 1 else np.nan)
    q_p = np.asarray(q_p)
    text = (f"Of these {len(rows)} cells, Cochran's Q rejects one common correlation (p <= 0.05) for "
            f"{int(np.sum(q_p <= 0.05))}; the per-group r's of a cell differ by up to {np.nanmax(spread):.2f}."
            if np.isfinite(q_p).any() else "Too few networks per group for Cochran's Q.")
    return pd.DataFrame(rows).set_index("cell"), text


PER_GROUP_KEPT = ("pooled r", "Cochran's Q p")  # the columns of per_group_table that are not groups


def per_group_long(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`per_group_table`'s table (cells x (G groups, pooled r, Cochran's Q p)) with one row per
    cell and group (:func:`lib.book.tables.long_view`, index "cell", "group"; it fits the page with
    five groups): the group's "r [95% interval]", then the cell's pooled r and Q p repeated."""
    groups = [c for c in table.columns if c not in PER_GROUP_KEPT]
    return long_view(table, ["cell", "group"], columns=groups, value_name="r [95% interval]")


def window_cells(curves: dict, predictors, names, outcomes, fractions, early: float,
                 phase: str = "") -> tuple[list[float], list[str]]:
    """The cells a window claim judges: the pooled within-group r of each predictor in ``names`` with
    each outcome in ``outcomes`` at each fraction f with 0 < f <= ``early``, and their labels
    (``phase``, e.g. " of fine-tuning", is appended to the fraction)."""
    at = [i for i, f in enumerate(fractions) if 0 < f <= early]
    r = [float(curves[o]["within"][list(predictors).index(p), f]) for o in outcomes for p in names for f in at]
    labels = [f"{reader_name(p)} -> {reader_name(o)} at {fraction_label(fractions[f])}{phase}"
              for o in outcomes for p in names for f in at]
    return r, labels



def summary_rows(judgements: dict, finetune_judgements: dict, pair_judgements: dict, replicated: dict,
                 earlier: dict, control_found_text: str, pair_control_found_text: str, replication_words: str,
                 precision_text: str, continuum_replicated: dict, continuum_replication_words: str,
                 continuum_precision_text: str) -> list[dict]:
    """Chapter 12's summary records (:func:`lib.book.summary.claim_row`), one per horizon claim: the
    continuum's windows, rivals and partial correlations (``judgements``) and the fine-tuning claims
    (``finetune_judgements``), each with its earlier versions' judgements (``earlier``: claim ->
    judgements, oldest first) and beside the continuum's replication block (``continuum_replicated``,
    the block's words and its precision text), and the paper's pairs (``pair_judgements``) beside
    their replication block (``replicated``, the block's words and the precision text); the
    shuffled-outcome controls' findings as text (:func:`control_text`)."""
    window = "a time window of prediction (Discussion)"
    rival_control = "the reverse test (a rival beats the kernel quantity)"
    figure, rivals = summary.evidence("hz-figure", "horizon figure"), summary.evidence("hz-rivals", "rival comparison")
    finetune = summary.evidence("hz-finetune", "fine-tuning figure")
    pairs_figure, pairs_table = (summary.evidence("hz-pairs", "pairs' horizon figure"),
                                 summary.evidence("hz-pairs-table", "pairs' table"))
    def row(quantity, paper, judgement, **kw):
        if judgement.claim in continuum_replicated:
            kw |= dict(replication=continuum_replicated[judgement.claim], replication_block=continuum_replication_words,
                       precision=continuum_precision_text)
        return summary.claim_row(quantity, paper, judgement, earlier=earlier.get(judgement.claim, []), **kw)
    rows = [
        row("within-scale |r| of an eNTK quantity at f <= 10% with an outcome", window,
            judgements["horizon-kernel-window"], evidence=figure,
            control="the same criterion for the trivial rivals (next rows) and a within-scale shuffled outcome"),
        row("within-scale |r| of the sharing index at f <= 10% with its final value", "",
            judgements["horizon-representation-window"], control="the shuffled outcome", evidence=figure),
        row("within-scale |r| of the test loss at f <= 10% with the final test loss", "",
            judgements["horizon-loss-window"], control="the shuffled outcome", evidence=figure),
        row("a kernel quantity predicts better than every trivial rival at the same f", "",
            judgements["horizon-kernel-beats-rivals"], control=rival_control, evidence=rivals),
        row("partial r of a kernel quantity with an outcome given all trivial rivals (post hoc)", "",
            judgements["horizon-kernel-adds"], evidence=rivals,
            control="Holm over every kernel quantity, outcome and fraction; the same test on within-scale shuffled "
                    "outcomes (next row): " + control_found_text),
        row("control: the partial-correlation test on within-scale shuffled outcomes finds little", "",
            judgements["horizon-kernel-adds-control"], control="negative control of the row above", evidence=rivals),
        row("within-scale |r| of an eNTK quantity observed at f <= 10% of fine-tuning with a fine-tuning outcome",
            window, finetune_judgements["horizon-finetune-kernel-window"], evidence=finetune,
            control="the multitask test loss observed at the same f (next row)"),
        row("within-scale |r| of the multitask test loss at f <= 10% of fine-tuning with its final value", "",
            finetune_judgements["horizon-finetune-loss-window"], control="", evidence=finetune),
        row("a kernel quantity observed during fine-tuning predicts a fine-tuning outcome better than every trivial "
            "rival at the same f", "", finetune_judgements["horizon-finetune-kernel-beats-rivals"], evidence=finetune,
            control=rival_control + "; the test-loss rival shares data with the fine-tuning speed"),
    ]
    replication = lambda key: dict(replication=replicated[key], replication_block=replication_words,
                                   precision=precision_text)
    rows += [
        row("the paper's pairs: within-group |r| of an eNTK quantity at f <= 10% with an outcome", window,
            pair_judgements["horizon-pairs-kernel-window"], evidence=pairs_figure,
            control="the same criterion for the trivial rivals (next rows)",
            **replication("horizon-pairs-kernel-window")),
        row("the paper's pairs: within-group |r| of the sharing index at f <= 10% with its final value", "",
            pair_judgements["horizon-pairs-representation-window"], control="", evidence=pairs_figure,
            **replication("horizon-pairs-representation-window")),
        row("the paper's pairs: within-group |r| of the test loss at f <= 10% with the final test loss", "",
            pair_judgements["horizon-pairs-loss-window"], control="", evidence=pairs_figure,
            **replication("horizon-pairs-loss-window")),
        row("the paper's pairs: a kernel quantity predicts better than every trivial rival at the same f", "",
            pair_judgements["horizon-pairs-kernel-beats-rivals"], control=rival_control, evidence=pairs_table,
            **replication("horizon-pairs-kernel-beats-rivals")),
        row("the paper's pairs: partial r of a kernel quantity with an outcome given all trivial rivals", "",
            pair_judgements["horizon-pairs-kernel-adds"], evidence=pairs_table,
            control="Holm over every kernel quantity, outcome and fraction; the same test on within-group shuffled "
                    "outcomes (next row): " + pair_control_found_text,
            **replication("horizon-pairs-kernel-adds")),
        row("the paper's pairs, control: the partial-correlation test on within-group shuffled outcomes finds little",
            "", pair_judgements["horizon-pairs-kernel-adds-control"], control="negative control of the row above",
            evidence=pairs_table),
    ]
    return rows
