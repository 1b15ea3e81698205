"""The types of the claims registry: a :class:`Criterion` (one version of a claim's criterion), a
:class:`Claim`, the :class:`Judgement` of a criterion on the evidence, the :data:`VERDICTS` a
judgement may give, and the constructors the registry is written with.

The registry itself (the data) is in :mod:`lib.analyses.claim_registry_paper` and
:mod:`lib.analyses.claim_registry_horizon_rivals`; :mod:`lib.analyses.claims` merges the two into
``CLAIMS`` and judges, digests and checks it. This module imports nothing from the project.
"""

from __future__ import annotations

from typing import Any, NamedTuple

VERDICTS = ("reproduced", "reproduced with qualification", "not reproduced", "inconclusive", "borderline",
            "not discriminating", "not tested")
BOOTSTRAP_RESAMPLES = 2000  # resamples per bootstrap interval of a verdict


class Criterion(NamedTuple):
    """One version of a claim's criterion.

    version: 1, 2, ... (the last is in force); text: the criterion in words, shown before the
    number; test: a key of :data:`lib.analyses.claim_tests.TESTS`; settings: its declared
    thresholds and margins; min_sample: the smallest sample (pairs or networks) the test accepts
    (1 where the evidence is not a sample); reason: why this version replaced the previous one;
    commit: the commit in which this version was last in force (history, not part of the digest);
    controls: the declared controls, each the name of a quantity that :func:`lib.analyses.claims.judge`
    must be given and judges by this same criterion (a control that passes it qualifies the verdict)."""

    version: int
    text: str
    test: str
    settings: dict
    min_sample: int = 1
    reason: str = ""
    commit: str = ""
    controls: tuple[str, ...] = ()


class Claim(NamedTuple):
    """A claim: where it is made, what it says, the chapter that judges it, its criteria (oldest
    first), and ``untested``: why no chapter judges it (then no criteria)."""

    section: str
    figure: str
    text: str
    chapter: str
    criteria: tuple[Criterion, ...] = ()
    untested: str = ""

    @property
    def current(self) -> Criterion:
        return self.criteria[-1]


class Judgement(NamedTuple):
    """The verdict of one criterion version on the evidence: ``verdict`` (one of :data:`VERDICTS`),
    our number and interval as text, the sample size, the qualification (or reason, for "not
    tested"), ``stability`` ("k/20": seeds giving the reported verdict; "" for tests without
    resampling) and ``one_draw``: where the evidence came from a seeded resampling (a permutation,
    sign-flip or bootstrap draw) and its first draw (seed 0, the one the chapter shows) alone gives
    another verdict, that verdict: the one the claim got before its chapter judged every draw;
    "" otherwise."""

    claim: str
    version: int
    verdict: str
    ours: str
    interval: str
    n: int
    qualification: str
    stability: str
    criterion: str
    one_draw: str = ""


def declared(version: int, text: str, test: str, min_sample: int = 1, reason: str = "", commit: str = "",
             controls: tuple[str, ...] = (), **settings: Any) -> Criterion:
    """A :class:`Criterion` with the test's ``settings`` given as keyword arguments (the registry's
    short form; the registry modules import it as ``_c``)."""
    return Criterion(version, text, test, settings, min_sample, reason, commit, tuple(controls))


def all_hold(version: int, *names: str, **kw: Any) -> Criterion:
    """A criterion that every one of the named measured statements holds: the test ``all_hold``,
    its text the ``names`` joined by "; " (``kw``: the other fields of :func:`declared`)."""
    return declared(version, "; ".join(names), "all_hold", names=tuple(names), **kw)
