"""The prediction horizon: how well a quantity observed at a fraction f of training predicts a
network's outcome, within init scales and across them, and whether a kernel quantity predicts
better than the representation and losses observed at the same moment.

Analyses layer, pure functions on per-network numbers. ``values`` are (P, F, N): P predictors, F
fractions of training, N networks; ``outcome`` (N,); ``groups`` (N,) each network's init scale.

* Accuracy is the size of a correlation: :func:`within_scale_accuracy` the pooled within-scale r
  of :mod:`lib.analyses.within_scale` (predictor and outcome z-scored within each scale, so
  every scale weighs the same), :func:`across_scale_accuracy` the plain Pearson r over all
  networks (which mostly measures the scale itself).
* Intervals: Fisher's z. The pooled within-scale r is the n-weighted mean of the per-scale r's;
  its z is given the standard error of the n-weighted mean of the per-scale z's,
  sqrt(sum_g n_g^2 / (n_g - 3)) / N (1 / sqrt(N - 3G) for equal scales), which assumes one
  common correlation in every scale: :func:`pooled_fisher_interval`, at any level, so a family of cells can be
  Bonferroni-corrected without resampling; its coverage is checked by simulation in the tests.
* :func:`earliest_fraction`: the first fraction at which an interval lies beyond +-threshold;
  :func:`earliest_fraction_interval`: a percentile bootstrap *range* (networks resampled within
  scale) of the first fraction at which ``|r|`` reaches the threshold: a first-passage statistic of noisy correlations, so it describes their spread and is not a confidence interval.
* :func:`williams_t`: Williams' t for two dependent correlations that share a variable
  (Steiger 1980, eq. 7): does predictor k correlate more strongly with the outcome than rival h?
  :func:`beats_rivals` applies it to every kernel predictor against every rival at the same f,
  as an intersection-union test (the kernel must beat each rival: p = the largest one-sided p).
* :func:`added_information`: does a kernel predictor carry information beyond all the rivals
  together (partial correlation given the rivals, within scale)?
* :func:`shuffled_accuracy`: the negative control, the outcome permuted within each scale.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from ..core.validation import check_int

EARLY_FRACTION = 0.1  # "early" in the registry's horizon criteria: f <= 10% of the single-task phase


def _check(values, outcome, groups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, outcome, groups = np.asarray(values, np.float64), np.asarray(outcome, np.float64), np.asarray(groups)
    if values.ndim != 3 or outcome.ndim != 1 or groups.shape != outcome.shape or values.shape[2] != len(outcome):
        raise ValueError(f"values must be (P, F, N) with outcome and groups (N,), got shapes {values.shape}, "
                         f"{outcome.shape}, {groups.shape}")
    if len(np.unique(groups)) < 1 or len(outcome) < 4:
        raise ValueError(f"outcome must hold >= 4 networks, got {len(outcome)}")
    return values, outcome, groups


def _within_z(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """(..., N) values z-scored within each group along the last axis, every row at once (as
    :func:`~lib.analyses.within_scale.standardize_within` over each row's finite values: population
    s.d.; nan where a group's finite values are fewer than 2 or constant, and where a value is not
    finite)."""
    values = np.asarray(values, np.float64)
    out = np.full(values.shape, np.nan)
    for g in np.unique(groups):
        member = groups == g
        x = values[..., member]
        finite = np.isfinite(x)
        n = finite.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(finite, x, 0.0).sum(axis=-1, keepdims=True) / n
            centred = np.where(finite, x - mean, 0.0)
            sd = np.sqrt((centred ** 2).sum(axis=-1, keepdims=True) / n)
            out[..., member] = np.where(finite & (n > 1) & (sd > 0), centred / sd, np.nan)
    return out


def _mean_product(za: np.ndarray, zb: np.ndarray) -> np.ndarray:
    both = np.isfinite(za) & np.isfinite(zb)
    with np.errstate(invalid="ignore"):
        return np.where(both.any(axis=-1), np.nansum(np.where(both, za * zb, 0.0), axis=-1) / both.sum(axis=-1), np.nan)


def within_scale_accuracy(values, outcome, groups) -> np.ndarray:
    """(P, F) pooled within-scale r of each predictor at each fraction with the outcome (nan where
    no scale has both varying)."""
    values, outcome, groups = _check(values, outcome, groups)
    return _mean_product(_within_z(values, groups), _within_z(outcome, groups))


def across_scale_accuracy(values, outcome) -> np.ndarray:
    """(P, F) Pearson r over all networks (finite pairs) of each predictor at each fraction with the outcome."""
    values, outcome = np.asarray(values, np.float64), np.asarray(outcome, np.float64)
    out = np.full(values.shape[:2], np.nan)
    for p in range(values.shape[0]):
        for f in range(values.shape[1]):
            keep = np.isfinite(values[p, f]) & np.isfinite(outcome)
            if keep.sum() < 3:
                continue
            a, b = values[p, f, keep] - values[p, f, keep].mean(), outcome[keep] - outcome[keep].mean()
            denom = np.sqrt((a * a).sum() * (b * b).sum())
            out[p, f] = (a * b).sum() / denom if denom > 0 else np.nan
    return out


def pooled_z_se(n_per_group) -> float:
    """Standard error of Fisher's z of a pooled within-scale r from scales of ``n_per_group``
    networks (each >= 4): sqrt(sum n_g^2 / (n_g - 3)) / N; for one scale, 1 / sqrt(n - 3)."""
    n = np.asarray(n_per_group, np.float64).ravel()
    if n.size == 0 or np.any(n < 4):
        raise ValueError(f"n_per_group must list >= 1 scale of >= 4 networks each, got {n_per_group!r}")
    return float(np.sqrt(np.sum(n ** 2 / (n - 3))) / n.sum())


def pooled_fisher_interval(r, n_per_group, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) arrays like ``r``: tanh(atanh(r) -+ z_q * :func:`pooled_z_se`), z_q the normal
    quantile of the two-sided ``level`` (in (0, 1))."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    half = norm.ppf(0.5 + level / 2) * pooled_z_se(n_per_group)
    z = np.arctanh(np.clip(np.asarray(r, np.float64), -0.9999999, 0.9999999))
    return np.tanh(z - half), np.tanh(z + half)


def earliest_fraction(lo, hi, fractions, threshold: float) -> float:
    """The first of ``fractions`` (F,) at which the interval [lo, hi] (F,) lies beyond +-threshold
    (lo > threshold or hi < -threshold); inf when it never does."""
    lo, hi, fractions = (np.asarray(a, np.float64) for a in (lo, hi, fractions))
    if not (lo.shape == hi.shape == fractions.shape and fractions.ndim == 1):
        raise ValueError(f"lo, hi and fractions must be (F,) arrays of one length, got {lo.shape}, {hi.shape}, "
                         f"{fractions.shape}")
    reached = np.flatnonzero((lo > threshold) | (hi < -threshold))
    return float(fractions[reached[0]]) if len(reached) else float("inf")


def earliest_fraction_interval(values, outcome, groups, fractions, threshold: float, n_resamples: int = 1000,
                               seed: int = 0) -> np.ndarray:
    """(P, 2) percentile bootstrap 95% range (a description of spread, not a confidence interval) of the first fraction at which each predictor's
    pooled within-scale ``|r|`` reaches ``threshold``: networks resampled within each scale,
    ``n_resamples`` times; a resample that never reaches it counts as inf."""
    values, outcome, groups = _check(values, outcome, groups)
    check_int("n_resamples", n_resamples, minimum=100)
    fractions = np.asarray(fractions, np.float64)
    if fractions.shape != (values.shape[1],):
        raise ValueError(f"fractions must be ({values.shape[1]},), got {fractions.shape}")
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    first = np.empty((n_resamples, values.shape[0]))
    for b in range(n_resamples):
        idx = np.concatenate([m[rng.integers(len(m), size=len(m))] for m in members])
        r = within_scale_accuracy(values[:, :, idx], outcome[idx], groups[idx])
        hit = np.abs(np.nan_to_num(r)) >= threshold
        first[b] = np.where(hit.any(axis=1), fractions[np.argmax(hit, axis=1)], np.inf)
    return np.quantile(first, [0.025, 0.975], axis=0, method="inverted_cdf").T


def williams_t(r_jk, r_jh, r_kh, n: float) -> tuple[np.ndarray, np.ndarray]:
    """Williams' t (Steiger 1980, eq. 7) for H0: rho_jk = rho_jh, correlations of j with k and with h
    from the same n cases, and its one-sided p-value for rho_jk > rho_jh (t distribution, n - 3
    degrees of freedom). Arrays broadcast."""
    r_jk, r_jh, r_kh = (np.asarray(a, np.float64) for a in (r_jk, r_jh, r_kh))
    if not n > 4:
        raise ValueError(f"n must be > 4, got {n!r}")
    det = 1 - r_jk ** 2 - r_jh ** 2 - r_kh ** 2 + 2 * r_jk * r_jh * r_kh
    mean = (r_jk + r_jh) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (r_jk - r_jh) * np.sqrt((n - 1) * (1 + r_kh) / (2 * (n - 1) / (n - 3) * det + mean ** 2 * (1 - r_kh) ** 3))
    t = np.where(r_jk == r_jh, 0.0, t)  # equal correlations (e.g. k = h, where the formula is 0 / 0): no difference
    return t, student_t.sf(t, n - 3)


def effective_n(n_per_group) -> float:
    """The n whose single-sample Fisher z has the pooled within-scale r's standard error:
    3 + 1 / :func:`pooled_z_se` ^ 2 (N - 3G + 3 for G equal scales)."""
    return 3.0 + 1.0 / pooled_z_se(n_per_group) ** 2


def beats_rivals(kernels, rivals, outcome, groups) -> dict[str, np.ndarray]:
    """Does each kernel predictor (K, F, N) predict the outcome better, within scale, than every
    rival (R, F, N) observed at the same fraction?

    Correlations are pooled within-scale r's; each predictor is oriented by the sign of its own r
    with the outcome (accuracy is ``|r|``). Per (kernel, fraction), Williams' t against each rival with
    :func:`effective_n` cases; ``p``: the largest one-sided p over rivals (intersection-union: the
    kernel beats them all); ``p_reverse``: "some rival beats the kernel", the smallest p over the
    R rivals of the rival's advantage times R (Bonferroni over the rivals). Returns ``r_kernel``
    (K, F), ``r_rival`` (R, F), ``p``, ``p_reverse`` (K, F)."""
    kernels, outcome, groups = _check(kernels, outcome, groups)
    rivals = np.asarray(rivals, np.float64)
    if rivals.ndim != 3 or rivals.shape[1:] != kernels.shape[1:]:
        raise ValueError(f"rivals must be (R, F, N) with F, N as kernels {kernels.shape[1:]}, got {rivals.shape}")
    zk, zr, zy = _within_z(kernels, groups), _within_z(rivals, groups), _within_z(outcome, groups)
    r_k, r_r = _mean_product(zk, zy), _mean_product(zr, zy)  # (K, F), (R, F)
    r_kr = _mean_product(zk[:, None], zr[None])  # (K, R, F)
    n_groups = [int(np.sum(groups == g)) for g in np.unique(groups)]
    n = effective_n(n_groups)
    sk, sr = np.sign(r_k)[:, None], np.sign(r_r)[None]  # orient each predictor by its own sign
    _, p_k_over_r = williams_t(np.abs(r_k)[:, None], np.abs(r_r)[None], r_kr * sk * sr, n)
    _, p_r_over_k = williams_t(np.abs(r_r)[None], np.abs(r_k)[:, None], r_kr * sk * sr, n)
    undefined_as_one = lambda p: np.where(np.isfinite(p), p, 1.0)  # an undefined test shows nothing
    n_rivals = rivals.shape[0]
    return {"r_kernel": r_k, "r_rival": r_r, "p": np.max(undefined_as_one(p_k_over_r), axis=1),
            "p_reverse": np.minimum(1.0, n_rivals * np.min(undefined_as_one(p_r_over_k), axis=1))}


def added_information(kernels, rivals, outcome, groups) -> dict[str, np.ndarray]:
    """Does each kernel predictor (K, F, N) carry information about the outcome beyond all the rivals
    (R, F, N) observed at the same fraction? Every variable z-scored within scale; per (kernel,
    fraction), the partial correlation of kernel and outcome given the R rivals (both residualised on
    the rivals by least squares) over the networks where all are finite, and its two-sided t-test
    with N - G - R - 1 degrees of freedom (G scales: their means are removed by the z-scoring).
    Returns ``r_partial`` and ``p`` (K, F) (nan where fewer than G + R + 3 networks are usable)."""
    kernels, outcome, groups = _check(kernels, outcome, groups)
    out = added_information_batch(kernels, rivals, outcome[None], groups)
    return {"r_partial": out["r_partial"][0], "p": out["p"][0]}


def added_information_batch(kernels, rivals, outcomes, groups) -> dict[str, np.ndarray]:
    """:func:`added_information` of each of B outcomes (B, N) (e.g. B permutations of one outcome)
    at once: ``r_partial`` and ``p`` (B, K, F). Per (kernel, fraction), where every outcome is finite
    on the networks the kernel and rivals leave usable, the kernel is residualised on the rivals once
    and the B outcomes in one least-squares solve with B right-hand sides; otherwise each outcome is
    computed on its own networks, one by one. Equal to one outcome at a time to rounding."""
    kernels, outcomes, groups = np.asarray(kernels, np.float64), np.asarray(outcomes, np.float64), np.asarray(groups)
    if outcomes.ndim != 2 or len(outcomes) == 0:
        raise ValueError(f"outcomes must be (B, N) with B >= 1, got shape {outcomes.shape}")
    _check(kernels, outcomes[0], groups)
    rivals = np.asarray(rivals, np.float64)
    if rivals.ndim != 3 or rivals.shape[1:] != kernels.shape[1:]:
        raise ValueError(f"rivals must be (R, F, N) with F, N as kernels {kernels.shape[1:]}, got {rivals.shape}")
    zk, zr, zy = _within_z(kernels, groups), _within_z(rivals, groups), _within_z(outcomes, groups)
    finite_y, lost = np.isfinite(zy), len(np.unique(groups)) + rivals.shape[0] + 1  # df = usable networks - lost
    usable = np.isfinite(zk) & np.all(np.isfinite(zr), axis=0)  # (K, F, N)
    df = (usable[None] & finite_y[:, None, None, :]).sum(axis=-1) - lost  # (B, K, F)
    r_partial = np.full(df.shape, np.nan)
    for k in range(kernels.shape[0]):
        for f in range(kernels.shape[1]):
            if finite_y[:, usable[k, f]].all():  # one solve for every outcome
                if df[0, k, f] >= 2:
                    r_partial[:, k, f] = _partial_r(zk[k, f], zr[:, f], zy, usable[k, f])
                continue
            for b in np.flatnonzero(df[:, k, f] >= 2):
                r_partial[b, k, f] = _partial_r(zk[k, f], zr[:, f], zy[b:b + 1], usable[k, f] & finite_y[b])[0]
    with np.errstate(invalid="ignore"):
        p = 2 * student_t.sf(np.abs(r_partial) * np.sqrt(np.maximum(df, 1) / np.maximum(1e-300, 1 - r_partial ** 2)),
                             np.maximum(df, 1))
    return {"r_partial": r_partial, "p": np.where(np.isfinite(r_partial), p, np.nan)}


def _partial_r(kernel: np.ndarray, rivals: np.ndarray, outcomes: np.ndarray, use: np.ndarray) -> np.ndarray:
    """(B,) partial correlation of ``kernel`` (N,) with each of ``outcomes`` (B, N) given ``rivals``
    (R, N), over the networks ``use`` (N,); nan where either residual is zero (a constant variable)."""
    design = rivals[:, use].T
    residual = lambda v: v - design @ np.linalg.lstsq(design, v, rcond=None)[0]  # noqa: E731 (v: (n,) or (n, B))
    a, b = residual(kernel[use]), residual(outcomes[:, use].T)
    denom = np.sqrt((a @ a) * (b * b).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, np.clip(a @ b / denom, -1.0, 1.0), np.nan)


def shuffled_accuracy(values, outcome, groups, n_permutations: int = 200, seed: int = 0) -> np.ndarray:
    """(n_permutations, P, F) :func:`within_scale_accuracy` with the outcome permuted within each
    scale, ``n_permutations`` times: the negative control (chance accuracy; about 95% of the ``|r|``
    fall inside the null interval around 0)."""
    values, outcome, groups = _check(values, outcome, groups)
    check_int("n_permutations", n_permutations, minimum=1)
    rng = np.random.default_rng(seed)
    zv = _within_z(values, groups)
    out = np.empty((n_permutations,) + values.shape[:2])
    for i in range(n_permutations):
        shuffled = outcome.copy()
        for g in np.unique(groups):
            member = np.flatnonzero(groups == g)
            shuffled[member] = outcome[rng.permutation(member)]
        out[i] = _mean_product(zv, _within_z(shuffled, groups))
    return out


def accuracy_curves(values, outcome, groups, fractions, threshold: float, n_resamples: int = 1000,
                    n_permutations: int = 200, seed: int = 0) -> dict[str, np.ndarray]:
    """Everything the horizon figure and tables show for one outcome, predictors ``values`` (P, F, N):

    ``within``, ``within_lo``, ``within_hi`` (P, F): pooled within-scale r and its Fisher 95%
    interval; ``across``, ``across_lo``, ``across_hi`` (P, F): Pearson r over all networks and its
    Fisher 95% interval (n = finite networks); ``earliest`` (P,): the first fraction at which the
    within-scale ``|r|`` reaches ``threshold`` (inf if none), with ``earliest_lo``, ``earliest_hi`` (P,)
    its bootstrap range (:func:`earliest_fraction_interval`), and ``earliest_sure`` (P,): the
    first fraction at which the Fisher interval lies beyond +-threshold (:func:`earliest_fraction`);
    ``shuffled`` (n_permutations, P, F): the within-scale r with the outcome permuted within scale
    (:func:`shuffled_accuracy`), and ``null_half`` (scalar): the half-width of the Fisher 95% interval
    around 0, inside which a chance ``|r|`` falls 95% of the time."""
    values, outcome, groups = _check(values, outcome, groups)
    n_groups = [int(np.sum(groups == g)) for g in np.unique(groups)]
    within = within_scale_accuracy(values, outcome, groups)
    within_lo, within_hi = pooled_fisher_interval(within, n_groups)
    across = across_scale_accuracy(values, outcome)
    n = len(outcome)
    across_lo, across_hi = pooled_fisher_interval(across, [n])
    sure = np.array([earliest_fraction(lo, hi, fractions, threshold) for lo, hi in zip(within_lo, within_hi)])
    hit = np.abs(np.nan_to_num(within)) >= threshold
    earliest = np.where(hit.any(axis=1), np.asarray(fractions, np.float64)[np.argmax(hit, axis=1)], np.inf)
    spread = earliest_fraction_interval(values, outcome, groups, fractions, threshold, n_resamples, seed)
    return {"within": within, "within_lo": within_lo, "within_hi": within_hi, "across": across,
            "across_lo": across_lo, "across_hi": across_hi, "earliest": earliest, "earliest_lo": spread[:, 0],
            "earliest_hi": spread[:, 1], "earliest_sure": sure, "shuffled": shuffled_accuracy(values, outcome, groups, n_permutations, seed),
            "null_half": float(np.tanh(norm.ppf(0.975) * pooled_z_se(n_groups)))}


def rival_cells(kernels, rivals, outcomes: dict, groups, fractions) -> dict[str, list]:
    """Every cell (kernel predictor k x outcome x fraction f > 0) of the rival comparison, in that
    order (outcome-major, then kernel, then fraction): :func:`beats_rivals` and
    :func:`added_information` of kernels (K, F, N) against rivals (R, F, N) for each outcome of
    ``outcomes`` (name -> (N,)), within ``groups`` (N,); ``fractions`` (F,).

    Returns lists over the cells: ``p``, ``p_reverse`` (:func:`beats_rivals`), ``r_partial``,
    ``p_partial`` (:func:`added_information`), ``kernel`` (index k), ``outcome`` (name),
    ``fraction`` (index f)."""
    fractions = np.asarray(fractions, np.float64)
    if fractions.shape != (np.shape(kernels)[1],):
        raise ValueError(f"fractions must be ({np.shape(kernels)[1]},), got {fractions.shape}")
    cells = {k: [] for k in ("p", "p_reverse", "r_partial", "p_partial", "kernel", "outcome", "fraction")}
    for name, outcome in outcomes.items():
        comparison = beats_rivals(kernels, rivals, outcome, groups)
        added = added_information(kernels, rivals, outcome, groups)
        for k in range(np.shape(kernels)[0]):
            for f in np.flatnonzero(fractions > 0):
                for key, value in (("p", comparison["p"][k, f]), ("p_reverse", comparison["p_reverse"][k, f]),
                                   ("r_partial", added["r_partial"][k, f]), ("p_partial", added["p"][k, f]),
                                   ("kernel", k), ("outcome", name), ("fraction", int(f))):
                    cells[key].append(value)
    return cells
