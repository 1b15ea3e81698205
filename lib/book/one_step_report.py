"""Chapter 01's verdict and summary rows: the eNTK's prediction of one gradient step (paper Fig 1).

Book layer; the verdict comes from :func:`lib.analyses.claims.judge`. Checked in
``tests/test_one_step_report.py``.
"""

from __future__ import annotations

from ..analyses import claims
from . import summary


def judge_one_step(slope: float) -> claims.Judgement:
    """Claim ``one-step`` on the fitted order (log-log slope) of the prediction's error in the learning
    rate at the training points: exact up to a second-order term."""
    return claims.judge("one-step", value=slope, qualification="exact up to a second-order term in the step")


def claim_rows(slope: float, relative_error: float) -> list[dict]:
    """The summary rows of chapter 01: the claim, and the size of the neglected second-order term at
    the figure's step (``relative_error``: the largest error over the grid over the largest change; no
    claim)."""
    return [summary.claim_row("one-step eNTK prediction (Fig 1): error order in the learning rate at the training "
                              "points", "'perfectly matches' the state at t=1", judge_one_step(slope),
                              control="halved learning rates",
                              evidence=summary.evidence("fig-one-step-scaling", "error scaling")),
            summary.row("one-step eNTK prediction at the figure's step: largest error over the grid / largest change",
                        "-", f"{relative_error:.1e}", None, "size of the neglected second-order term (no claim)")]
