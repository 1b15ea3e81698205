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


# the rules of chapter 05's other claims (criteria perf-et-single v1, perf-train-test, perf-train-speed)
EARLY_PARTS = 10  # "the first 10%" of a phase: its first tenth, snapshots 1 .. max(2, T // 10) - 1
LARGE_HEAD_START = 0.8  # large init starts fine-tuning below this share of standard's test loss: the speed is qualified


def early_snapshots(n_snapshots: int) -> slice:
    """The snapshots of the first 1 / :data:`EARLY_PARTS` of a phase after its start (at least one)."""
    return slice(1, max(2, n_snapshots // EARLY_PARTS))


def large_better_early(losses: np.ndarray) -> bool:
    """Whether the mean over pairs of standard minus large init's loss (P, 2 inits, T) is positive at
    some snapshot of the first 1 / :data:`EARLY_PARTS` of the phase."""
    return bool(((losses[:, 0] - losses[:, 1]).mean(axis=0)[early_snapshots(losses.shape[-1])] > 0).any())


def head_start_note(start_ratio: float) -> str:
    """The qualification of "large init acquires multitasking faster" when large init starts
    fine-tuning below :data:`LARGE_HEAD_START` of standard's test loss (the median ratio over pairs)."""
    return (f"large init starts fine-tuning at {start_ratio:.2f}x standard's test loss (median over pairs)"
            if start_ratio < LARGE_HEAD_START else "")


def train_below_test(train_loss: dict, test_loss: dict) -> dict[tuple, bool]:
    """(schedule, phase, init index) -> whether the mean final training loss lies below the mean
    final test loss; ``train_loss``, ``test_loss``: schedule -> phase -> (P, 2 inits, T)."""
    return {(name, phase, i): bool(train_loss[name][phase][:, i, -1].mean() < test_loss[name][phase][:, i, -1].mean())
            for name in train_loss for phase in train_loss[name] for i in range(2)}


def train_speed_conditions(train_loss: dict, test_loss: dict) -> tuple[bool, bool]:
    """(ET single-task: large init's mean training loss is below standard's at some snapshot of the
    first 1 / :data:`EARLY_PARTS`, and its mean final test loss is not lower; LR fine-tuning: standard
    init's mean final training loss is lower, and its mean final test loss is not)."""
    et_train, et_test = train_loss["ET"]["single"], test_loss["ET"]["single"][:, :, -1]
    early = early_snapshots(et_train.shape[-1])
    et = bool((et_train[:, 1, early].mean(axis=0) < et_train[:, 0, early].mean(axis=0)).any()
              and et_test[:, 1].mean() >= et_test[:, 0].mean())
    lr_train, lr_test = train_loss["LR"]["finetune"][:, :, -1], test_loss["LR"]["finetune"][:, :, -1]
    lr = bool(lr_train[:, 0].mean() < lr_train[:, 1].mean() and lr_test[:, 0].mean() >= lr_test[:, 1].mean())
    return et, lr
