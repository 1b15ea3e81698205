"""Chapter 04's verdicts and summary rows (lib.book.representation_report) on measurements built
by hand, so that each claim's outcome is known before it is judged."""

from __future__ import annotations

import numpy as np
import pytest

from lib.book import representation_report as rr
from lib.book.glued import glue_texts

P, T = 10, 5
CURVES = ("input vs feature", "input vs eNTK-derived", "output vs output_pool", "task vs input_pool",
          "task vs output_pool", "task vs eNTK-derived")


def ari(standard: list[float], large: float = 0.1) -> np.ndarray:
    """(P, 2, T) ARI curves: every network follows ``standard`` (T,) at standard init, ``large`` at large."""
    out = np.empty((P, 2, T))
    out[:, 0], out[:, 1] = standard, large
    return out


def measures(**changes) -> rr.RepresentationMeasures:
    """Measurements under which every claim of the paper holds, with ``changes``."""
    rising = [0.0, 0.95, 0.9, 0.95, 0.95]
    curves = {name: ari(rising) for name in CURVES}
    curves["input vs feature"] = curves["input vs eNTK-derived"] = ari([0.0, 0.95, 0.5, 0.3, 0.2])  # transient
    curves["output vs output_pool"] = ari(rising, large=0.95)
    eta = {f"entk_authors/{f}": {"_std": 0.8} for f in ("feature", "output pool")}
    base = dict(architecture="4x3", other="3x4", n_networks=P, ari=curves,
                distance_ratios={"same input pool": np.full((P, 2), [0.5, 0.95]),
                                 "same output pool": np.full((P, 2), [0.6, 0.97])},
                shares={"authors": {"epsilon": np.full((P, 2), 0.5), "output_error": np.full((P, 2), 0.5)}},
                agreement={("task", "control", "standard"): 2, ("input", "control", "standard"): 2,
                           ("task", "output_pool", "standard"): 1, ("task", "input_pool", "standard"): 9,
                           ("input", "feature", "standard"): 10},
                onsets={"4x3": {"task vs output_pool": 100.0, "task vs input_pool": 400.0},
                        "3x4": {"task vs output_pool": 150.0, "task vs input_pool": 500.0}},
                eta=eta, structured=lambda seed: (P, 0), swapped_shown=True)
    return rr.RepresentationMeasures(**{**base, **changes})


def entk_large(difference: float = 0.3) -> rr.EntkLarge:
    rng = np.random.default_rng(0)
    eta_pair = np.empty((P, 2, 2))
    eta_pair[:, 0] = 0.5 + difference + 0.01 * rng.normal(size=(P, 2))
    eta_pair[:, 1] = 0.5 + 0.01 * rng.normal(size=(P, 2))
    return rr.judge_entk_large(eta_pair, np.full((P, 2), 0.4))


def test_every_claim_holds_where_the_measurements_say_so():
    judged = rr.judge_claims(measures())
    assert {name: j.verdict for name, j in judged.items()} == dict.fromkeys(
        ["mphate-task", "mphate-input", "mphate-output", "mphate-order", "mphate-large", "mphate-large-output",
         "entk-standard", "entk-anticipates", "ari-task", "ari-input", "swapped"], "reproduced")


def test_each_claim_fails_with_its_own_measurement():
    m = measures()
    late_output = {**m.onsets, "4x3": {"task vs output_pool": 500.0, "task vs input_pool": 400.0}}
    never = {**m.onsets, "3x4": {"task vs output_pool": float("nan"), "task vs input_pool": 500.0}}
    flat = {**m.ari, "input vs feature": ari([0.0, 0.95, 0.95, 0.95, 0.95])}
    assert rr.judge_claims(m._replace(onsets=late_output))["mphate-order"].verdict == "not reproduced"
    assert rr.judge_claims(m._replace(onsets=late_output))["swapped"].verdict == "not reproduced"
    assert rr.judge_claims(m._replace(onsets=never))["swapped"].verdict == "not reproduced"
    assert rr.judge_claims(m._replace(onsets=never))["mphate-order"].verdict == "reproduced"
    assert rr.judge_claims(m._replace(ari=flat))["mphate-input"].verdict == "not reproduced"
    assert rr.judge_claims(m._replace(structured=lambda seed: (P - 1, 0)))["entk-standard"].verdict == "not reproduced"
    # a network structured beyond the null under some shuffle seeds only: the verdict is borderline
    flaky = rr.judge_claims(m._replace(structured=lambda seed: (P - seed % 2, 0)))["entk-standard"]
    assert (flaky.verdict, flaky.stability) == ("borderline", "10/20")
    targets = {"authors": {**m.shares["authors"], "epsilon": np.full((P, 2), 0.95)}}
    assert rr.judge_claims(m._replace(shares=targets))["entk-standard"].verdict == "reproduced with qualification"


