"""The claims registry: criteria cannot change without a new version, and its tests decide verdicts as declared."""

import ast
import inspect
import re
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

from lib.analyses import claim_provenance, claim_tests, claims, verdict_code
from lib.analyses.multiple_testing import bh_adjusted, holm_adjusted


def committed():
    return json.loads(claims.DIGEST_FILE.read_text())


def test_registry_matches_the_committed_digests():
    claims.check_registry()
    claims.check_digests(committed())


def test_the_digest_check_fails_on_an_unversioned_change():
    """The test of the test: a criterion changed in place (its threshold, its text, its minimum sample) is caught,
    and so is a version removed or added without its digest; a new version with its digest passes."""
    registry = dict(claims.CLAIMS)
    runs = registry["perf-runs"]
    v2 = runs.criteria[-1]
    for changed in (v2._replace(settings={**v2.settings, "p": 0.8}), v2._replace(text=v2.text + " "),
                    v2._replace(min_sample=10)):
        with pytest.raises(ValueError, match=r"changed in place \['perf-runs@v2'\]"):
            claims.check_digests(committed(), {**registry, "perf-runs": runs._replace(criteria=(runs.criteria[0], changed))})
    with pytest.raises(ValueError, match=r"removed \['perf-runs@v2'\]"):
        claims.check_digests(committed(), {**registry, "perf-runs": runs._replace(criteria=runs.criteria[:1])})
    v3 = v2._replace(version=3, settings={**v2.settings, "p": 0.8}, reason="a stated reason")
    bumped = {**registry, "perf-runs": runs._replace(criteria=(*runs.criteria, v3))}
    with pytest.raises(ValueError, match=r"not committed \['perf-runs@v3'\]"):
        claims.check_digests(committed(), bumped)
    claims.check_digests(claims.digests(bumped), bumped)
    # the commit a version was in force at is history, not part of the declared criterion
    claims.check_digests(committed(), {**registry, "perf-runs": runs._replace(
        criteria=(runs.criteria[0], v2._replace(commit="abc1234")))})


def test_the_registry_parts_declare_each_claim_once_in_the_verdicts_order():
    """Every ``lib/analyses/claim_registry_*.py`` part is merged into CLAIMS, no claim id is declared twice (within a
    part's dict literal, where Python would silently keep the last, or across parts), and CLAIMS keeps the parts'
    order; a merge of parts sharing an id fails, naming it."""
    declared = []
    for path in sorted(Path(claims.__file__).parent.glob("claim_registry_*.py")):
        tree = ast.parse(path.read_text())
        literals = [node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                    and node.target.id.endswith("_CLAIMS") and isinstance(node.value, ast.Dict)]
        assert len(literals) == 1, f"{path.name} declares its claims in one dict literal"
        declared += [key.value for key in literals[0].keys]
    assert len(set(declared)) == len(declared), sorted(k for k in set(declared) if declared.count(k) > 1)
    assert sorted(declared) == sorted(claims.CLAIMS)
    assert list(claims.CLAIMS) == [key for part in claims.REGISTRY_PARTS for key in part]
    with pytest.raises(ValueError, match=r"declared in more than one: \['perf-runs'\]"):
        claims.merged_parts(*claims.REGISTRY_PARTS, {"perf-runs": claims.CLAIMS["perf-runs"]})


def test_registry_structure_is_checked():
    runs = claims.CLAIMS["perf-runs"]
    bad = {
        "versions out of order": runs._replace(criteria=runs.criteria[::-1]),
        "needs the reason": runs._replace(criteria=(runs.criteria[0], runs.criteria[1]._replace(reason=""))),
        "test must be one of": runs._replace(criteria=(runs.criteria[0]._replace(test="vibes"),)),
        "not accepted by": runs._replace(criteria=(runs.criteria[0]._replace(settings={"margin": 1}),)),
        "either criteria or": runs._replace(untested="why"),
    }
    known = claim_provenance.PROVENANCE["perf-runs@v1"]
    for message, claim in bad.items():
        with pytest.raises(ValueError, match=message.split()[0]):
            claims.check_registry({"x": claim}, {f"x@v{c.version}": known for c in claim.criteria})


