"""Cells and sentences of the rival-theories chapter, from its per-network scores.

Book layer. The chapter (``notebooks/13_rival_theories.py``) scores every predictor on every
network (:func:`lib.analyses.rival_comparison.outcome_scores`): ``scores[g][outcome][predictor]``
is an (n,) array over the networks of initial scale ``g`` (nan where a predictor gives no
score, e.g. a route that never reaches half its loss). The functions here gather the cells a
claim judges (:func:`lib.analyses.rival_comparison.paired_cells`), say in words which
predictor scores best and pool the converged continuum's predictions over its scales
(:func:`across_scales_table`); they compute no new statistic.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ..analyses import rival_comparison, rival_continuum, rival_theories


def scale_cells(scores: dict, outcome: str, theory: str, rivals: Sequence[str], scales: Sequence[float],
                transform: Callable[[np.ndarray], np.ndarray], seed: int = 0) -> dict:
    """:func:`lib.analyses.rival_comparison.paired_cells` of ``theory`` against each rival at each scale,
    on the scores of ``outcome`` after ``transform`` (e.g. Fisher z for correlations), sign flips
    drawn under ``seed`` where a cell has too many networks to enumerate them."""
    return rival_comparison.paired_cells(
        {g: transform(scores[g][outcome][theory]) for g in scales},
        {name: {g: transform(scores[g][outcome][name]) for g in scales} for name in rivals}, seed=seed)


def joined_cells(parts: Sequence[tuple[str, str, dict]]) -> dict:
    """One family from several cell sets ``(outcome, kernel name, cells)``: ``labels`` "(outcome) kernel
    vs <cell label>", ``kernel_of`` (the kernel of each cell), and ``p``, ``p_reverse``, ``n`` concatenated."""
    return {"labels": [f"({o}) {name} vs {label}" for o, name, cells in parts for label in cells["labels"]],
            "kernel_of": [name for _, name, cells in parts for _ in cells["labels"]],
            **{k: np.concatenate([cells[k] for _, _, cells in parts]) for k in ("p", "p_reverse", "n")}}


def _mean(values: np.ndarray) -> float:
    values = np.asarray(values, float)
    return float(np.nanmean(values)) if np.isfinite(values).any() else np.nan


def _scored_means(by_predictor: dict) -> dict[str, float]:
    """predictor -> mean score (n,) over networks, for the predictors with a score (in their order)."""
    means = {name: _mean(values) for name, values in by_predictor.items()}
    return {name: m for name, m in means.items() if np.isfinite(m)}


def best_words(scores: dict, scales: Sequence[float], outcome: str, names: Sequence[str],
               lower_is_better: bool = False) -> str:
    """At each scale, the predictor among ``names`` with the best mean score (of those with a score),
    its mean and number of networks, and the predictors without a score, as words."""
    words = []
    for g in scales:
        scored = _scored_means({n: scores[g][outcome][n] for n in names})
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
        scored = _scored_means(scores_by_scale[g])
        words.append(f"g = {g:g}: " + (max(scored, key=scored.get) if scored else "no scores"))
    return "; ".join(words)


RAW_PREDICTORS = ("t=0 eNTK", "targets control")  # 1 - cosine: no size to take the log of; raw values
SCALE_ALONE = rival_continuum.SCALE_ALONE  # the log of the init scale, the same on every task pair of a network


