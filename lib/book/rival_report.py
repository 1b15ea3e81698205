"""Cells and sentences of the rival-theories chapter, from its per-network scores.

Book layer. The chapter (``notebooks/13_rival_theories.py``) scores every predictor on every
network (:func:`lib.analyses.rival_comparison.outcome_scores`): ``scores[g][outcome][predictor]``
is an (n,) array over the networks of initial scale ``g`` (nan where a predictor gives no
score, e.g. a route that never reaches half its loss). The functions here gather the cells a
claim judges (:func:`lib.analyses.rival_comparison.paired_cells`) and say in words which
predictor scores best; they compute no new statistic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..analyses import rival_comparison


def scale_cells(scores: dict, outcome: str, theory: str, rivals: Sequence[str], scales: Sequence[float],
                transform: Callable[[np.ndarray], np.ndarray]) -> dict:
    """:func:`lib.analyses.rival_comparison.paired_cells` of ``theory`` against each rival at each scale,
    on the scores of ``outcome`` after ``transform`` (e.g. Fisher z for correlations)."""
    return rival_comparison.paired_cells(
        {g: transform(scores[g][outcome][theory]) for g in scales},
        {name: {g: transform(scores[g][outcome][name]) for g in scales} for name in rivals})


def joined_cells(parts: Sequence[tuple[str, str, dict]]) -> dict:
    """One family from several cell sets ``(outcome, kernel name, cells)``: ``labels`` "(outcome) kernel
    vs <cell label>", ``kernel_of`` (the kernel of each cell), and ``p``, ``p_reverse``, ``n`` concatenated."""
    return {"labels": [f"({o}) {name} vs {label}" for o, name, cells in parts for label in cells["labels"]],
            "kernel_of": [name for _, name, cells in parts for _ in cells["labels"]],
            **{k: np.concatenate([cells[k] for _, _, cells in parts]) for k in ("p", "p_reverse", "n")}}


def _mean(values: np.ndarray) -> float:
    values = np.asarray(values, float)
    return float(np.nanmean(values)) if np.isfinite(values).any() else np.nan


def best_words(scores: dict, scales: Sequence[float], outcome: str, names: Sequence[str],
               lower_is_better: bool = False) -> str:
    """At each scale, the predictor among ``names`` with the best mean score (of those with a score),
    its mean and number of networks, and the predictors without a score, as words."""
    words = []
    for g in scales:
        means = {n: _mean(scores[g][outcome][n]) for n in names}
        scored = {n: m for n, m in means.items() if np.isfinite(m)}
        if not scored:
            words.append(f"no predictor has a score at g = {g:g}")
            continue
        best = (min if lower_is_better else max)(scored, key=scored.get)
        missing = [n for n in names if n not in scored]
        count = int(np.isfinite(np.asarray(scores[g][outcome][best], float)).sum())
        words.append(f"{best} at g = {g:g} ({scored[best]:{'.2f' if lower_is_better else '+.2f'}}, {count} networks"
                     + (f"; no score from {', '.join(missing)}" if missing else "") + ")")
    return "; ".join(words)


def as_good_words(scores: dict, scales: Sequence[float], outcome: str, theory: str, rivals: Sequence[str],
                  lower_is_better: bool = False) -> str:
    """The (rival, scale) pairs whose mean score is at least the theory's on the same networks, as words
    ("none" if there is none)."""
    hits = []
    for g in scales:
        ours = _mean(scores[g][outcome][theory])
        for name in rivals:
            theirs = _mean(scores[g][outcome][name])
            if np.isfinite(ours) and np.isfinite(theirs) and (theirs <= ours if lower_is_better else theirs >= ours):
                hits.append(f"{name} at g = {g:g}")
    return ", ".join(hits) if hits else "none"


def best_per_scale(scores_by_scale: dict, scales: Sequence[float]) -> str:
    """At each scale, the predictor with the largest mean score in ``scores_by_scale[g][predictor]``
    (n,), as "g = ...: name"; "no scores" where none has one."""
    words = []
    for g in scales:
        means = {n: _mean(v) for n, v in scores_by_scale[g].items()}
        scored = {n: m for n, m in means.items() if np.isfinite(m)}
        words.append(f"g = {g:g}: " + (max(scored, key=scored.get) if scored else "no scores"))
    return "; ".join(words)