def test_every_criterion_version_has_its_provenance():
    """When each version was declared relative to its data is recorded for every version, none blank."""
    claims.check_registry()
    provenance = dict(claim_provenance.PROVENANCE)
    assert provenance["perf-lr-single@v2"].status == "post hoc" and provenance["perf-runs@v2"].status == "post hoc"
    del provenance["perf-runs@v2"]
    with pytest.raises(ValueError, match=r"no provenance for \['perf-runs@v2'\]"):
        claims.check_registry(provenance=provenance)
    provenance["perf-runs@v2"] = claim_provenance.PROVENANCE["perf-runs@v2"]._replace(declared="")
    with pytest.raises(ValueError, match=r"no declaring commit or a status .* for \['perf-runs@v2'\]"):
        claims.check_registry(provenance=provenance)
    provenance["perf-runs@v3"] = provenance.pop("perf-runs@v2")
    with pytest.raises(ValueError, match=r"versions that do not exist \['perf-runs@v3'\]"):
        claims.check_registry(provenance=provenance)


def test_judge_uses_the_declared_criterion_and_names_bad_input():
    assert claims.judge("perf-runs", k=50, n=50).verdict == "reproduced"  # exact lower bound 93% > 90%
    assert claims.judge("perf-runs", k=49, n=50).verdict == "inconclusive"  # [89%, 100%] straddles 90%
    assert claims.judge("perf-runs", k=32, n=50).verdict == "not reproduced"
    assert claims.judge("perf-runs", version=1, value=0.9).verdict == "not reproduced"
    small = claims.judge("perf-runs", k=3, n=3)
    assert small.verdict == "not tested" and "minimum sample of 50" in small.qualification
    assert claims.judge("smg-ntk", value=0.97, qualification="a caveat") == claims.Judgement(
        "smg-ntk", 1, "reproduced with qualification", "97%", "", 0, "a caveat", "",
        claims.criterion("smg-ntk").text)
    with pytest.raises(ValueError, match="claim must be one of"):
        claims.judge("no-such-claim", value=1)
    with pytest.raises(ValueError, match="version must be one of"):
        claims.judge("perf-runs", version=7, value=1)
    with pytest.raises(ValueError, match="is not tested"):
        claims.criterion("smg-train-test")
    with pytest.raises(ValueError, match="conditions must name exactly"):
        claims.judge("mphate-input", conditions={"peak of the mean ARI curve >= 0.9": True})


def test_proportion_uses_the_exact_binomial_interval():
    for k, n in ((0, 10), (7, 10), (32, 50), (50, 50)):
        out = claim_tests.proportion(k, n, p=0.5)
        ci = binomtest(k, n).proportion_ci(0.95, method="exact")
        assert out.interval == f"[{ci.low:.0%}, {ci.high:.0%}]"
        expected = "reproduced" if ci.low > 0.5 else "not reproduced" if ci.high < 0.5 else "inconclusive"
        assert out.verdict == expected
    with pytest.raises(ValueError, match="0 <= k <= n"):
        claim_tests.proportion(5, 4, p=0.5)


def test_paired_difference_and_quantile_ratio_are_three_way():
    rng = np.random.default_rng(1)
    a = rng.normal(1.0, 0.1, 40)
    assert claim_tests.paired_difference(a, a - 0.5, claim_above=True, n_resamples=500).verdict == "reproduced"
    assert claim_tests.paired_difference(a, a + 0.5, claim_above=True, n_resamples=500).verdict == "not reproduced"
    noise = rng.normal(0, 1, 40)
    assert claim_tests.paired_difference(a + noise, a, claim_above=True, n_resamples=500,
                                         seed=0).verdict in ("inconclusive", "reproduced", "not reproduced")
    spread = np.exp(rng.normal(0, 2.0, 200))  # q95/q05 = exp(2 * 1.645 * 2) ~ 720
    assert claim_tests.quantile_ratio(spread, q_low=0.05, q_high=0.95, threshold=10, n_resamples=500).verdict \
        == "reproduced"
    tight = np.exp(rng.normal(0, 0.1, 200))  # ~ 1.4
    assert claim_tests.quantile_ratio(tight, q_low=0.05, q_high=0.95, threshold=10, n_resamples=500).verdict \
        == "not reproduced"


