"""Correlation within init scales, with every scale weighed equally.

Analyses layer, for the rich-to-lazy continuum chapter. A predictor x and an outcome y are
measured once per network (N,), and every network belongs to one init scale (``groups``, (N,)).
Across the continuum a correlation mostly measures the scale itself (it moves predictors and
outcomes together); *within* a scale it measures what the predictor says about networks of the
same scale.

* :func:`per_scale_r`: Pearson r in each scale with its Fisher-z 95% interval (as
  :func:`scipy.stats.pearsonr`'s ``confidence_interval``).
* :func:`pooled_within_r`: both variables standardised (z-scored) within each scale, then
  pooled: r = sum_n zx_n zy_n / N = sum_g n_g r_g / N, the per-scale r's averaged with weights
  n_g. With equal networks per scale (the design) every scale weighs the same, whatever the
  spread of its values; centring without standardising would let the scales with the largest
  spread dominate. A scale in which x or y is constant carries no within-scale information and
  is left out.
* :func:`within_scale_test`: that pooled r, a percentile bootstrap interval resampling networks
  within each scale, and a two-sided permutation p-value permuting y within each scale (the
  null: no association inside any scale; the scale's own effect is kept).
* :func:`cell_table`: every predictor x outcome cell of one setting; :func:`add_bh` adds
  Benjamini-Hochberg q-values across cells of all settings; :func:`winners` the strongest
  significant cell per outcome with whether its sign is the one declared in
  :mod:`lib.analyses.expected_signs`.
"""

from __future__ import annotations

import numpy as np

