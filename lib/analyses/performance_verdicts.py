"""The verdicts of chapter 05's single-task claims on one block of ET pairs (paper Figs 10 and 17).

The three claims that are judged on every pair of a block, each network's test loss at two
moments of the single-task phase:

* ``perf-et-single``: pairs in which large init is lower at 10% of the phase (the snapshot
  nearest it) and standard init lower at the end;
* ``perf-runs``: pairs in which standard init ends lower;
* ``perf-scale``: the spread of standard init's final test loss (95th over 5th percentile).

They are judged, by the criteria in force, on the chapter's discovery block and on its
replication block (:mod:`lib.analyses.replication`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.stats import binomtest

from . import claims
from .replication import DECLARED, precision_note

SINGLE_TASK_CLAIMS = ("perf-et-single", "perf-runs", "perf-scale")


class SingleTaskCounts(NamedTuple):
    """What the claims count on one block: ``n`` pairs; ``overtaken``: standard ends lower;
    ``pattern``: large lower at ``early_iteration`` and standard lower at the end;
    ``final_standard`` (n,): standard init's final test loss."""

    n: int
    overtaken: int
    pattern: int
    early_iteration: int
    final_standard: np.ndarray


def single_task_counts(iterations: np.ndarray, loss_test: np.ndarray) -> SingleTaskCounts:
    """The counts of one block: ``iterations`` (T,) of the snapshots, ``loss_test`` (P, 2, T) the
    single-task test loss of each pair's standard (0) and large (1) init network."""
    loss_test = np.asarray(loss_test)
    if loss_test.ndim != 3 or loss_test.shape[1] != 2 or loss_test.shape[2] != len(iterations):
        raise ValueError(f"loss_test must have shape (pairs, 2, {len(iterations)} snapshots), got {loss_test.shape}")
    final = loss_test[:, :, -1]
    tenth = int(np.argmin(np.abs(iterations - iterations[-1] / 10)))  # the snapshot nearest 10% of the phase
    early = loss_test[:, :, tenth]
    standard_ends_lower = final[:, 0] < final[:, 1]
    return SingleTaskCounts(len(final), int(standard_ends_lower.sum()),
                            int(((early[:, 1] < early[:, 0]) & standard_ends_lower).sum()), int(iterations[tenth]),
                            final[:, 0])


def judge_single_task(counts: SingleTaskCounts) -> dict[str, claims.Judgement]:
    """claim -> its judgement under the criterion in force, for :data:`SINGLE_TASK_CLAIMS`."""
    return {"perf-et-single": claims.judge("perf-et-single", k=counts.pattern, n=counts.n),
            "perf-runs": claims.judge("perf-runs", k=counts.overtaken, n=counts.n),
            "perf-scale": claims.judge("perf-scale", values=counts.final_standard)}


def share_half_width(k: int, n: int) -> float:
    """Half the width of the exact (Clopper-Pearson) 95% interval of the share k/n, the interval
    the ``proportion`` criteria use."""
    ci = binomtest(int(k), int(n)).proportion_ci(0.95, method="exact")
    return float((ci.high - ci.low) / 2)


SHARE_FIELDS = {"perf-et-single": "pattern", "perf-runs": "overtaken"}  # claim -> the count its share is of


def precision_notes(blocks: list[SingleTaskCounts]) -> dict[str, str]:
    """claim -> :func:`lib.analyses.replication.precision_note` for the share claims of
    :data:`SHARE_FIELDS`: the widest 95% half-width of their share over the ``blocks``, at the
    smallest block's size, against the declared precision."""
    n = min(b.n for b in blocks)
    return {claim: precision_note(max(share_half_width(getattr(b, field), b.n) for b in blocks), n, DECLARED[claim])
            for claim, field in SHARE_FIELDS.items()}