def test_correlation_separates_sign_from_size():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(100, 2))  # 100 pairs of networks
    strong = -0.9 * x + np.sqrt(1 - 0.81) * rng.normal(size=(100, 2))
    out = claim_tests.correlation({"single": (x, strong, -0.9)}, margin_z=0.3, n_resamples=500)
    assert out.verdict == "reproduced" and out.note == ""
    weak = -0.3 * x + np.sqrt(1 - 0.09) * rng.normal(size=(100, 2))
    out = claim_tests.correlation({"single": (x, weak, -0.9)}, margin_z=0.3, n_resamples=500)
    assert out.verdict == "reproduced" and out.note.startswith("sign only") and "differs from the paper" in out.note
    out = claim_tests.correlation({"single": (x, -weak, -0.9)}, margin_z=0.3, n_resamples=500)
    assert out.verdict == "not reproduced"


def test_a_verdict_that_moves_with_the_bootstrap_seed_is_borderline():
    """Find data whose interval sits on the threshold: fewer than 19 of the 20 seeds agree."""
    from collections import Counter

    rng = np.random.default_rng(3)
    for _ in range(300):
        a, b = rng.normal(0.37, 1.0, 30), np.zeros(30)
        verdicts = Counter(claim_tests.paired_difference(a, b, claim_above=True, n_resamples=2000, seed=s).verdict
                           for s in range(20))
        if max(verdicts.values()) < claims.STABLE_AT:
            break
    else:
        pytest.fail("no seed-dependent example found")
    j = claims.judge("entk-large", version=2, a=a, b=b)
    assert j.verdict == "borderline" and "resampling seeds" in j.qualification
    k = int(j.stability.split("/")[0])
    assert 10 <= k < claims.STABLE_AT
    stable = claims.judge("entk-large", version=2, a=b + 1.0 + rng.normal(0, 0.01, 30), b=b)
    assert (stable.verdict, stable.stability) == ("reproduced", "20/20")


def test_the_reported_verdict_is_the_one_most_seeds_give_not_seed_0s(monkeypatch):
    """19 seeds give "reproduced" and seed 0 alone "not reproduced": the verdict is "reproduced"
    (19/20), with the number and interval of seed 1, the first seed that gives it."""
    from lib.analyses.claim_tests import Outcome

    def seed_0_dissents(a, b, seed=0, **settings):
        if seed == 0:
            return Outcome("not reproduced", "seed 0", "[0, 1]", len(a))
        return Outcome("reproduced", f"seed {seed}", "[1, 2]", len(a))

    monkeypatch.setitem(claims.TESTS, "paired_difference", seed_0_dissents)
    j = claims.judge("entk-large", version=2, a=np.ones(30), b=np.zeros(30))
    assert (j.verdict, j.stability, j.ours, j.interval) == ("reproduced", "19/20", "seed 1", "[1, 2]")
    both = [claims.modal_outcome([Outcome(v, str(i), "", 3) for i, v in enumerate(order)]).ours
            for order in (("a", "b", "b"), ("a", "b", "a"), ("b", "a"))]
    assert both == ["1", "0", "0"]  # the commonest, its first seed; of equally common, the first seen