def across_scales_table(pooled: dict, names: Sequence[str],
                        finite_on: str = "linearized at t=0") -> tuple[pd.DataFrame, int]:
    """The converged continuum's predictions pooled over its scales, and the number of networks used.

    ``pooled`` maps each predictor of ``names``, "observed" and :data:`SCALE_ALONE` to an (n, T) array
    over the n networks of every scale and T task pairs (predicted and observed distances; log g for
    :data:`SCALE_ALONE`), or is empty (no network analysed). Over the networks whose ``finite_on``
    prediction is finite on every pair (a diverged linearization has no distances), the Pearson r of
    each predictor (then :data:`SCALE_ALONE`) with the observed distances, pooled over networks and
    pairs: log against log (:func:`lib.analyses.rival_continuum.pooled_log_r`), but raw against log
    for :data:`RAW_PREDICTORS` and log g against log for :data:`SCALE_ALONE`. Returns the table
    (predictor x "pooled r", "scale": how each side was taken), empty with fewer than 2 such
    networks, and their number. Raises ``ValueError`` for a non-empty ``pooled`` missing an entry or
    with arrays of unequal shapes."""
    columns = ["predictor", "pooled r", "scale"]
    if not isinstance(pooled, dict):
        raise ValueError(f"pooled must be a dict of (n, T) arrays, got {type(pooled).__name__}")
    if not pooled:
        return pd.DataFrame([], columns=columns).set_index("predictor"), 0
    needed = [*names, finite_on, "observed", SCALE_ALONE]
    missing = [k for k in needed if k not in pooled]
    shapes = {k: np.shape(pooled[k]) for k in needed if k in pooled}
    if missing or len(set(shapes.values())) != 1 or len(next(iter(shapes.values()))) != 2:
        raise ValueError(f"pooled must hold (n, T) arrays of one shape for {needed}, got missing {missing}, "
                         f"shapes {shapes}")
    finite = np.all(np.isfinite(pooled[finite_on]), axis=1)
    rows = []
    for name in [*names, SCALE_ALONE] if finite.sum() >= 2 else ():
        values, observed = pooled[name][finite], pooled["observed"][finite]
        if name in RAW_PREDICTORS:
            r, how = rival_theories.pearson(values, np.log(observed)), "raw prediction, log observed"
        elif name == SCALE_ALONE:
            r, how = rival_theories.pearson(values, np.log(observed)), "log g, log observed"
        else:
            r, how = rival_continuum.pooled_log_r(values, observed), "log, log"
        rows.append({"predictor": name, "pooled r": r, "scale": how})
    return pd.DataFrame(rows, columns=columns).set_index("predictor"), int(finite.sum())


def cell_evidence(cells: dict) -> dict:
    """The evidence a Holm-over-cells claim is judged on, from :func:`scale_cells` or
    :func:`joined_cells` output: one-sided ``p`` and ``p_reverse`` per cell, the cells' labels and
    the smallest number of networks of any cell (``n``)."""
    return dict(p=cells["p"], p_reverse=cells["p_reverse"], labels=list(cells["labels"]), n=int(np.min(cells["n"])))


SIDE_RIVALS = ("t=0 eNTK", "linearized at t=0", "targets control")


def continuum_cells(cont_scores: dict, cont_scales: Sequence[float], seed: int = 0) -> dict:
    """The cells of rival-continuum-similarity (:func:`scale_cells`): the two-point theory against each
    of :data:`SIDE_RIVALS` at each scale of ``cont_scales``, on the Fisher z of ``cont_scores`` (scale ->
    predictor -> (S,) task-pair r on the continuum's networks), sign flips drawn under ``seed``."""
    return scale_cells({g: {"a": cont_scores[g]} for g in cont_scales}, "a", "two-point theory", SIDE_RIVALS,
                       cont_scales, rival_comparison.fisher_z, seed)


def continuum_judge_arguments(cont_scores: dict, cont_scales: Sequence[float]) -> dict:
    """The keyword arguments of :func:`lib.analyses.claims.judge` for rival-continuum-similarity on
    ``cont_scores`` (:func:`continuum_cells`): its evidence where every cell enumerates its sign
    patterns, else ``seeded`` (seed -> the evidence under that sign-flip seed), as
    :func:`holm_judge_arguments` gives it for the chapter's discovery block."""
    cells = continuum_cells(cont_scores, cont_scales)
    if not np.any(np.asarray(cells["n"]) > rival_comparison.EXACT_FLIPS):
        return cell_evidence(cells)
    at_seed = functools.lru_cache(maxsize=None)(lambda seed: cell_evidence(continuum_cells(cont_scores, cont_scales,
                                                                                          seed)))
    return {"seeded": at_seed}


def continuum_half_width(cont_scores: dict, cont_scales: Sequence[float]) -> float:
    """The widest 95% t-interval half-width (:func:`lib.analyses.replication.mean_half_width`) of the
    mean difference of Fisher z, the two-point theory's minus each rival's, over the cells of
    :func:`continuum_cells`; nan when no cell has two networks with both scores."""
    from ..analyses.replication import mean_half_width

    z = rival_comparison.fisher_z
    widths = [mean_half_width(z(cont_scores[g]["two-point theory"]) - z(cont_scores[g][rival]))
              for rival in SIDE_RIVALS for g in cont_scales]
    finite = [w for w in widths if np.isfinite(w)]
    return max(finite) if finite else float("nan")