from .multiple_testing import bh_adjusted
from ..core.validation import check_int

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def _finite_pairs(x, y, groups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y, groups = (np.asarray(a) for a in (x, y, groups))
    if not (x.ndim == y.ndim == groups.ndim == 1 and len(x) == len(y) == len(groups)):
        raise ValueError(f"x, y and groups must be 1-D arrays of one length (N,), got shapes {x.shape}, {y.shape}, "
                         f"{groups.shape}")
    x, y = x.astype(np.float64), y.astype(np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep], groups[keep]


def fisher_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Fisher-z interval of a Pearson r from n pairs, tanh(atanh(r) -+ z_level / sqrt(n - 3)), as
    :func:`scipy.stats.pearsonr`'s ``confidence_interval``: (-1, 1) for n <= 3 (too few pairs to
    bound r); (r, r) for r = +-1 (atanh(r) is infinite, so the interval is that point); (nan, nan)
    for a non-finite r. Only the 95% level is supported."""
    if level != 0.95:
        raise ValueError(f"level must be 0.95, got {level!r}")
    if not np.isfinite(r):
        return float("nan"), float("nan")
    if n <= 3:
        return -1.0, 1.0
    with np.errstate(divide="ignore"):  # r = +-1: z = +-inf, tanh(z -+ half) = r
        z = np.arctanh(np.clip(r, -1.0, 1.0))
    half = Z95 / np.sqrt(n - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def per_scale_r(x, y, groups) -> list[dict]:
    """One row per scale g (sorted): ``{"g", "n", "r", "lo", "hi"}``, Pearson r of the finite
    (x, y) pairs of that scale with its Fisher-z 95% interval (r nan when x or y is constant)."""
    x, y, groups = _finite_pairs(x, y, groups)
    rows = []
    for g in np.unique(groups):
        a, b = x[groups == g], y[groups == g]
        r = _pearson(a, b)
        lo, hi = fisher_interval(r, len(a))
        rows.append({"g": g.item() if hasattr(g, "item") else g, "n": int(len(a)), "r": r, "lo": lo, "hi": hi})
    return rows


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / denom) if len(a) > 1 and denom > 0 else float("nan")


def standardize_within(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """(N,) values z-scored within each group (mean 0, population s.d. 1 per group); nan for the
    members of a group whose values are constant."""
    values = np.asarray(values, np.float64)
    out = np.full(values.shape, np.nan)
    for g in np.unique(groups):
        member = groups == g
        v = values[member]
        sd = v.std()
        if len(v) > 1 and sd > 0:
            out[member] = (v - v.mean()) / sd
    return out


def pooled_within_r(x, y, groups) -> float:
    """Pooled within-scale r: x and y standardised within each scale, then the mean of their
    product over the networks of the scales where neither is constant (= the n-weighted mean of
    the per-scale r's); nan when no scale is usable."""
    x, y, groups = _finite_pairs(x, y, groups)
    zx, zy = standardize_within(x, groups), standardize_within(y, groups)
    use = np.isfinite(zx) & np.isfinite(zy)
    return float(np.mean(zx[use] * zy[use])) if use.any() else float("nan")


def _group_members(groups: np.ndarray) -> list[np.ndarray]:
    return [np.flatnonzero(groups == g) for g in np.unique(groups)]


def resampling_plan(groups, n_resamples: int = 2000, n_permutations: int = 9999, seed: int = 0) -> dict:
    """The random draws of :func:`within_scale_test` for networks in ``groups`` (N,): per scale, the
    (n_resamples, n_g) bootstrap indices, and the (n_permutations, N) within-scale permutations.
    Computed once, it serves every cell whose networks are all finite (the draws depend only on
    the groups and the seed, so a test gives the same numbers with or without the plan)."""
    check_int("n_resamples", n_resamples, minimum=100)
    check_int("n_permutations", n_permutations, minimum=99)
    groups = np.asarray(groups)
    rng = np.random.default_rng(seed)
    members = _group_members(groups)
    boot = [m[rng.integers(len(m), size=(n_resamples, len(m)))] for m in members]
    perm = np.empty((n_permutations, len(groups)), dtype=np.int64)
    for m in members:
        perm[:, m] = rng.permuted(np.broadcast_to(m, (n_permutations, len(m))), axis=1)
    return {"groups": groups, "boot": boot, "perm": perm}


def resampling_bytes(n_networks: int, largest_scale: int, n_resamples: int, n_permutations: int) -> int:
    """Bytes that :func:`cell_table` and :func:`within_scale_test` hold at once for ``n_networks``
    networks (N) whose largest scale has ``largest_scale`` of them: the plan of
    :func:`resampling_plan`, (n_resamples, N) bootstrap and (n_permutations, N) permutation
    indices (int64), and on top of it either the permuted outcomes (n_permutations, N) float64 or
    the bootstrap's six (n_resamples, largest_scale) float64 arrays of one scale."""
    return 8 * (n_resamples * n_networks + n_permutations * n_networks
                + max(n_permutations * n_networks, 6 * n_resamples * largest_scale))


def within_scale_test(x, y, groups, n_resamples: int = 2000, n_permutations: int = 9999,
                      seed: int = 0, plan: dict | None = None) -> dict:
    """The pooled within-scale r of predictor x and outcome y (N,) with its percentile bootstrap
    95% interval (networks resampled within each scale, ``n_resamples`` times) and a two-sided
    permutation p-value (``(1 + #{|r_perm| >= |r|}) / (1 + n_permutations)``, y permuted within each
    scale). Networks with a non-finite x or y are left out. ``plan``: the draws of
    :func:`resampling_plan` for these groups and settings, used when no network is left out.

    Returns ``{"n", "n_scales", "r", "lo", "hi", "p"}`` (n: networks used; n_scales: scales in
    which neither variable is constant)."""
    check_int("n_resamples", n_resamples, minimum=100)
    check_int("n_permutations", n_permutations, minimum=99)
    n_all = len(np.asarray(groups))
    x, y, groups = _finite_pairs(x, y, groups)
    zx, zy = standardize_within(x, groups), standardize_within(y, groups)
    use = np.isfinite(zx) & np.isfinite(zy)
    x, y, groups, zx, zy = x[use], y[use], groups[use], zx[use], zy[use]
    out = {"n": int(len(x)), "n_scales": int(len(np.unique(groups))), "r": float("nan"), "lo": float("nan"),
           "hi": float("nan"), "p": float("nan")}
    if len(x) < 4:
        return out
    r = pooled_within_r(x, y, groups)
    if plan is None or len(x) != n_all or plan["perm"].shape != (n_permutations, n_all) \
            or len(plan["boot"][0]) != n_resamples:
        plan = resampling_plan(groups, n_resamples, n_permutations, seed)
    # bootstrap: resample networks within each scale, standardise each resample within scale again
    boot = []
    for idx in plan["boot"]:
        a, b = x[idx], y[idx]
        a, b = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
        sa, sb = np.sqrt((a * a).mean(axis=1)), np.sqrt((b * b).mean(axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            boot.append(np.where((sa > 0) & (sb > 0), (a * b).mean(axis=1) / (sa * sb), np.nan) * idx.shape[1])
    boot = np.nansum(boot, axis=0) / len(x)  # a degenerate resample of a scale adds 0 (rare, tiny scales)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    # permutation: shuffle zy within each scale (zy's per-scale standardisation is unchanged)
    r_null = (zy[plan["perm"]] @ zx) / len(x)
    p = (1 + np.sum(np.abs(r_null) >= abs(r) - 1e-12)) / (1 + n_permutations)
    return out | {"r": r, "lo": float(lo), "hi": float(hi), "p": float(p)}


def cell_table(networks: dict[str, np.ndarray], predictors, outcomes, setting: str, n_resamples: int = 2000,
               n_permutations: int = 9999, seed: int = 0) -> list[dict]:
    """One row per (predictor, outcome) of one setting (``networks``: column -> (N,) arrays with
    ``g``): :func:`within_scale_test` plus the across-scale Pearson r (``r_across``) and the
    ``setting`` label."""
    plan = resampling_plan(networks["g"], n_resamples, n_permutations, seed)
    rows = []
    for o in outcomes:
        for p in predictors:
            x, y = np.asarray(networks[p], float), np.asarray(networks[o], float)
            keep = np.isfinite(x) & np.isfinite(y)
            rows.append({"setting": setting, "predictor": p, "outcome": o,
                         "r_across": _pearson(x[keep], y[keep]),
                         **within_scale_test(x, y, networks["g"], n_resamples, n_permutations, seed, plan)})
    return rows


def add_bh(rows: list[dict]) -> list[dict]:
    """The rows (every cell of every setting, one family) with ``q``: Benjamini-Hochberg adjusted
    p-values across all rows with a finite p (nan for the others)."""
    p = np.array([r["p"] for r in rows], float)
    finite = np.isfinite(p)
    q = np.full(p.shape, np.nan)
    if finite.any():
        q[finite] = bh_adjusted(p[finite])
    return [r | {"q": float(v)} for r, v in zip(rows, q)]


def winners(rows: list[dict], outcome: str, signs: dict[str, dict[str, int]], fdr: float = 0.05) -> dict:
    """The strongest (largest ``|r|``) cell for ``outcome`` among ``rows`` (one setting, with ``q``
    from :func:`add_bh`) with q <= ``fdr``, as ``{"predictor", "r", "lo", "hi", "q", "expected",
    "sign_as_expected"}``; expected: the declared sign (``signs[predictor][outcome]``, 0: none);
    sign_as_expected: True/False, or None when no sign was declared. ``{"predictor": "none"}``
    when no cell is significant."""
    cells = [r for r in rows if r["outcome"] == outcome and np.isfinite(r["q"]) and r["q"] <= fdr]
    if not cells:
        return {"predictor": "none"}
    best = max(cells, key=lambda r: abs(r["r"]))
    expected = int(signs[best["predictor"]][outcome])
    return {"predictor": best["predictor"], "r": best["r"], "lo": best["lo"], "hi": best["hi"], "q": best["q"],
            "expected": expected, "sign_as_expected": None if expected == 0 else bool(np.sign(best["r"]) == expected)}


def group_difference(values, groups, a, b, n_resamples: int = 2000, seed: int = 0) -> dict:
    """Mean of ``values`` (N,) in group ``a`` minus group ``b``, with a percentile bootstrap 95%
    interval resampling networks within each group; ``separates``: the interval excludes 0."""
    check_int("n_resamples", n_resamples, minimum=100)
    values, groups = np.asarray(values, np.float64), np.asarray(groups)
    va, vb = (values[(groups == g) & np.isfinite(values)] for g in (a, b))
    if len(va) < 2 or len(vb) < 2:
        raise ValueError(f"groups must hold >= 2 finite values in each of {a!r} and {b!r}, got {len(va)} and {len(vb)}")
    rng = np.random.default_rng(seed)
    boot = (va[rng.integers(len(va), size=(n_resamples, len(va)))].mean(axis=1)
            - vb[rng.integers(len(vb), size=(n_resamples, len(vb)))].mean(axis=1))
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {"difference": float(va.mean() - vb.mean()), "lo": float(lo), "hi": float(hi),
            "separates": bool(lo > 0 or hi < 0)}


def midpoint_interval(networks_g, values, midpoint, n_resamples: int = 2000, seed: int = 0) -> dict:
    """The transition midpoint of per-scale medians with a percentile bootstrap 95% interval.

    networks_g, values: (N,) each network's scale and measure; ``midpoint``: a function
    (scales (G,), medians (G,)) -> g, e.g. :func:`lib.analyses.continuum_sweeps.transition_midpoint`.
    Networks are resampled within each scale; resamples without a crossing (nan) are counted in
    ``n_undefined`` and left out of the interval."""
    check_int("n_resamples", n_resamples, minimum=100)
    g, values = np.asarray(networks_g, np.float64), np.asarray(values, np.float64)
    keep = np.isfinite(values)
    g, values = g[keep], values[keep]
    scales = np.unique(g)
    members = [np.flatnonzero(g == s) for s in scales]
    rng = np.random.default_rng(seed)
    medians = np.stack([np.median(values[m[rng.integers(len(m), size=(n_resamples, len(m)))]], axis=1)
                        for m in members], axis=1)
    boot = np.array([midpoint(scales, row) for row in medians])
    estimate = midpoint(scales, np.array([np.median(values[m]) for m in members]))
    ok = np.isfinite(boot)
    lo, hi = np.percentile(boot[ok], [2.5, 97.5]) if ok.any() else (np.nan, np.nan)
    return {"midpoint": float(estimate), "lo": float(lo), "hi": float(hi), "n_undefined": int((~ok).sum())}