def test_evidence_from_a_seeded_permutation_test_is_judged_under_every_stability_seed():
    """p-values a sign-flip test draws under a seed (``seeded``): the criterion's test (not itself a
    resampling one) runs once per stability seed, the verdict is the commonest with its count, and
    one that moves with the permutation seed is borderline, as for a bootstrap test."""
    from lib.analyses.rival_comparison import sign_flip_p

    family = dict(labels=["a", "b"], n=40)
    calls = []

    def seeded(seed):
        calls.append(seed)
        return {"p": np.array([0.001, 0.02 if seed % 2 else 0.06]), "p_reverse": np.array([0.9, 0.9])}

    moving = claims.judge("rival-multitask-family", seeded=seeded, **family)
    assert calls == list(range(claims.STABILITY_SEEDS))
    assert moving.verdict == "borderline" and moving.stability == "10/20" and "resampling seeds" in moving.qualification
    settled = claims.judge("rival-multitask-family", seeded=lambda seed: {"p": np.array([0.001, 0.002 + 1e-4 * seed]),
                                                                           "p_reverse": np.array([0.9, 0.9])}, **family)
    assert (settled.verdict, settled.stability) == ("reproduced", "20/20")
    direct = claims.judge("rival-multitask-family", p=np.array([0.001, 0.002]), p_reverse=np.array([0.9, 0.9]), **family)
    assert (direct.verdict, direct.stability) == ("reproduced", "")  # fixed evidence: nothing to resample
    # the sign-flip p of 30 networks draws its patterns from the seed (above 16 it cannot enumerate them)
    d = np.random.default_rng(0).normal(0.3, 1.0, 30)
    assert len({sign_flip_p(d, n_flips=2000, seed=s)[0] for s in range(5)}) > 1
    assert len({sign_flip_p(d[:16], seed=s)[0] for s in range(5)}) == 1  # exact: the seed plays no part
    with pytest.raises(ValueError, match="seeded"):
        claims.judge("rival-multitask-family", seeded=lambda seed: {"n": 3}, **family)  # evidence given twice
    with pytest.raises(ValueError, match="seeded must be a function"):
        claims.judge("rival-multitask-family", seeded={"p": [0.1]}, **family)


def test_a_seeded_verdict_shows_the_verdict_of_its_first_draw_alone_where_that_differs():
    """Before a chapter passed ``seeded``, its claim was judged on the first draw (seed 0, the chapter's)
    alone: where that draw gives another verdict than every draw's, the judgement's ``one_draw`` holds
    it (the page shows both); where they agree, and for evidence given directly, it is empty."""
    family = dict(labels=["a", "b"], n=40)
    moving = claims.judge("rival-multitask-family", **family,  # seed 0 passes; 11 of the 20 seeds do not
                          seeded=lambda seed: {"p": np.array([0.001, 0.02 if seed in (0, 2, 4, 6, 8, 10, 12, 14, 16)
                                                               else 0.06]), "p_reverse": np.array([0.9, 0.9])})
    assert (moving.verdict, moving.stability, moving.one_draw) == ("borderline", "11/20", "reproduced")
    first_fails = claims.judge("rival-multitask-family", **family,  # seed 0 fails, every other seed passes
                               seeded=lambda seed: {"p": np.array([0.001, 0.06 if seed == 0 else 0.02]),
                                                    "p_reverse": np.array([0.9, 0.9])})
    assert (first_fails.verdict, first_fails.stability, first_fails.one_draw) == ("reproduced", "19/20",
                                                                                   "inconclusive")
    settled = claims.judge("rival-multitask-family", **family,
                           seeded=lambda seed: {"p": np.array([0.001, 0.002]), "p_reverse": np.array([0.9, 0.9])})
    assert (settled.verdict, settled.one_draw) == ("reproduced", "")
    direct = claims.judge("rival-multitask-family", p=np.array([0.001, 0.06]), p_reverse=np.array([0.9, 0.9]), **family)
    assert direct.one_draw == ""


