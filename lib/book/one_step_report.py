"""Chapter 01's verdict, texts, table and summary rows: the eNTK's prediction of one gradient step (paper Fig 1).

Book layer; the measurements come from :mod:`lib.analyses.one_step`, the verdict from
:func:`lib.analyses.claims.judge`. Checked in ``tests/test_one_step_report.py``.
"""

from __future__ import annotations

import pandas as pd

from ..analyses import claims
from ..analyses.one_step import ErrorScaling
from . import summary


def error_texts(scaling: ErrorScaling) -> dict[str, str]:
    """The page's texts of the error study (:func:`lib.analyses.one_step.error_scaling`), by glue name:
    the fitted orders at the training points and over the grid, and the relative error at the
    figure's step."""
    return {"one_step_slope": f"{scaling.slope_train:.2f}", "one_step_slope_grid": f"{scaling.slope_grid:.2f}",
            "one_step_rel_error": f"{scaling.relative_error:.1e}"}


def error_view(scaling: ErrorScaling) -> pd.DataFrame:
    """The reader's table of the error study: every number in scientific notation, 4 significant digits."""
    return scaling.table.map("{:.3e}".format)


def judge_one_step(slope: float) -> claims.Judgement:
    """Claim ``one-step`` on the fitted order (log-log slope) of the prediction's error in the learning
    rate at the training points: exact up to a second-order term."""
    return claims.judge("one-step", value=slope, qualification="exact up to a second-order term in the step")


def claim_rows(scaling: ErrorScaling) -> list[dict]:
    """The summary rows of chapter 01: the claim on the fitted order at the training points, and the
    size of the neglected second-order term at the figure's step (the largest error over the grid
    over the largest change; no claim)."""
    return [summary.claim_row("one-step eNTK prediction (Fig 1): error order in the learning rate at the training "
                              "points", "'perfectly matches' the state at t=1", judge_one_step(scaling.slope_train),
                              control="halved learning rates",
                              evidence=summary.evidence("fig-one-step-scaling", "error scaling")),
            summary.row("one-step eNTK prediction at the figure's step: largest error over the grid / largest change",
                        "-", f"{scaling.relative_error:.1e}", None,
                        "size of the neglected second-order term (no claim)")]