HOLM_CLAIMS = ("rival-side-similarity", "rival-continuum-similarity", "rival-side-order",
               "rival-side-kernel-vs-control", "rival-multitask-family")


def holm_claim_evidence(scores: dict, scales: Sequence[float], cont_scores: dict, cont_scales: Sequence[float],
                        held_r: np.ndarray, small: dict, seed: int = 0) -> dict[str, tuple[dict, bool]]:
    """For each of the chapter's Holm-over-cells claims (:data:`HOLM_CLAIMS`): (its evidence, its
    one-sided p-values from sign-flip tests drawn under ``seed``; whether any of its cells draws them,
    having more than :data:`lib.analyses.rival_comparison.EXACT_FLIPS` networks, where the others
    enumerate every pattern and give the same p under every seed).

    ``scores``: scale -> outcome ("a" similarity, "b" order, "c" loss shape) -> predictor -> (S,)
    per-network scores on the chapter's own networks; ``cont_scores``: scale -> predictor -> (S,)
    task-similarity r on the continuum's networks; ``held_r`` (M,) the two-point theory's per-pair r
    on held-out seeds; ``small``: the smallest scale's race measures (``rho_race``, ``rho_size``,
    ``out_first``, per network)."""
    sim_cells = scale_cells(scores, "a", "two-point theory", SIDE_RIVALS, scales, rival_comparison.fisher_z, seed)
    cont_cells = continuum_cells(cont_scores, cont_scales, seed)
    order_cells = scale_cells(scores, "b", "race", (*SIDE_RIVALS, "route size"), scales[:1], as_scores, seed)
    control_parts = [(outcome, name, scale_cells(scores, outcome, name, ("targets control",), scales, transform, seed))
                     for outcome, kernels, transform in (("a", ("t=0 eNTK", "linearized at t=0"), rival_comparison.fisher_z),
                                                         ("b", ("t=0 eNTK", "linearized at t=0"), as_scores),
                                                         ("c", ("linearized at t=0",), negated_scores))
                     for name in kernels]
    control_cells = joined_cells(control_parts)
    finite_race = np.isfinite(small["rho_race"]) & np.isfinite(small["rho_size"])
    family = rival_comparison.family_p_values(
        {"rival-two-point-task-pairs": (int(np.sum(held_r > 0.5)), int(held_r.size)),
         "rival-race-structure": (int(small["out_first"].sum()), int(small["out_first"].size))},
        {"rival-race-order": small["rho_race"][finite_race],
         "rival-race-beats-size": small["rho_race"][finite_race] - small["rho_size"][finite_race]}, seed=seed)
    drawn = lambda cells: bool(np.any(np.asarray(cells["n"]) > rival_comparison.EXACT_FLIPS))  # noqa: E731
    return {"rival-side-similarity": (cell_evidence(sim_cells), drawn(sim_cells)),
            "rival-continuum-similarity": (cell_evidence(cont_cells), drawn(cont_cells)),
            "rival-side-order": (cell_evidence(order_cells), drawn(order_cells)),
            "rival-side-kernel-vs-control": ({**cell_evidence(control_cells), "kernel_of": control_cells["kernel_of"]},
                                             drawn(control_cells)),
            "rival-multitask-family": (dict(p=family["p"], p_reverse=family["p_reverse"], labels=list(family["labels"]),
                                            n=int(min(held_r.size, small["out_first"].size, finite_race.sum()))),
                                       bool(finite_race.sum() > rival_comparison.EXACT_FLIPS))}


def holm_judge_arguments(*inputs) -> dict[str, dict]:
    """For each claim of :data:`HOLM_CLAIMS`, the keyword arguments of
    :func:`lib.analyses.claims.judge` (:func:`holm_claim_evidence` of ``inputs``): its evidence where
    every cell enumerates its sign patterns, else ``seeded``, a function seed -> its evidence at that
    sign-flip seed (computed once per seed for all the claims), to judge it under every stability seed."""
    at_seed = functools.lru_cache(maxsize=None)(lambda seed: holm_claim_evidence(*inputs, seed=seed))
    return {claim: {"seeded": functools.partial(lambda claim, seed: at_seed(seed)[claim][0], claim)} if drawn
            else evidence for claim, (evidence, drawn) in at_seed(0).items()}