def test_discriminating_and_testable():
    assert claim_tests.discriminating_proportion(90, 100, 20, 100).verdict == "reproduced"
    assert claim_tests.discriminating_proportion(90, 100, 95, 100).verdict == "not discriminating"
    assert claim_tests.discriminating_proportion(10, 100, 20, 100).verdict == "not reproduced"
    untestable = claims.judge("sharing-new-task", r=0.2, lo=0.1, hi=0.3, separates=True, resolution=20)
    assert untestable.verdict == "not tested" and "resolved to 20 iterations" in untestable.qualification
    assert claims.judge("sharing-new-task", r=-0.4, lo=-0.6, hi=-0.2, separates=True, resolution=1).verdict \
        == "reproduced"


def test_corrections_match_their_definitions():
    p = np.array([0.01, 0.04, 0.03, 0.20, 0.005])
    m = p.size
    order = np.argsort(p)
    holm = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):  # Holm: max over earlier ranks of (m - rank) p
        running = max(running, (m - rank) * p[i])
        holm[i] = min(running, 1.0)
    np.testing.assert_allclose(holm_adjusted(p), holm)
    bh = np.empty(m)
    ranked = p[order] * m / np.arange(1, m + 1)
    bh[order] = np.minimum.accumulate(ranked[::-1])[::-1]
    np.testing.assert_allclose(bh_adjusted(p), np.minimum(bh, 1))
    with pytest.raises(ValueError, match="p_values"):
        holm_adjusted([0.5, 1.5])
    from lib.analyses.multiple_testing import holm_adjusted_finite

    with_undefined = holm_adjusted_finite(np.insert(p, 2, np.nan))  # the family is the tests that could be run
    assert np.isnan(with_undefined[2])
    np.testing.assert_allclose(np.delete(with_undefined, 2), holm)
    assert np.isnan(holm_adjusted_finite([np.nan, np.nan])).all()


def _committed_check_after(monkeypatch, target, name, value):
    """claims --check's comparison after ``target.name`` is replaced by ``value``."""
    monkeypatch.setattr(target, name, value)
    claims.check_digests(committed())


def test_the_digest_check_fails_when_a_test_function_changes_its_threshold(monkeypatch):
    """Changing the code inside a test function (correlations_reach comparing with half the
    threshold) changes the digest of every version judged by it, though no setting changed."""
    source = inspect.getsource(claim_tests.correlations_reach).replace("(lo > threshold)", "(lo > threshold / 2)")
    assert "threshold / 2" in source
    namespace = dict(claim_tests.__dict__)
    exec(compile(source, claim_tests.__file__, "exec"), namespace)  # noqa: S102 - the mutated test, in its module's namespace
    mutated = namespace["correlations_reach"]
    mutated.__module__ = claim_tests.__name__
    monkeypatch.setattr(verdict_code.inspect, "getsource", lambda obj, real=inspect.getsource:
                        source if obj is mutated else real(obj))
    monkeypatch.setitem(claims.TESTS, "correlations_reach", mutated)
    users = sorted(f"{k}@v{c.version}" for k, claim in claims.CLAIMS.items() for c in claim.criteria
                   if c.test == "correlations_reach")
    assert users
    with pytest.raises(ValueError, match=re.escape(f"changed in place {users}")):
        claims.check_digests(committed())


def test_the_digest_check_fails_when_a_constant_the_test_uses_changes(monkeypatch):
    """OPERATORS (the comparison a 'compare' criterion applies) is a constant of the tests' module."""
    with pytest.raises(ValueError, match=r"changed in place \[.*@v"):
        _committed_check_after(monkeypatch, claim_tests, "OPERATORS",
                               {**claim_tests.OPERATORS, ">=": lambda a, b: a > b})


@pytest.mark.parametrize("name, value", [("STABILITY_SEEDS", 3), ("STABLE_AT", 2)])
def test_the_digest_check_fails_when_the_stability_settings_change(monkeypatch, name, value):
    with pytest.raises(ValueError, match=rf"changed in place \['judge@v{claims.JUDGE_VERSION}'\]"):
        _committed_check_after(monkeypatch, claims, name, value)


