"""The claims registry: every claim the book judges, with its versioned criteria.

When each criterion version was declared relative to its data (before it, with it, or post hoc)
is recorded for every version in :mod:`lib.analyses.claim_provenance` and checked by
:func:`check_registry`; the verdicts page shows it beside each verdict.

Each claim (:class:`lib.analyses.claim_types.Claim`) is one claim of the paper (Pyle et al.,
arXiv 2307.07575; Sections 3-5 and the appendix figures) or one the book makes beyond it, with
where it is made, the chapter that judges it, and its criterion versions
(:class:`lib.analyses.claim_types.Criterion`), oldest first. A criterion names the quantity
measured, the direction the claim expects, the test (a function of
:mod:`lib.analyses.claim_tests`), its threshold or margin and the smallest sample it accepts.

Where things live: the types, :data:`lib.analyses.claim_types.VERDICTS` and the constructors
the registry is written with are in :mod:`lib.analyses.claim_types`; the registry's data in two
parts, :mod:`lib.analyses.claim_registry_paper` (chapters 01-10) and
:mod:`lib.analyses.claim_registry_horizon_rivals` (chapters 12-13). This module merges them into
``CLAIMS`` (that order, no claim in both) and is the registry's interface: :func:`criterion`,
:func:`judge`, the digests and the checks. It re-exports ``Claim``, ``Criterion``,
``Judgement`` and ``VERDICTS``, so callers import everything from here.

Verdicts come only from here: a chapter measures the evidence and calls :func:`judge`, which
applies the criterion's test (under 20 seeds where the test resamples, or where its evidence
comes from a seeded permutation or sign-flip test: a verdict that changes with the seed is
"borderline (k/20)"). Changing a criterion means adding a
version with the reason; the old version stays, the chapter judges it too, and the verdicts
page shows both. ``lib/analyses/claims_digest.json`` holds a digest of every version's
criterion version, covering everything that decides its verdict (the criterion, the claim's
statement, the code and constants of its test: :func:`criterion_record`), and of judge's own
rules (``judge@vN``); ``tests/test_claims_registry.py`` fails when any of them changes
without a new version (``python -m lib.analyses.claims --digest`` prints the digests).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .claim_registry_horizon_rivals import HORIZON_RIVAL_CLAIMS
from .claim_registry_paper import PAPER_CLAIMS
from .claim_tests import OUTCOMES, RANDOM_TESTS, TESTS, Outcome
from . import verdict_code
from .claim_types import VERDICTS, Claim, Criterion, Judgement

STABILITY_SEEDS = 20
STABLE_AT = 19  # a resampling verdict is settled when at least this many of the seeds agree
JUDGE_VERSION = 5  # raise it (and say why in the commit) when judge's rules change: checked as judge@vN
DIGEST_FILE = Path(__file__).with_name("claims_digest.json")
REGISTRY_PARTS: tuple[dict[str, Claim], ...] = (PAPER_CLAIMS, HORIZON_RIVAL_CLAIMS)  # in the verdicts page's order


def merged_parts(*parts: dict[str, Claim]) -> dict[str, Claim]:
    """One registry from its ``parts``, in their order and each part's own order; ValueError naming
    every claim id that more than one part declares (a merge would silently keep the last)."""
    declared = Counter(key for part in parts for key in part)
    repeated = sorted(key for key, count in declared.items() if count > 1)
    if repeated:
        raise ValueError(f"parts must declare each claim once; declared in more than one: {repeated}")
    return {key: claim for part in parts for key, claim in part.items()}


CLAIMS: dict[str, Claim] = merged_parts(*REGISTRY_PARTS)


def criterion(claim: str, version: int | None = None) -> Criterion:
    """The criterion of ``claim`` in force (``version=None``) or of the given version."""
    if claim not in CLAIMS:
        raise ValueError(f"claim must be one of {sorted(CLAIMS)}, got {claim!r}")
    versions = CLAIMS[claim].criteria
    if not versions:
        raise ValueError(f"claim {claim!r} is not tested: {CLAIMS[claim].untested}")
    if version is None:
        return versions[-1]
    if not any(c.version == version for c in versions):
        raise ValueError(f"version must be one of {[c.version for c in versions]} for claim {claim!r}, got {version!r}")
    return next(c for c in versions if c.version == version)


def judge(claim: str, *, version: int | None = None, qualification: str = "",
          controls: dict[str, dict] | None = None, seeded: Callable[[int], dict] | None = None,
          **evidence: Any) -> Judgement:
    """The verdict of ``claim``'s criterion (in force, or ``version``) on the measured ``evidence``
    (the keyword arguments its test takes, see :mod:`lib.analyses.claim_tests`).

    A sample smaller than the criterion's ``min_sample`` gives "not tested" with the reason. A
    resampling test runs under seeds 0-19 and reports the commonest outcome (verdict, and whether
    it carries a note), with the number, interval and note of the first seed that gives it;
    unless at least 19 seeds agree the verdict is "borderline" with the count of the commonest
    one.

    ``seeded``: for evidence that a seeded random test computes before the criterion's test (the
    p-values of a permutation or random sign-flip test), a function ``seed -> {name: value}`` giving
    that evidence under a seed. judge then runs the criterion's test on ``evidence`` plus
    ``seeded(seed)`` for each of the seeds 0-19, with the same modal outcome and stability count as a
    resampling test (and both sources under the same seed where the test resamples too). Evidence
    that no seed plays a part in (e.g. a sign-flip test small enough to enumerate every pattern) is
    passed directly, not as ``seeded``. Before its chapter passed ``seeded``, a claim was judged on
    that evidence's first draw alone (``seeded(0)``, the draw the chapter shows); where that draw
    gives another verdict, the judgement's ``one_draw`` holds it, so a page can show both.

    ``qualification`` (a caveat a control found) turns "reproduced" into "reproduced with
    qualification"; so does the test's own note (e.g. "sign only").

    ``controls``: control name -> the same keyword arguments measured on that control, one entry
    for each of the criterion's declared ``controls`` (no more, no fewer; ValueError otherwise,
    before any test runs). Each control is judged by the same criterion, and when the claim is
    reproduced and a control's commonest outcome is reproduced too, the verdict is "reproduced
    with qualification", naming the control and its number: the criterion cannot tell the
    claim's quantity from the control."""
    c = criterion(claim, version)
    given = dict(controls or {})
    if set(given) != set(c.controls):
        raise ValueError(f"controls must give evidence for exactly the declared controls of {claim!r} version "
                         f"{c.version}: {list(c.controls)}, got {sorted(given)}")
    if seeded is not None and not callable(seeded):
        raise ValueError(f"seeded must be a function seed -> evidence, got {type(seeded).__name__}")
    seeded = None if seeded is None else functools.cache(seeded)  # each seed's draw once in this call
    controls_passed = functools.cache(lambda: _controls_passed(c, given))  # judged once, when needed
    first, stability = _resampled_outcome(c, evidence, seeded)
    verdict, note = _verdict(c, first, stability, controls_passed, qualification)
    one_draw = ""
    if seeded is not None:  # the rule before the chapter passed seeded: the first draw alone
        drawn, drawn_stability = _resampled_outcome(c, {**evidence, **_drawn(seeded, 0, evidence)})
        one_draw = _verdict(c, drawn, drawn_stability, controls_passed, qualification)[0]
        one_draw = "" if one_draw == verdict else one_draw
    return Judgement(claim, c.version, verdict, first.ours, first.interval, first.n, note, stability, c.text, one_draw)


