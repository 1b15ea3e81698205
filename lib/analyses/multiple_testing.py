"""Corrections for many tests at once: Holm (family-wise error) and Benjamini-Hochberg (false
discovery rate, from :func:`scipy.stats.false_discovery_control`, imported where it is used: the
chapters' parameter checks import this module, and ``scipy.stats`` costs a check most of its time)."""

from __future__ import annotations

import numpy as np


def _p_values(p_values) -> np.ndarray:
    p = np.asarray(p_values, float).ravel()
    if p.size == 0 or not np.all((p >= 0) & (p <= 1)):
        raise ValueError(f"p_values must be a non-empty array of numbers in [0, 1], got {p_values!r}")
    return p


def holm_adjusted(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (m,) for m tests: reject test i at family-wise level
    alpha when its adjusted p-value is <= alpha."""
    p = _p_values(p_values)
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def bh_adjusted(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values) (m,): reject at false discovery rate q
    when the adjusted p-value is <= q."""
    from scipy.stats import false_discovery_control

    return false_discovery_control(_p_values(p_values), method="bh")


def holm_adjusted_finite(p_values) -> np.ndarray:
    """:func:`holm_adjusted` over the finite p-values of (m,) (the family is the tests that could be
    run); nan where a p-value is nan (an undefined test)."""
    p = np.asarray(p_values, float).ravel()
    out = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        out[finite] = holm_adjusted(p[finite])
    return out