def test_without_the_swapped_architecture_its_claim_is_not_tested_and_its_row_says_why():
    m = measures(swapped_shown=False, onsets={"4x3": measures().onsets["4x3"]})
    judged = rr.judge_claims(m)
    assert judged["swapped"].verdict == "not tested"
    rows = rr.claim_rows(m, entk_large())
    assert len(rows) == 12 and rows[-1]["verdict"] == "not tested"
    assert "3x4" in rr.claim_rows(measures(), entk_large())[-1]["quantity"]


def test_entk_large_is_judged_with_its_kernel_free_control_and_its_texts_name_the_draws():
    clear = entk_large(0.3)
    assert clear.current.verdict.startswith("reproduced") and clear.version_2.verdict.startswith("reproduced")
    assert entk_large(-0.3).current.verdict == "not reproduced"
    texts = rr.entk_large_texts(clear)
    assert texts["entk_large_k"] == f"{P} of {P}" and texts["entk_large_control_diff"] == "+0.000"
    assert texts["entk_large_verdict"].startswith(clear.current.verdict)
    row = next(r for r in rr.claim_rows(measures(), clear) if r["claim"] == "entk-large")
    assert "+0.000" in row["control"]
    with pytest.raises(ValueError, match="eta_pair must be"):
        rr.judge_entk_large(np.zeros((P, 2)), np.zeros((P, 2)))


def test_glue_texts_refuses_a_text_that_is_not_a_string_before_gluing_anything():
    with pytest.raises(TypeError, match="not strings: {'b': 'float'}"):
        glue_texts({"a": "1", "b": 2.0})


def test_onset_texts_say_never_for_a_curve_that_never_reaches_half_and_for_a_missing_architecture():
    onsets = {"4x3": {"task vs output_pool": 100.0, "task vs input_pool": float("nan")}}
    texts = rr.onset_texts(onsets, "4x3", "3x4")
    assert texts["onset_4x3_task_vs_output_pool"] == "100" and texts["onset_4x3_task_vs_input_pool"] == "never"
    assert (texts["onset_main_out"], texts["onset_main_task"]) == ("100", "never")
    assert (texts["onset_other_out"], texts["onset_other_task"], texts["arch_main"]) == ("never", "never", "4x3")


def test_ari_texts_give_each_curves_final_mean_its_peak_and_where_it_peaks():
    from lib.core.tasks import TaskEnvironment

    curves = {"task vs input_pool": ari([0.0, 0.95, 0.9, 0.95, 0.8])}
    curves["task vs input_pool"][0, 0, 1] = 0.45  # one network lower at iteration 10: the mean peak moves to 30
    texts = rr.ari_texts(TaskEnvironment(), curves, np.array([0, 10, 20, 30, 40]))
    assert texts["ari_final_std_task_vs_input_pool"] == "0.80" and texts["ari_final_large_task_vs_input_pool"] == "0.10"
    assert texts["ari_peak_std_task_vs_input_pool"] == "0.95" and texts["ari_peak_at_std_task_vs_input_pool"] == "30"
    from sklearn.metrics import adjusted_rand_score

    env, tasks = TaskEnvironment(), np.arange(TaskEnvironment().n_tasks)
    expected = adjusted_rand_score(env.task_in_pool(tasks), env.task_out_pool(tasks))  # crossed pools: below 0
    assert texts["ari_crossing"] == f"{expected:.2f}" and expected < 0


def test_the_page_texts_of_means_shares_and_eta_name_each_init():
    values = {"same input pool": np.array([[0.5, 0.9], [0.7, 1.1]])}
    assert rr.mean_texts("dist_", values) == {"dist_same_input_pool_std": "0.60", "dist_same_input_pool_large": "1.00"}
    shares = {"authors": {"epsilon": np.array([[0.99, 0.5], [0.97, 0.7]])}}
    texts = rr.share_texts(shares, np.array([[0.1, 3.0], [0.3, 5.0]]))
    assert texts["share_authors_epsilon_std"] == "0.980" and texts["share_authors_epsilon_std_min"] == "0.970"
    assert (texts["limit_error_std"], texts["limit_error_large"]) == ("0.20", "4.0")
    rows = [{"_name": name, "_factor": factor, "_std": std, "_large": 0.1, "_lo": lo}
            for name, factor, std, lo in (("entk_authors", "feature", 0.8, 0.5), ("entk_principled", "feature", 0.75, 0.4),
                                          ("entk_authors", "output pool", 0.6, -0.1),
                                          ("entk_principled", "output pool", 0.4, 0.1), ("epsilon", "feature", 0.9, 0.8))]
    texts = rr.eta_texts(rows)
    assert texts["eta_entk_authors_output_pool_std"] == "0.60" and texts["eta_epsilon_feature_large"] == "0.10"
    assert texts["eta_n_structured"] == "3 of 4" and texts["eta_variant_gap"] == "0.200"
