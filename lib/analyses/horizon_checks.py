"""Checks of the prediction horizon's pooled statistics: the per-group view behind a pooled
within-group correlation, and the negative control of the partial-correlation test.

Analyses layer, pure functions on per-network numbers (groups: init scales for the continuum,
schedule x init for the paper's pairs).

* :func:`per_group_correlations`: the Pearson r of one predictor with one outcome inside each
  group, with Fisher 95% intervals; :func:`cochran_q`: Cochran's Q of those r's (their Fisher
  z's weighted by n - 3), a test of one correlation common to all groups, which the pooled r and
  its interval (:func:`lib.analyses.horizon.pooled_fisher_interval`) assume.
* :func:`permute_within`: the outcomes' networks permuted inside each group;
  :func:`shuffled_discoveries`: the partial-correlation family of
  :func:`lib.analyses.horizon.rival_cells` (Holm over every cell) run on within-group permutations
  of the outcomes, counting its discoveries. With no association left, a family-wise level of
  alpha should give some discovery in about alpha of the permutations. Each outcome's runs are
  computed in one batch (:func:`lib.analyses.horizon.added_information_batch`), equal to one run at a
  time (tested); :func:`discoveries_by_seed` draws them under each stability seed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from scipy.stats import chi2, norm

from .horizon import added_information_batch
from .multiple_testing import holm_adjusted_finite
from ..core.validation import check_int


ADD_CONTROL_PERMUTATIONS = 200  # permutations of the add test's negative control (the registry's text declares 200)


def per_group_correlations(x, y, groups) -> dict[str, np.ndarray]:
    """Per group (in order of first appearance in ``groups`` (N,)): ``group``, ``n`` (finite pairs),
    ``r`` (Pearson r of x and y (N,)), ``lo``, ``hi`` (Fisher 95% interval, 1 / sqrt(n - 3)); r is nan
    where a group has fewer than 4 finite pairs or a constant variable."""
    x, y, groups = np.asarray(x, np.float64), np.asarray(y, np.float64), np.asarray(groups)
    if not (x.ndim == 1 and x.shape == y.shape == groups.shape):
        raise ValueError(f"x, y and groups must be (N,) arrays of one length, got {x.shape}, {y.shape}, {groups.shape}")
    labels = list(dict.fromkeys(groups.tolist()))
    n, r = np.zeros(len(labels), int), np.full(len(labels), np.nan)
    for i, g in enumerate(labels):
        keep = (groups == g) & np.isfinite(x) & np.isfinite(y)
        n[i] = keep.sum()
        a, b = x[keep] - x[keep].mean(), y[keep] - y[keep].mean()
        denom = np.sqrt((a * a).sum() * (b * b).sum())
        if n[i] >= 4 and denom > 0:
            r[i] = np.clip((a * b).sum() / denom, -1.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z, half = np.arctanh(np.clip(r, -0.9999999, 0.9999999)), norm.ppf(0.975) / np.sqrt(n - 3.0)
    return {"group": np.array(labels), "n": n, "r": r, "lo": np.tanh(z - half), "hi": np.tanh(z + half)}


def cochran_q(r, n) -> tuple[float, float]:
    """Cochran's Q of per-group correlations r (G,) from n (G,) networks, and its chi-square p-value
    (G - 1 degrees of freedom; groups with a non-finite r or n < 4 are left out; nan with fewer than 2):
    Q = sum (n_g - 3) (z_g - z_w)^2, z = atanh(r), z_w their (n - 3)-weighted mean."""
    r, n = np.asarray(r, np.float64).ravel(), np.asarray(n, np.float64).ravel()
    if r.shape != n.shape:
        raise ValueError(f"r and n must be (G,) arrays of one length, got {r.shape} and {n.shape}")
    keep = np.isfinite(r) & (n >= 4)
    if keep.sum() < 2:
        return float("nan"), float("nan")
    z, w = np.arctanh(np.clip(r[keep], -0.9999999, 0.9999999)), n[keep] - 3.0
    q = float(np.sum(w * (z - np.sum(w * z) / np.sum(w)) ** 2))
    return q, float(chi2.sf(q, keep.sum() - 1))


def within_order(groups, rng: np.random.Generator) -> np.ndarray:
    """(N,) an order of the networks that permutes them inside each group of ``groups`` (N,) (groups
    in order of first appearance, one ``rng.permutation`` each)."""
    groups = np.asarray(groups)
    order = np.arange(groups.size)
    for g in dict.fromkeys(groups.tolist()):
        member = np.flatnonzero(groups == g)
        order[member] = member[rng.permutation(member.size)]
    return order


def permute_within(values, groups, rng: np.random.Generator) -> np.ndarray:
    """``values`` (..., N) with its last axis permuted inside each group of ``groups`` (N,): one
    permutation of the networks (:func:`within_order`), shared by every leading index (e.g. every
    outcome)."""
    values, groups = np.asarray(values), np.asarray(groups)
    if groups.ndim != 1 or values.shape[-1] != groups.size:
        raise ValueError(f"values must be (..., N) with groups (N,), got {values.shape} and {groups.shape}")
    return values[..., within_order(groups, rng)]


def shuffled_discoveries(kernels, rivals, outcomes: dict, groups, fractions, n_permutations: int = 200,
                         alpha: float = 0.05, seed: int = 0) -> np.ndarray:
    """(n_permutations,) the number of cells of the partial-correlation family (every kernel (K, F, N)
    x outcome x fraction > 0, given the rivals (R, F, N); :func:`lib.analyses.horizon.rival_cells`)
    with Holm-adjusted p <= ``alpha``, the outcomes (name -> (N,)) permuted within ``groups`` (N,), one
    permutation per run shared by all outcomes; nan for a run in which no cell could be tested."""
    check_int("n_permutations", n_permutations, minimum=1)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    fractions = np.asarray(fractions, np.float64)
    if fractions.shape != (np.shape(kernels)[1],):
        raise ValueError(f"fractions must be ({np.shape(kernels)[1]},), got {fractions.shape}")
    stacked = np.stack([np.asarray(outcomes[o], np.float64) for o in outcomes])  # (O, N)
    if stacked.shape[1:] != np.shape(groups):
        raise ValueError(f"each outcome must be (N,) as groups {np.shape(groups)}, got {stacked.shape[1:]}")
    rng = np.random.default_rng(seed)
    orders = np.stack([within_order(groups, rng) for _ in range(n_permutations)])  # one per run, shared by the outcomes
    # the p-values of the cells of rival_cells in each run (B, cells): every run of an outcome in one batch
    p = np.concatenate([added_information_batch(kernels, rivals, y[orders], groups)["p"][:, :, fractions > 0]
                        .reshape(n_permutations, -1) for y in stacked], axis=1)
    out = np.empty(n_permutations)
    for i, run in enumerate(p):
        adjusted = holm_adjusted_finite(run)
        out[i] = np.sum(adjusted <= alpha) if np.isfinite(adjusted).any() else np.nan
    return out


def discoveries_by_seed(kernels, rivals, outcomes: dict, groups, fractions, n_permutations: int,
                        first_seed: int) -> Callable[[int], np.ndarray]:
    """seed -> :func:`shuffled_discoveries` with the permutations drawn under ``first_seed + seed``
    (so seed 0 is the draw the page reports), each seed computed once: the negative control's verdict
    is judged under every stability seed of its permutations (``claims.judge(..., seeded=...)``)."""
    return functools.lru_cache(maxsize=None)(lambda seed: shuffled_discoveries(
        kernels, rivals, outcomes, groups, fractions, n_permutations=n_permutations, seed=first_seed + seed))
