"""The rules of chapter 04's claims about learned representations: the conditions its registry
criteria name (:mod:`lib.analyses.claim_registry_paper`, tests ``all_hold``) and the qualifications
its verdicts carry, computed from the chapter's measurements. The chapter passes what these return
to :func:`lib.analyses.claims.judge`; the thresholds are the ones the criteria state
(``tests/test_representation_claims.py`` checks that they agree).

The measurements: adjusted Rand index curves over training, mean over pairs, (T,) per init
(:func:`lib.analyses.representations.cached_ari_curves`), the p-values of each network's eNTK
structure against a shuffled-label null (:func:`lib.analyses.structure_report.shuffle_null_rows`),
the first iterations at which the mean ARI reaches 0.5 (:func:`lib.analyses.structure_report.onsets`)
and the shares of the eNTK's leading vectors explained by kernel-free controls
(:func:`lib.analyses.controls.shares_explained`).
"""

from __future__ import annotations

import numpy as np

MATCHED_ARI = 0.9  # a partition matched: mean ARI at least this
DECAY = 0.3  # a transient match: the end below the peak by more than this
NULL_ALPHA = 0.05  # a network's eNTK structured beyond the shuffled-label null: p below this
TARGETS_SHARE = 0.9  # the loss sensitivities (the targets) explain more than this share: the structure is the targets'
SAME_AS_CONTROL = 0.8  # a kernel-free control gives the eNTK's partition in at least this share of networks


def rises_then_decays(mean_curve) -> tuple[bool, bool]:
    """(the mean ARI curve (T,) peaks at :data:`MATCHED_ARI` or above, it ends more than
    :data:`DECAY` below its peak): an early match that decoheres."""
    curve = np.asarray(mean_curve, float)
    peak, end = float(np.max(curve)), float(curve[-1])
    return bool(peak >= MATCHED_ARI), bool(end < peak - DECAY)


def matched_at_some_point(*mean_curves) -> bool:
    """Every mean ARI curve (T,) reaches :data:`MATCHED_ARI` at some point of training."""
    return all(float(np.max(np.asarray(c, float))) >= MATCHED_ARI for c in mean_curves)


def structured_networks(p_input, p_task) -> tuple[int, int]:
    """(standard-init networks structured beyond the shuffled-label null by both sorts, large-init
    networks structured by either sort), from the p-values (P, 2 inits) of the η² of the eNTK's
    loadings by input and by task against the null (p < :data:`NULL_ALPHA`). Both directions
    conservative: a standard-init network needs both sorts, a large-init one is called
    structured by either."""
    below_input, below_task = np.asarray(p_input) < NULL_ALPHA, np.asarray(p_task) < NULL_ALPHA
    return int((below_input[:, 0] & below_task[:, 0]).sum()), int((below_input[:, 1] | below_task[:, 1]).sum())


def output_pools_first(onsets: dict) -> bool:
    """The tasks' mean ARI against the output pools reaches 0.5 before that against the input pools
    (``onsets``: curve name -> first iteration, NaN: never); False when either never reaches it."""
    return bool(onsets["task vs output_pool"] < onsets["task vs input_pool"])


def targets_qualification(epsilon_share: float) -> str:
    """The qualification of the standard-init eNTK structure when the loss sensitivities ε (the
    targets) explain more than :data:`TARGETS_SHARE` of its leading vectors, else ""."""
    return "the structure is the targets'" if epsilon_share > TARGETS_SHARE else ""


def anticipation_notes(final_task_ari: float, same_as_control_share: float) -> list[str]:
    """Qualifications of "the t=0 eNTK anticipates the learned structure": the task partition is
    matched only early (the mean final ARI below :data:`MATCHED_ARI`), and a kernel-free control
    gives the same partitions (in at least :data:`SAME_AS_CONTROL` of the networks)."""
    notes = []
    if final_task_ari < MATCHED_ARI:
        notes.append("the task partition matches only the early hidden layer")
    if same_as_control_share >= SAME_AS_CONTROL:
        notes.append("a kernel-free control gives the same partitions")
    return notes


def derived_input_qualification(same_as_control: int, n_networks: int) -> str:
    """The qualification of the eNTK-derived input partition when the kernel-free control derives
    the same one in at least :data:`SAME_AS_CONTROL` of ``n_networks``, else ""."""
    return ("the derived partition is the targets' (feature position)"
            if same_as_control >= SAME_AS_CONTROL * n_networks else "")