def _controls_passed(c: Criterion, controls: dict[str, dict]) -> list[str]:
    """For each declared control of ``c`` whose evidence (``controls``: name -> evidence) passes the
    criterion too, the qualification that says so."""
    return [f"the declared control, {name}, passes the same criterion ({control.ours})"
            for name, control in ((name, _resampled_outcome(c, controls[name])[0]) for name in c.controls)
            if control.verdict == "reproduced"]


def _verdict(c: Criterion, first: Outcome, stability: str, controls_passed: Callable[[], list[str]],
             qualification: str) -> tuple[str, str]:
    """(verdict, note) of criterion ``c`` from its test's commonest ``first`` outcome, seen under
    ``stability`` ("k/20" or ""), the declared controls that pass the criterion too
    (:func:`_controls_passed`, asked only for a reproduced verdict) and the caller's
    ``qualification`` (see :func:`judge`)."""
    verdict, note = first.verdict, first.note
    if stability and int(stability.split("/")[0]) < STABLE_AT:
        verdict, note = "borderline", f"{first.verdict}{' (' + first.note + ')' if first.note else ''} " \
                                      f"for {stability.split('/')[0]} of {STABILITY_SEEDS} resampling seeds"
    if first.n and first.n < c.min_sample:
        verdict, note = "not tested", f"n = {first.n} is below the criterion's minimum sample of {c.min_sample}"
    if verdict == "reproduced":
        qualification = "; ".join(s for s in (qualification, *controls_passed()) if s)
    if verdict == "reproduced" and (note or qualification):
        verdict = "reproduced with qualification"
        note = "; ".join(s for s in (note, qualification) if s)
    elif verdict == "reproduced with qualification" or (verdict == "not tested" and not note):
        raise AssertionError(f"test {c.test} gave {first}")  # tests give only OUTCOMES, with reasons for not tested
    assert verdict in VERDICTS and first.verdict in OUTCOMES
    return verdict, note