def verdict_lines(judgements: dict, earlier: dict, claim_texts: dict[str, str]) -> str:
    """One Markdown list item per judged claim: the claim's text, its verdict with our number and
    interval, and each earlier criterion version's verdict (``earlier``: claim -> judgements)."""
    lines = []
    for key, j in judgements.items():
        number = f"{j.ours}; {j.interval}" if j.interval else j.ours
        older = "".join(f"; version {e.version}: {e.verdict}" for e in earlier.get(key, ()))
        lines.append(f"- **{claim_texts[key]}**: {j.verdict} ({number}){older}")
    return "\n".join(lines)


def race_time_words(t: float) -> str:
    """When a race quantity reaches half its final value: "at race time 12", or "never" (not finite)."""
    return "never" if not np.isfinite(t) else f"at race time {t:.0f}"


def finite_count(values) -> str:
    """"k of n": how many of ``values`` (e.g. per-network first times, nan where never) are finite."""
    values = np.asarray(values, np.float64)
    return f"{int(np.isfinite(values).sum())} of {values.size}"


def plateau_lengths(values) -> np.ndarray:
    """Plateau lengths with nan (still on the plateau at the last step) as inf, so that medians rank them last."""
    return np.nan_to_num(np.asarray(values, np.float64), nan=np.inf)


def as_scores(values) -> np.ndarray:
    """Scores as they are (higher is better), float."""
    return np.asarray(values, np.float64)


def negated_scores(values) -> np.ndarray:
    """Errors turned into scores (higher is better): their negatives, float."""
    return -np.asarray(values, np.float64)


def predictive_names(names) -> tuple[str, ...]:
    """The predictors of ``names`` known before training: those not marked "(reference)"."""
    return tuple(n for n in names if "reference" not in n)


def side_words(scores: dict, scales: Sequence[float], judgements: dict) -> str:
    """Chapter 13's side-by-side answer: the best predictors of (a) task similarity, (b) route order
    and (c) loss shape (:func:`best_words` over :func:`predictive_names`), the verdicts of the
    side-by-side claims (``judgements``: claim -> :class:`~lib.analyses.claims.Judgement`), and where
    the kernel and the controls do as well as the theories or better (:func:`as_good_words`).
    ``scores``: scale -> :func:`lib.analyses.rival_comparison.outcome_scores`."""
    best = lambda outcome, names, **options: best_words(scores, scales, outcome, names, **options)
    as_good = lambda outcome, theory, rivals, **options: as_good_words(scores, scales, outcome, theory, rivals,
                                                                       **options)
    kernel_and_controls = ("t=0 eNTK", "linearized at t=0", "targets control")
    verdict = lambda key: f"{judgements[key].ours} ({judgements[key].verdict})"
    return (
        f"**Which predicts what.** (a) The learned task similarity is best predicted by: "
        f"{best('a', predictive_names(rival_comparison.A_PREDICTORS))} (the accumulated eNTK, which has seen the run: "
        f"{best('a', ('accumulated eNTK (reference)',))}). The two-point theory against the t=0 eNTK, the "
        f"linearized network and the targets control, cell by cell: {verdict('rival-side-similarity')}. (b) The "
        f"route order is best predicted by: {best('b', predictive_names(rival_comparison.B_PREDICTORS))}. At the "
        f"smallest scale, the race against its rivals: {verdict('rival-side-order')}. (c) The loss shape is best "
        f"predicted by: {best('c', predictive_names(rival_comparison.C_PREDICTORS), lower_is_better=True)} "
        f"(absolute error). The t=0 eNTK against the targets control: {verdict('rival-side-kernel-vs-control')}. "
        f"**Where the kernel and the controls do as well or better** (mean score at least the theory's, on the same "
        f"networks): against "
        f"the two-point theory on task similarity, "
        f"{as_good('a', 'two-point theory', (*kernel_and_controls, 'distance at t=0'))};"
        f" against the race on route order, "
        f"{as_good('b', 'race', (*kernel_and_controls, 'route size', 'race without sharing'))};"
        f" against the race on the loss shape, "
        f"{as_good('c', 'race', ('linearized at t=0', 'targets control'), lower_is_better=True)}.")
