"""Chapter 08's figure data (lib.book.entk_panels) from small hand-made runs: each panel holds the
arrays of the index set, init and category it names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.book import entk_panels as panels
from lib.book import entk_report as report
from lib.core.tasks import TaskEnvironment
from tests.test_attribution import fake_run
from tests.test_entk_report import check_run


def test_run_times_and_reconstruction_panels():
    runs = {"ET": fake_run(n_snapshots=5), "LR": fake_run(n_snapshots=3)}
    assert panels.run_ends(runs) == {"ET": 40, "LR": 20}
    np.testing.assert_array_equal(panels.iterations_of(runs)["LR"], [0, 10, 20])
    found = panels.reconstruction_panels({"ET": check_run(1.0)})
    iterations, curves = found["ET (first 100 iterations)"]
    assert list(curves) == list(report.VARIANTS.values())
    expected = check_run(1.0)["reconstruction_error/euler"][..., 1]  # the test inputs
    np.testing.assert_array_equal(curves[report.VARIANTS["euler"]], expected)


def test_convergence_panels_name_each_schedule_s_learning_rate_times_steps():
    rates = np.array([[0.1, 0.05], [0.2, 0.1]])
    errors = np.arange(8.0).reshape(2, 2, 2)  # (inits, halvings, input sets)
    found = panels.convergence_panels({"ET": {"learning_rate": rates, "reconstruction_error": errors}}, 50)
    (title, curves), = found.items()
    assert title.startswith("ET: lr x t = ") and title.endswith("(large)")
    np.testing.assert_array_equal(curves["large, test inputs"][1], [5.0, 7.0])


def test_window_curves_average_the_outputs_of_the_chosen_index_set():
    run = fake_run()
    run["alignment_final"] = run["overlap_final"] = run["alignment_initial"]
    run["alignment_initial"] = run["alignment_initial"].copy()
    run["alignment_initial"][..., 1, :] = 0.0  # the test inputs' rows differ
    curves = panels.window_curves({"ET": run}, "authors")
    assert list(curves) == list(panels.WINDOW_CURVES)
    np.testing.assert_array_equal(curves["alignment\neNTK(t), eNTK(0)"]["ET"], 0.0)
    np.testing.assert_allclose(panels.window_curves({"ET": run}, "principled")["alignment\neNTK(t), eNTK(0)"]["ET"],
                               run["alignment_initial"][:, :, :, 0].mean(axis=-1))
    with pytest.raises(ValueError, match="index_set must be one of"):
        panels.window_curves({"ET": run}, "rows")


def test_crossing_panels_follow_the_measures_then_the_schedules():
    measures = list(panels.CROSSING_TITLES)
    times = {(name, label): np.full((5, 2, 2), k) for k, (name, label) in
             enumerate((n, m) for m in measures for n in ("ET", "LR"))}
    found = panels.crossing_panels(times, {"ET": None, "LR": None})
    first = panels.CROSSING_TITLES[measures[0]]
    assert list(found)[:2] == [f"ET: {first}", f"LR: {first}"]
    assert found[f"LR: {panels.CROSSING_TITLES[measures[1]]}"][0] == "LR"


def test_sharing_and_cancellation_panels_read_the_test_inputs():
    run = fake_run()
    run["sharing_abs"] = run["sharing_abs"].copy()
    run["sharing_abs"][..., 0, :] = 0.0  # the training inputs' rows
    np.testing.assert_allclose(panels.sharing_curves({"ET": run})["ET"][0, 0, 0], [0.2, 0.1, 0.3, 0.4])
    np.testing.assert_allclose(panels.sharing_fractions({"ET": run})["ET"], [0.1, 0.2, 0.3, 0.4])
    factors = panels.cancellation_panels({"ET": run})["ET"]
    np.testing.assert_array_equal(factors["by training pattern"], 2 * factors["by category"])
    np.testing.assert_array_equal(factors["by category"], run["cancellation"][..., 1])


def test_signed_attribution_panels_stack_intervals_per_init():
    rows = [{"schedule": "ET", "init": init, "training patterns": c, "_signed": k, "_signed_low": k - 1,
             "_signed_high": k + 1, "_abs": 0.1 * k, "_abs_low": 0.0, "_abs_high": 1.0, "_fraction": 0.25}
            for init in ("standard", "large") for k, c in enumerate(panels.ATTRIBUTION_CATEGORIES)]
    shared = pd.DataFrame(rows).set_index(["schedule", "init", "training patterns"])
    found = panels.signed_attribution_panels(shared, ["ET"])["ET"]
    assert found["signed"].shape == (2, len(panels.ATTRIBUTION_CATEGORIES), 3)
    np.testing.assert_array_equal(found["signed"][1, 2], [2, 1, 3])
    np.testing.assert_array_equal(found["fraction"], 0.25)
    assert len(panels.ATTRIBUTION_LABELS) == len(panels.ATTRIBUTION_CATEGORIES)


def test_task_similarity_panels_and_labels(monkeypatch):
    env = TaskEnvironment()
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(1, 2, 2, env.n_tasks, 5))  # (P, inits, index sets, tasks, units)
    features = rng.normal(size=(1, 2, env.n_tasks, 7))
    monkeypatch.setattr(panels.ka, "predictor_features", lambda run, predictor, index_set: features)
    found = panels.task_similarity_panels({"hidden_final": hidden}, "authors")
    assert list(found)[:3] == ["standard: final ePNTK", "standard: t=0 eNTK", "standard: trained hidden layer"]
    similarity = found["large: trained hidden layer"]
    assert similarity.shape == (env.n_tasks, env.n_tasks)
    np.testing.assert_allclose(np.diag(similarity), 1.0)
    centered = hidden[0, 1, 1] - hidden[0, 1, 1].mean(axis=0)
    unit = centered / np.linalg.norm(centered, axis=1, keepdims=True)
    np.testing.assert_allclose(similarity, unit @ unit.T, atol=1e-12)
    labels = panels.task_labels(env)
    assert len(labels) == env.n_tasks and labels[0] == f"0 ({env.task_in_pool(0)}->{env.task_out_pool(0)})"