def _drawn(seeded: Callable[[int], dict], seed: int, evidence: dict) -> dict:
    """``seeded(seed)``, checked: a dict of evidence names not also in ``evidence``."""
    drawn = seeded(seed)
    if not isinstance(drawn, dict) or set(drawn) & set(evidence):
        raise ValueError(f"seeded({seed}) must return a dict of evidence names not also given directly "
                         f"({sorted(evidence)}), got {drawn!r:.200}")
    return drawn


def _resampled_outcome(c: Criterion, evidence: dict,
                       seeded: Callable[[int], dict] | None = None) -> tuple[Outcome, str]:
    """(the commonest outcome of ``c``'s test on ``evidence`` (plus ``seeded(seed)``, see :func:`judge`)
    over the resampling seeds, "k/20": how many seeds give it; "" for a test that does not resample
    on evidence without ``seeded``)."""
    test = TESTS[c.test]
    if c.test not in RANDOM_TESTS and seeded is None:
        return test(**evidence, **c.settings), ""

    def at(seed: int) -> dict:
        drawn = _drawn(seeded, seed, evidence) if seeded is not None else {}
        return {**evidence, **drawn, **c.settings, **({"seed": seed} if c.test in RANDOM_TESTS else {})}

    outcomes = [test(**at(seed)) for seed in range(STABILITY_SEEDS)]
    first = modal_outcome(outcomes)
    k = sum((o.verdict, bool(o.note)) == (first.verdict, bool(first.note)) for o in outcomes)
    return first, f"{k}/{STABILITY_SEEDS}"


def named_conditions(claim: str, holds, version: int | None = None) -> dict[str, bool]:
    """The conditions an ``all_hold`` criterion of ``claim`` names (in force, or ``version``), in
    their order, paired with ``holds``, whether each was measured to hold: the ``conditions`` that
    :func:`judge` takes. ValueError unless there is one value per name."""
    names = criterion(claim, version).settings["names"]
    holds = [bool(h) for h in holds]
    if len(holds) != len(names):
        raise ValueError(f"holds must give one value per condition of {claim!r}: {list(names)}, got {holds}")
    return dict(zip(names, holds))


def not_judged(claim: str, reason: str) -> Judgement:
    """The "not tested" judgement of ``claim``'s criterion in force when its evidence was not
    measured in this run (e.g. a chapter option turned it off), with the ``reason``."""
    if not reason:
        raise ValueError(f"reason must say why {claim!r} was not judged")
    c = criterion(claim)
    return Judgement(claim, c.version, "not tested", "not computed", "", 0, reason, "", c.text)


def judge_every_version(claim: str, **evidence: Any) -> tuple[Judgement, tuple[Judgement, ...]]:
    """``(judgement under the criterion in force, judgements under every earlier version in order)``
    of ``claim`` on the same ``evidence`` (for a claim whose versions all take the same evidence
    and declare no control): the verdicts page shows each version's verdict
    (:func:`lib.book.summary.claim_row`'s ``earlier``)."""
    current = criterion(claim).version
    return judge(claim, **evidence), tuple(judge(claim, version=v, **evidence) for v in range(1, current))


def modal_outcome(outcomes: list[Outcome]) -> Outcome:
    """The first of ``outcomes`` (one per resampling seed, in seed order) whose verdict, and
    whether it carries a note, is the commonest; of equally common ones, the first seen."""
    counts = Counter((o.verdict, bool(o.note)) for o in outcomes)
    (verdict, noted), _ = counts.most_common(1)[0]
    return next(o for o in outcomes if (o.verdict, bool(o.note)) == (verdict, noted))


def criterion_record(claim: str, c: Criterion, statement: str = "") -> dict:
    """What decides a criterion version's verdict, as the digest hashes it: its declared part
    (everything but its commit), the claim's ``statement`` and the digest of its test's code
    (:func:`lib.analyses.verdict_code.code_digest`: the test function and the project code and
    constants it uses)."""
    return {"claim": claim, "version": c.version, "text": c.text, "test": c.test,
            "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(c.settings.items())},
            "min_sample": c.min_sample, "reason": c.reason, "statement": statement,
            "test_code": verdict_code.code_digest(TESTS[c.test]) if c.test in TESTS else ""} \
        | ({"controls": list(c.controls)} if c.controls else {})  # versions without controls keep their digest


def judge_digest() -> str:
    """Digest of the rules :func:`judge` applies (its code, :data:`STABILITY_SEEDS`, :data:`STABLE_AT`
    and the code it calls); the registry's data and the table of claim tests left out (each
    criterion's digest covers its own test's code, so adding a test changes no rule)."""
    return verdict_code.code_digest(judge, exclude=frozenset({f"{__name__}.CLAIMS", f"{__name__}.TESTS"}))


