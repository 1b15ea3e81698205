"""The statistical tests a claim's criterion may name (:data:`TESTS`), each a small pure function.

A test takes the evidence a chapter measured (keyword arguments) and the settings its
criterion declares in :mod:`lib.analyses.claims`, and returns an :class:`Outcome`: a verdict
(one of :data:`OUTCOMES`), our number as text, its interval as text, and the sample size it
used. Tests that resample (``RANDOM_TESTS``) take a ``seed``; :func:`lib.analyses.claims.judge`
runs them under 20 seeds and calls a verdict that changes with the seed *borderline*.

Three-way tests: where the evidence has an interval, "reproduced" needs the whole interval on
the claim's side of the threshold, "not reproduced" the whole interval on the other side, and
anything else is "inconclusive" — so a verdict does not depend on how many networks happened
to be trained, only its certainty does.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.stats import binomtest

OUTCOMES = ("reproduced", "not reproduced", "inconclusive", "not discriminating", "not tested")
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}


class Outcome(NamedTuple):
    """A test's result: ``verdict`` (one of :data:`OUTCOMES`), ``ours`` (our number, as text),
    ``interval`` (as text, "" when the test has none), ``n`` (sample size, 0 when not a sample) and
    ``note`` (the test's own qualification, e.g. "sign only", "" otherwise)."""

    verdict: str
    ours: str
    interval: str = ""
    n: int = 0
    note: str = ""


def _holds(flag: bool) -> str:
    return "reproduced" if flag else "not reproduced"


def _side(lo: float, hi: float, threshold: float, claim_above: bool) -> str:
    """Three-way verdict of an interval [lo, hi] against ``threshold``: the claim says the quantity
    lies above it (``claim_above``) or below it."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive"
    if (lo > threshold) if claim_above else (hi < threshold):
        return "reproduced"
    if (hi < threshold) if claim_above else (lo > threshold):
        return "not reproduced"
    return "inconclusive"


def compare(value: float, *, op: str, threshold: float, fmt: str = ".3g") -> Outcome:
    """``value op threshold`` (``op`` one of :data:`OPERATORS`); value: a scalar."""
    return Outcome(_holds(bool(OPERATORS[op](float(value), threshold))), format(float(value), fmt))


def between(value: float, *, low: float, high: float, fmt: str = ".3g") -> Outcome:
    """``low <= value <= high``; value: a scalar."""
    return Outcome(_holds(low <= float(value) <= high), format(float(value), fmt))


def all_hold(conditions: dict[str, bool], *, names: tuple[str, ...], ours: str = "", n: int = 0) -> Outcome:
    """Every named condition holds. ``conditions`` must name exactly the criterion's ``names``
    (each a measured statement, e.g. ``"mode 1 at t=190": True``); ``ours`` is the numbers behind them;
    ``n`` the sample the conditions were measured on (0: not a sample)."""
    if set(conditions) != set(names):
        raise ValueError(f"conditions must name exactly {sorted(names)}, got {sorted(conditions)}")
    failed = [name for name in names if not bool(conditions[name])]
    return Outcome(_holds(not failed), ours or "; ".join(f"{c}: {'yes' if conditions[c] else 'no'}" for c in names),
                   n=int(n))


def all_discovered(conditions: dict[str, bool], *, names: tuple[str, ...], ours: str = "", n: int = 0) -> Outcome:
    """Every named significance statement holds (each a corrected test that found the effect):
    reproduced; otherwise inconclusive, never "not reproduced" — a test that finds nothing is an
    absence of evidence, and only a test of the reverse could refute the claim. Arguments as
    :func:`all_hold`."""
    held = all_hold(conditions, names=names, ours=ours, n=n)
    return held._replace(verdict="reproduced" if held.verdict == "reproduced" else "inconclusive")


def proportion(k: int, n: int, *, p: float, claim_above: bool = True, level: float = 0.95) -> Outcome:
    """Share k/n of networks (pairs) for which a statement holds, with its exact (Clopper-Pearson)
    interval at ``level``, against the share ``p`` the claim implies (above it, or below it)."""
    k, n = int(k), int(n)
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"k and n must satisfy 0 <= k <= n, n >= 1, got k={k}, n={n}")
    ci = binomtest(k, n).proportion_ci(level, method="exact")
    return Outcome(_side(ci.low, ci.high, p, claim_above), f"{k}/{n} ({k / n:.0%})",
                   f"[{ci.low:.0%}, {ci.high:.0%}]", n)


def quantile_ratio(values: np.ndarray, *, q_low: float, q_high: float, threshold: float, n_resamples: int,
                   seed: int = 0, level: float = 0.95) -> Outcome:
    """Ratio of the ``q_high`` to the ``q_low`` quantile of positive ``values`` (N,), with a
    percentile bootstrap interval, against ``threshold`` (the claim: above it)."""
    values = np.asarray(values, float).ravel()
    if values.size < 2 or not np.all(np.isfinite(values) & (values > 0)):
        raise ValueError(f"values must be >= 2 finite positive numbers, got {values.size} values")
    rng = np.random.default_rng(seed)
    resampled = values[rng.integers(values.size, size=(n_resamples, values.size))]
    ratios = np.quantile(resampled, q_high, axis=1) / np.quantile(resampled, q_low, axis=1)
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    ratio = np.quantile(values, q_high) / np.quantile(values, q_low)
    return Outcome(_side(lo, hi, threshold, True), f"{ratio:.1f}x", f"[{lo:.1f}x, {hi:.1f}x]", values.size)


def paired_difference(a: np.ndarray, b: np.ndarray, *, claim_above: bool, n_resamples: int, seed: int = 0,
                      level: float = 0.95, fmt: str = "+.3g") -> Outcome:
    """Mean of ``a - b`` over pairs (a, b: (N,), the same networks' two conditions), with a
    percentile bootstrap interval over pairs, against 0 (the claim: a > b if ``claim_above``)."""
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if a.shape != b.shape or a.size < 2 or not np.all(np.isfinite(a - b)):
        raise ValueError(f"a and b must be equal-length finite arrays of >= 2 pairs, got {a.shape}, {b.shape}")
    d = a - b
    rng = np.random.default_rng(seed)
    means = d[rng.integers(d.size, size=(n_resamples, d.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return Outcome(_side(lo, hi, 0.0, claim_above), format(d.mean(), fmt), f"[{lo:{fmt}}, {hi:{fmt}}]", d.size)


def _fisher_z(r):
    return np.arctanh(np.clip(r, -0.999999, 0.999999))


def correlation(parts: dict[str, tuple[np.ndarray, np.ndarray, float]], *, margin_z: float, n_resamples: int,
                seed: int = 0) -> Outcome:
    """Correlation claims, one or more ``parts`` name -> (x, y, paper_r), x and y (P, 2): the two
    networks of each standard/large pair (resampled as whole pairs, :func:`lib.analyses.stats.bootstrap_ci`).

    Per part, (a) *sign*: the 95% percentile bootstrap interval of r excludes 0 on the paper's
    side; (b) *size*: a TOST on Fisher's z — the 90% bootstrap interval of z(r) - z(paper_r) lies
    inside [-margin_z, margin_z]. Verdict: every part (a) and (b): reproduced; every part (a) but
    some not (b): reproduced with the note "sign only", naming per part whether the size
    *differs* (the paper's r outside our 95% interval) or its equivalence is only *not shown*
    (the interval too wide for the margin); some part not (a): not reproduced."""
    from .stats import bootstrap_ci, pearson

    ours, intervals, sign_ok, size_ok, size_differs, n = [], [], [], [], [], []
    for name, (x, y, paper_r) in parts.items():
        x, y = np.asarray(x, float), np.asarray(y, float)
        r = pearson(x, y)
        lo, hi = bootstrap_ci(x, y, n_resamples, seed, 0.95)
        lo90, hi90 = bootstrap_ci(x, y, n_resamples, seed, 0.90)
        dz_lo, dz_hi = _fisher_z(lo90) - _fisher_z(paper_r), _fisher_z(hi90) - _fisher_z(paper_r)
        sign_ok.append(bool(lo > 0) if paper_r > 0 else bool(hi < 0))
        size_ok.append(bool(-margin_z < dz_lo and dz_hi < margin_z))
        size_differs.append(not lo <= paper_r <= hi)
        ours.append(f"{name} {r:+.3f}")
        intervals.append(f"{name} [{lo:+.2f}, {hi:+.2f}]")
        n.append(len(x))
    if not all(sign_ok):
        verdict, note = "not reproduced", ""
    else:
        verdict = "reproduced"
        size_text = {True: "differs from the paper's (outside our 95% interval)",
                     False: "not shown equivalent to the paper's (interval wider than the margin)"}
        note = "" if all(size_ok) else "sign only: " + ", ".join(
            f"{name} r {size_text[differs]}" for name, ok, differs in zip(parts, size_ok, size_differs) if not ok)
    return Outcome(verdict, "; ".join(ours), "; ".join(intervals), min(n), note)


def discriminating_proportion(k: int, n: int, k_control: int, n_control: int, *, p: float = 0.5,
                              level: float = 0.95) -> Outcome:
    """A speed claim with a negative control: the share k/n (target phase) is claimed above ``p``;
    the same measure in the control phase (k_control/n_control), where the claim does not apply,
    must not also be above ``p``, else the measure does not distinguish the phases."""
    target = proportion(k, n, p=p, level=level)
    control = proportion(k_control, n_control, p=p, level=level)
    verdict = target.verdict
    if verdict == "reproduced" and control.verdict == "reproduced":
        verdict = "not discriminating"
    return Outcome(verdict, f"{target.ours}; control {control.ours}",
                   f"{target.interval}; control {control.interval}", min(n, n_control))


def correlation_if_testable(r: float, lo: float, hi: float, *, separates: bool, resolution: int,
                            max_resolution: int, claim_above: bool = False) -> Outcome:
    """A correlation claim that is only testable when its measures can show it: the predictor
    separates the conditions it is meant to (``separates``) and the outcome is resolved to
    ``max_resolution`` (iterations) or finer. Otherwise "not tested"; then the interval [lo, hi]
    against 0 (three-way)."""
    ours, interval = f"{r:+.2f}", f"[{lo:+.2f}, {hi:+.2f}]"
    reasons = ([] if separates else ["the predictor does not separate the conditions"]) + (
        [] if resolution <= max_resolution else [f"the outcome is resolved to {resolution} iterations, "
                                                 f"coarser than {max_resolution}"])
    if reasons:
        return Outcome("not tested", ours, interval, note="; ".join(reasons))
    return Outcome(_side(lo, hi, 0.0, claim_above), ours, interval)


def correlations_reach(r, labels, n_per_group, *, threshold: float, family_level: float = 0.95) -> Outcome:
    """Some cell of a family reaches a correlation of size ``threshold``: the pooled within-scale
    r's (m,) of the cells named by ``labels`` (m,), each with a Fisher-z interval
    (:func:`lib.analyses.horizon.pooled_fisher_interval`, scales of ``n_per_group`` networks) at the
    Bonferroni level 1 - (1 - family_level) / m. Reproduced: some interval lies beyond
    +-threshold; not reproduced: every interval lies inside (-threshold, threshold);
    inconclusive otherwise. Cells with a non-finite r are left out (m counts the finite ones)."""
    from .horizon import pooled_fisher_interval

    r, labels = np.asarray(r, float).ravel(), list(labels)
    if len(labels) != r.size or r.size == 0:
        raise ValueError(f"r and labels must be non-empty and of one length, got {r.size} and {len(labels)}")
    keep = np.flatnonzero(np.isfinite(r))
    if keep.size == 0:
        return Outcome("not tested", "no finite r", n=int(np.sum(n_per_group)), note="every cell's r is undefined")
    lo, hi = pooled_fisher_interval(r[keep], n_per_group, 1 - (1 - family_level) / keep.size)
    best = int(np.argmax(np.abs(r[keep])))
    reached = (lo > threshold) | (hi < -threshold)
    inside = (lo > -threshold) & (hi < threshold)
    verdict = "reproduced" if reached.any() else ("not reproduced" if inside.all() else "inconclusive")
    ours = f"largest |r|: {labels[keep[best]]} r = {r[keep[best]]:+.2f} ({int(reached.sum())} of {keep.size} cells reach)"
    return Outcome(verdict, ours, f"[{lo[best]:+.2f}, {hi[best]:+.2f}] (Bonferroni over {keep.size})",
                   int(np.sum(n_per_group)))


def any_significant(p, labels, n: int, *, alpha: float = 0.05) -> Outcome:
    """Some test of a family is significant after Holm's correction (family-wise ``alpha``): the
    one-sided p-values (m,) of the tests named by ``labels``; non-finite p's are left out.
    Reproduced: some Holm-adjusted p <= alpha; not reproduced: none."""
    keep, adjusted, labels = _holm_family("p", p, labels)
    if keep.size == 0:
        return Outcome("not tested", "no finite p", n=n, note="every test is undefined")
    p = np.asarray(p, float).ravel()
    best = int(np.argmin(p[keep]))
    k = int(np.sum(adjusted <= alpha))
    return Outcome(_holds(k > 0), f"{k} of {keep.size} significant (Holm); smallest: {labels[keep[best]]} "
                   f"p = {p[keep][best]:.2g} (Holm {adjusted[best]:.2g})", "", n)


def _holm_family(name: str, p, labels) -> tuple[np.ndarray, np.ndarray, list]:
    """(indices of the finite p's, their Holm-adjusted p's, labels) of a family of tests."""
    from .multiple_testing import holm_adjusted

    p, labels = np.asarray(p, float).ravel(), list(labels)
    if len(labels) != p.size or p.size == 0:
        raise ValueError(f"{name} and labels must be non-empty and of one length, got {p.size} and {len(labels)}")
    keep = np.flatnonzero(np.isfinite(p))
    return keep, (holm_adjusted(p[keep]) if keep.size else np.array([])), labels


def beats_or_beaten(p, p_reverse, labels, kernel_of, n: int, *, alpha: float = 0.05) -> Outcome:
    """Does some kernel quantity predict better than every rival? Per cell (kernel quantity x outcome
    x fraction, named by ``labels``), ``p`` (m,): one-sided p that the kernel beats every rival, and
    ``p_reverse`` (m,): that some rival beats it; each family Holm-corrected. Reproduced: some cell
    with Holm-adjusted p <= ``alpha``; not reproduced: none, and every kernel quantity (``kernel_of``,
    (m,) names) is beaten by a rival in some cell (Holm-adjusted p_reverse <= ``alpha``);
    inconclusive otherwise (no significant difference either way for some kernel quantity)."""
    keep, adjusted, labels = _holm_family("p", p, labels)
    keep_r, adjusted_r, _ = _holm_family("p_reverse", p_reverse, labels)
    kernel_of = list(kernel_of)
    if len(kernel_of) != len(labels):
        raise ValueError(f"kernel_of must name the kernel of each of the {len(labels)} cells, got {len(kernel_of)}")
    if keep.size == 0:
        return Outcome("not tested", "no finite p", n=n, note="every test is undefined")
    wins = int(np.sum(adjusted <= alpha))
    beaten = {kernel_of[i] for i, q in zip(keep_r, adjusted_r) if q <= alpha}
    unbeaten = [k for k in dict.fromkeys(kernel_of) if k not in beaten]
    verdict = "reproduced" if wins else ("not reproduced" if not unbeaten else "inconclusive")
    best = int(np.argmin(np.asarray(p, float)[keep]))
    ours = (f"kernel beats every rival in {wins} of {keep.size} cells (Holm; smallest p = "
            f"{np.asarray(p, float)[keep][best]:.2g}, {labels[keep[best]]}); a rival beats the kernel in "
            f"{int(np.sum(adjusted_r <= alpha))} cells" + (f"; never beaten: {', '.join(unbeaten)}" if unbeaten else ""))
    return Outcome(verdict, ours, "", n)


def any_discovery(p, labels, n: int, *, alpha: float = 0.05) -> Outcome:
    """An exploratory family: reproduced when some test is significant after Holm's correction
    (family-wise ``alpha``), inconclusive otherwise (no significant test is not evidence of no effect)."""
    keep, adjusted, labels = _holm_family("p", p, labels)
    if keep.size == 0:
        return Outcome("not tested", "no finite p", n=n, note="every test is undefined")
    best = int(np.argmin(adjusted))
    k = int(np.sum(adjusted <= alpha))
    return Outcome("reproduced" if k else "inconclusive", f"{k} of {keep.size} significant (Holm); strongest: "
                   f"{labels[keep[best]]} (Holm p = {adjusted[best]:.2g})", "", n)


def holm_every_cell(p, p_reverse, labels, n: int, *, alpha: float = 0.05) -> Outcome:
    """A claim that holds in every cell of a family (e.g. a theory beats each rival at each initial
    scale, or each member of a family of claims holds): one-sided ``p`` (m,) for the claim's side
    and ``p_reverse`` (m,) for the other side, each family Holm-corrected (family-wise ``alpha``).
    Reproduced: every cell has a Holm-adjusted p <= alpha; not reproduced: some cell has a
    Holm-adjusted p_reverse <= alpha (significantly the other way); inconclusive otherwise. Cells
    with a non-finite p are left out of both families (an undefined test); none finite: not tested."""
    keep, adjusted, labels = _holm_family("p", p, labels)
    keep_r, adjusted_r, _ = _holm_family("p_reverse", p_reverse, labels)
    if keep.size == 0:
        return Outcome("not tested", "no finite p", n=n, note="every test is undefined")
    held = {labels[i] for i, q in zip(keep, adjusted) if q <= alpha}
    against = {labels[i] for i, q in zip(keep_r, adjusted_r) if q <= alpha}
    verdict = "not reproduced" if against else ("reproduced" if len(held) == keep.size else "inconclusive")
    status = [f"{labels[i]}: " + ("holds" if labels[i] in held else "against" if labels[i] in against else "open")
              for i in keep]
    undefined = [labels[i] for i in range(len(labels)) if i not in set(keep.tolist())]
    return Outcome(verdict, f"{len(held)} of {keep.size} cells hold, {len(against)} against (Holm, alpha "
                   f"{alpha:g}): " + "; ".join(status) + (f"; left out, undefined: {', '.join(undefined)}"
                                                          if undefined else ""), "", n)


def holm_every_declared_cell(p, p_reverse, labels, n: int, *, alpha: float = 0.05) -> Outcome:
    """:func:`holm_every_cell`, with every declared cell counted: a cell whose test is undefined
    (non-finite ``p``) cannot hold, so "reproduced" needs every declared cell defined and holding;
    with some cell undefined and none significantly against, the verdict is "inconclusive" (2
    defined cells of 4 holding do not show that all 4 hold)."""
    out = holm_every_cell(p, p_reverse, labels, n, alpha=alpha)
    undefined = int(np.sum(~np.isfinite(np.asarray(p, float))))
    if out.verdict == "reproduced" and undefined:
        return out._replace(verdict="inconclusive", ours=f"{out.ours}; {undefined} of {len(list(labels))} declared "
                                                         "cells undefined, so not every cell can be shown to hold")
    return out


def kernel_beats_control(p, p_reverse, labels, kernel_of, n: int, *, kernel: str, alpha: float = 0.05) -> Outcome:
    """:func:`beats_or_beaten` on the cells of one kernel quantity only (``kernel_of[i] == kernel``),
    Holm over those cells: a claim about ``kernel`` is judged on its own cells, never pooled with
    another quantity's (e.g. the network linearized at t=0)."""
    kernel_of = list(kernel_of)
    if kernel not in kernel_of:
        raise ValueError(f"kernel {kernel!r} names none of the cells (kernels: {sorted(set(kernel_of))})")
    own = [i for i, k in enumerate(kernel_of) if k == kernel]
    pick = lambda values: np.asarray(values, float).ravel()[own]
    return beats_or_beaten(pick(p), pick(p_reverse), [list(labels)[i] for i in own], [kernel] * len(own), n,
                           alpha=alpha)


def null_discovery_share(discoveries, *, p: float, level: float = 0.95) -> Outcome:
    """The negative control of a corrected family of tests: ``discoveries`` (n,) the number of
    significant tests of the family in each of n runs on shuffled data (nan for a run in which no
    test of the family could be computed). The share of testable runs with some discovery, with its
    exact interval (:func:`proportion`), claimed below ``p``; "not tested" when no run was testable."""
    discoveries = np.asarray(discoveries, float).ravel()
    testable = discoveries[np.isfinite(discoveries)]
    if testable.size == 0:
        return Outcome("not tested", "no testable run", n=0, note=f"no test could be computed in any of the "
                       f"{discoveries.size} shuffled runs")
    return proportion(int(np.sum(testable > 0)), int(testable.size), p=p, claim_above=False, level=level)


def equals(value, *, expected) -> Outcome:
    """``value == expected`` (e.g. which mode a vector matches)."""
    return Outcome(_holds(value == expected), str(value))


TESTS: dict[str, Callable[..., Outcome]] = {f.__name__: f for f in (
    compare, between, all_hold, all_discovered, proportion, quantile_ratio, paired_difference, correlation,
    discriminating_proportion, correlation_if_testable, correlations_reach, any_significant, beats_or_beaten,
    any_discovery, null_discovery_share, equals, holm_every_cell, holm_every_declared_cell, kernel_beats_control)}
RANDOM_TESTS = frozenset({"quantile_ratio", "paired_difference", "correlation"})
