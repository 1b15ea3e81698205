"""Chapter 08's tables (lib.book.entk_report) on small hand-made runs whose answers are known."""

import numpy as np
import pytest

from lib.book import entk_report as report

NAN = np.nan


def check_run(scale: float) -> dict:
    """A validation run: 3 snapshots, 2 inits, 2 input sets; error 0/0 (NaN) at t=0."""
    base = np.array([[[NAN, NAN], [0.1, 0.2], [0.05, 0.3]], [[NAN, NAN], [0.4, 0.1], [0.2, 0.1]]])  # (2, S, 2)
    run = {f"reconstruction_error/{v}": base * scale * (k + 1) for k, v in enumerate(report.VARIANTS)}
    return run | {"iterations": np.array([0, 50, 100]), "path_difference/step_quadrature": np.array([0.01, 0.02]),
                  "sharing_abs_difference": np.array([0.001, 0.002]), "sharing_signed_difference": np.array([0.0, 0.1]),
                  "alignment_difference": np.array([0.3, 0.4]), "path_difference/euler": np.array([0.5, 0.6])}


def bulk_run() -> dict:
    errors = np.zeros((3, 2, 3, 2))  # (pairs, inits, S, sets)
    errors[1, 0, 2, 1] = 0.7
    errors[:, 1, -1, 1] = [0.1, 0.2, 0.3]
    return {"reconstruction_error": errors}


def test_reconstruction_table_takes_the_largest_errors_and_the_bulk_runs_mean_at_the_end():
    table = report.reconstruction_table({"ET": check_run(1.0)}, {"ET": bulk_run()}, "step")
    assert len(table) == 2 * len(report.VARIANTS) + 2
    row = table[(table.ePNTK == report.VARIANTS["euler"]) & (table.init == "large")].iloc[0]
    assert row["max error, training inputs"] == 0.4 and row["max error, test inputs"] == 0.1
    bulk = table[table.ePNTK == report.bulk_label("step")].set_index("init")
    assert bulk.loc["standard", "max error, test inputs"] == 0.7
    assert bulk.loc["large", "error at the end, test inputs"] == pytest.approx(0.2)
    assert report.largest_reconstruction_error(table, "step") == pytest.approx(0.8)  # 0.4 x 2
    assert report.largest_reconstruction_error(table, "bulk") == 0.7


def test_first_order_errors_skip_the_undefined_start_and_find_the_worst_case():
    errors = report.first_order_errors({"ET": check_run(1.0), "LR": check_run(2.0)})
    assert errors.largest == pytest.approx(0.8) and errors.worst == ("LR", "large")
    assert errors.where == 50 and errors.end == pytest.approx(0.4)
    assert errors.each_text() == "ET standard 30%; ET large 40%; LR standard 60%; LR large 80%"


def test_convergence_table_measures_the_order_of_each_halving():
    rates = np.array([0.1, 0.05, 0.025])
    first, second = 3.0 * rates, 5.0 * rates**2  # first order on the training inputs, second on the test inputs
    convergence = {"ET": {"learning_rate": np.stack([rates, rates]),
                          "reconstruction_error": np.stack([np.stack([first, second], axis=-1)] * 2)}}
    table, slopes = report.convergence_table(convergence)
    assert slopes[("ET", "standard", "training")] == pytest.approx((1.0, 1.0))
    assert slopes[("ET", "large", "test")] == pytest.approx((2.0, 2.0))
    assert list(table.columns) == ["η₀", "error at η₀", "at η₀/2", "at η₀/4", "order (last halving)"]
    assert report.is_first_order([0.95, 1.1]) and not report.is_first_order([0.95, 1.2])
    assert not report.is_first_order([0.8]) and not report.is_first_order([])


def test_quadrature_table_has_one_row_per_schedule_and_init():
    table = report.quadrature_table({"ET": check_run(1.0), "LR": check_run(1.0)})
    assert len(table) == 4 and table.iloc[:, 2].max() == 0.02 and table.iloc[:, -1].max() == 0.6


def test_order_and_reconstruction_texts_name_every_run():
    slopes = {("ET", "standard", "training"): (0.98, 1.01), ("ET", "large", "test"): (1.1, 0.95)}
    texts = report.order_texts(slopes)
    assert (texts["kd_order_min"], texts["kd_order_max"]) == ("0.95", "1.01")
    assert texts["kd_order_ET_large_test"] == "1.10"
    import pandas as pd

    rows = [{"schedule": "ET", "init": init, "ePNTK": label, "max error, training inputs": 0.01 * k,
             "max error, test inputs": 0.02 * k}
            for init in ("standard", "large") for k, label in enumerate([*report.VARIANTS.values(), "bulk run"], 1)]
    first = report.FirstOrderErrors(0.05, ("ET", "large"), {("ET", "standard"): 0.04, ("ET", "large"): 0.05}, 120, 0.03)
    texts = report.reconstruction_texts(pd.DataFrame(rows), first, {"ET": 200})
    assert texts["kd_recon_euler_ET_standard"] == "2.00%" and texts["kd_recon_bulk_worst"] == "8.00%"
    assert texts["ch08_first_order_worst"] == "ET, large init" and texts["kd_check_length"] == "200 (ET)"


def test_the_first_order_claim_and_its_findings():
    small = report.FirstOrderErrors(0.05, ("ET", "large"), {}, 120, 0.03)
    judged = report.judge_first_order(small)
    assert judged.verdict == "reproduced" and report.judge_first_order(small._replace(largest=0.2)).verdict == "not reproduced"
    texts = report.first_order_findings(judged, np.array([0.98, 1.03]), 3e-7, 0.012)
    assert texts["kd_find_order_reading"].startswith("the first order") and texts["kd_find_bulk_worst"] == "1.2%"
    assert report.first_order_findings(judged, np.array([0.5, 1.0]), 3e-7, 0.012)["kd_find_order_reading"].startswith("not yet")