def digests(claims: dict[str, Claim] | None = None) -> dict[str, str]:
    """``"claim@vN"`` -> sha256 (first 16 hex digits) of each criterion version's :func:`criterion_record`,
    ``"judge@vN"`` -> :func:`judge_digest` (N: :data:`JUDGE_VERSION`), and ``"expected-signs@v1"`` for
    the continuum chapter's declared signs (:data:`lib.analyses.expected_signs.EXPECTED_SIGNS`)."""
    from .expected_signs import EXPECTED_SIGNS

    signs = json.dumps(EXPECTED_SIGNS, sort_keys=True).encode()
    out = {"expected-signs@v1": hashlib.sha256(signs).hexdigest()[:16], f"judge@v{JUDGE_VERSION}": judge_digest()}
    for key, claim in (CLAIMS if claims is None else claims).items():
        for c in claim.criteria:
            text = json.dumps(criterion_record(key, c, claim.text), sort_keys=True, ensure_ascii=True)
            out[f"{key}@v{c.version}"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return out


def check_digests(committed: dict[str, str], claims: dict[str, Claim] | None = None) -> None:
    """Raise ValueError naming every criterion version that was changed in place (its digest differs
    from ``committed``), removed, or added without its digest committed."""
    now = digests(claims)
    changed = sorted(k for k in committed if k in now and now[k] != committed[k])
    removed = sorted(k for k in set(committed) - set(now) if not k.startswith("judge@"))  # older rules stay on record
    added = sorted(set(now) - set(committed))
    if changed or removed or added:
        raise ValueError(
            f"claims registry out of step with {DIGEST_FILE.name}: changed in place {changed} (what decides a declared "
            f"verdict may not change: its criterion, its claim's statement, its test's code and constants, or judge's "
            f"rules; add a version with the reason, a new test function, or raise JUDGE_VERSION), removed {removed} (versions are kept), not committed "
            f"{added} (a new version: add its digest, python -m lib.analyses.claims --digest)")


def check_registry(claims: dict[str, Claim] | None = None, provenance: dict | None = None) -> None:
    """Structural checks: versions 1..n in order, known tests, settings the test accepts, a reason for every
    version after the first, untested claims without criteria, and the provenance of every version
    (:data:`lib.analyses.claim_provenance.PROVENANCE`: its declaring commit and a known status; no
    entry for a version that does not exist)."""
    import inspect

    from .claim_provenance import PROVENANCE, STATUSES

    claims = CLAIMS if claims is None else claims
    provenance = PROVENANCE if provenance is None else provenance
    versions = {f"{key}@v{c.version}" for key, claim in claims.items() for c in claim.criteria}
    missing, extra = sorted(versions - set(provenance)), sorted(set(provenance) - versions)
    blank = sorted(k for k, p in provenance.items() if not p.declared or p.status not in STATUSES)
    if missing or extra or blank:
        raise ValueError(f"claim provenance out of step with the registry: no provenance for {missing}, provenance "
                         f"of versions that do not exist {extra}, no declaring commit or a status not in "
                         f"{STATUSES} for {blank} (lib/analyses/claim_provenance.py)")
    for key, claim in claims.items():
        if bool(claim.criteria) == bool(claim.untested):
            raise ValueError(f"claim {key!r} needs either criteria or an 'untested' reason, not both or neither")
        for i, c in enumerate(claim.criteria, start=1):
            if c.version != i:
                raise ValueError(f"claim {key!r}: versions must be 1, 2, ... in order, got {c.version} at place {i}")
            if c.test not in TESTS:
                raise ValueError(f"claim {key!r} v{i}: test must be one of {sorted(TESTS)}, got {c.test!r}")
            accepted = set(inspect.signature(TESTS[c.test]).parameters)
            if not set(c.settings) <= accepted:
                raise ValueError(f"claim {key!r} v{i}: settings {sorted(set(c.settings) - accepted)} not accepted by "
                                 f"{c.test}")
            if i > 1 and not c.reason:
                raise ValueError(f"claim {key!r} v{i}: a new version needs the reason for the change")


def main(argv: list[str] | None = None) -> int:
    """``--digest``: print the digests as JSON (to commit a new version's); ``--check``: exit 1 when the
    registry and the committed digests disagree."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--digest"]:
        print(json.dumps(digests(), indent=1, sort_keys=True))
        return 0
    if args == ["--check"]:
        check_registry()
        check_digests(json.loads(DIGEST_FILE.read_text()))
        print(f"{len(digests())} criterion versions match {DIGEST_FILE.name}")
        return 0
    print("usage: python -m lib.analyses.claims --digest | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":  # the digests name code lib.analyses.claims.*, as imported, never __main__.*
    import importlib

    raise SystemExit(importlib.import_module("lib.analyses.claims").main())