def test_the_digest_check_fails_when_a_claim_statement_changes():
    registry = dict(claims.CLAIMS)
    runs = registry["perf-runs"]
    edited = {**registry, "perf-runs": runs._replace(text=runs.text + " (edited)")}
    versions = [f"perf-runs@v{c.version}" for c in runs.criteria]
    with pytest.raises(ValueError, match=re.escape(f"changed in place {versions}")):
        claims.check_digests(committed(), edited)


def test_code_text_ignores_docstrings_and_comments_but_not_code():
    def f(x):
        """A docstring."""
        return x + 1  # a comment

    def g(x):
        return x + 1

    def h(x):
        return x + 2

    assert verdict_code.code_text(f).replace("name='f'", "") == verdict_code.code_text(g).replace("name='g'", "")
    assert verdict_code.code_text(g).replace("name='g'", "") != verdict_code.code_text(h).replace("name='h'", "")


def test_a_declared_control_that_passes_the_same_criterion_qualifies_the_verdict():
    """entk-large v3 declares the kernel-free control: when the control's paired contrast passes
    the criterion too, "reproduced" becomes "reproduced with qualification", naming the control;
    a control that fails leaves "reproduced"; a missing or unknown control is refused before any
    test runs. Without the rule (judge ignoring controls) the first assertion fails."""
    rng = np.random.default_rng(0)
    b = rng.normal(0.0, 0.05, 30)
    a = b + 0.3 + rng.normal(0, 0.05, 30)  # the eNTK: standard clearly above large
    name = claims.criterion("entk-large").controls[0]
    same = claims.judge("entk-large", a=a, b=b, controls={name: {"a": a + 0.01, "b": b}})
    assert same.verdict == "reproduced with qualification"
    assert name in same.qualification and "passes the same criterion" in same.qualification
    differs = claims.judge("entk-large", a=a, b=b, controls={name: {"a": b, "b": b + 0.3}})
    assert (differs.verdict, differs.qualification) == ("reproduced", "")
    assert claims.judge("entk-large", version=2, a=a, b=b).verdict == "reproduced"  # version 2 declares no control
    with pytest.raises(ValueError, match=r"controls must give evidence for exactly the declared controls of "
                                         r"'entk-large' version 3"):
        claims.judge("entk-large", a=a, b=b)
    with pytest.raises(ValueError, match=r"got \['other'\]"):
        claims.judge("entk-large", version=2, a=a, b=b, controls={"other": {"a": a, "b": b}})



def test_a_claim_whose_evidence_was_not_measured_is_not_tested_with_its_reason():
    j = claims.not_judged("swapped", "show_swapped_architecture is False")
    assert (j.verdict, j.qualification, j.version) == ("not tested", "show_swapped_architecture is False",
                                                        claims.criterion("swapped").version)
    with pytest.raises(ValueError, match="reason must say why"):
        claims.not_judged("swapped", "")
    with pytest.raises(ValueError, match="claim must be one of"):
        claims.not_judged("no-such-claim", "x")


def test_a_version_counts_unless_post_hoc_or_not_a_test_and_an_untested_claim_counts_as_not_tested():
    from lib.analyses.claim_provenance import counts

    untested = next(k for k, c in claims.CLAIMS.items() if c.untested)
    assert counts(untested, "")  # no version, no provenance: counted as "not tested"
    assert counts("horizon-kernel-window", 1) and not counts("horizon-kernel-window", 2)  # v2: post hoc
    assert not counts("horizon-kernel-adds", 1)  # post hoc, the claim's only version before the filter
    with pytest.raises(ValueError, match=r"no provenance for claim 'horizon-kernel-window' version 9"):
        counts("horizon-kernel-window", 9)
    with pytest.raises(ValueError, match=r"no provenance for claim 'no-such-claim' version 1"):
        counts("no-such-claim", 1)
    # through the verdicts page's entry: an untested claim is counted as not tested, not as post hoc only
    from lib.book import summary

    entry = summary.with_provenance({"claim": untested, "verdict": "not tested", "version": "", "earlier": []})
    assert (entry["counted_verdict"], entry["counted_version"]) == ("not tested", "")
