"""The expected sign of every t=0 predictor x outcome correlation of the continuum chapter.

Declared (commit 390230a) after the within-scale correlations of 81 of the 90 cells had been
shown for the short continuum (commit 44d9a72): post hoc for its networks; declared before the
converged continuum's correlations existed (first computed at 82cdd12), on other networks.

+1: a larger predictor should go with a larger outcome; -1: with a smaller one; 0: no
directional expectation. Every cell is tested two-sided (so an effect of the unexpected sign
can still be found); the sign declared here says which sign the rationale predicts, and a
winner whose sign differs is reported as unexpected. Outcome directions: losses and iterations
are worse when larger (``loss_finetune_test``: the multitask test loss after fine-tuning);
``finetune_speed`` (share of the multitask loss removed early) and
``sharing_final`` are larger when faster / more shared; ``weight_change``,
``kernel_distance`` and ``linearization_gap`` are larger the richer (less lazy) the learning.
"""

from __future__ import annotations

PREDICTOR_NAMES = ("silhouette_entk_principled", "silhouette_entk_authors", "silhouette_epsilon", "silhouette_ntk",
                   "kta_ntk_single", "kta_ntk_multi", "kta_entk_single", "kta_entk_multi", "sharing_initial")
OUTCOME_NAMES = ("loss_single_test", "loss_multi_before", "finetune_speed", "loss_finetune_test", "route_zero_shot",
                 "route_iterations", "sharing_final", "weight_change", "kernel_distance", "linearization_gap")

_SILHOUETTE = ("the paper's predictor: a clustered t=0 eNTK anticipates a shared, task-structured representation "
               "(Sec 4.2.2), which the paper ties to better single-task generalization (r = -0.881 with the "
               "single-task loss), to faster learning of a new single task, and to slower acquisition of "
               "multitasking (r = +0.973 with the fine-tuning loss; Sec 5, hypotheses i and ii)")
_CONTROL = ("a control (what the eNTK adds to it): no direction of its own; tested two-sided so that the control "
            "shows up whichever sign it has")
RATIONALE: dict[str, str] = {
    "silhouette_entk_principled": _SILHOUETTE,
    "silhouette_entk_authors": _SILHOUETTE,
    "silhouette_epsilon": _CONTROL,
    "silhouette_ntk": _CONTROL,
    "kta_ntk_single": "near the lazy regime a network follows its linearization, whose kernel regression learns the "
                      "single-task target faster and generalizes better the better its kernel aligns with that "
                      "target (Cortes et al. 2012); an aligned kernel also needs to move less (kernels move "
                      "towards the target in training, Baratin et al. 2021)",
    "kta_ntk_multi": "as the single-task alignment, for the multitask targets that fine-tuning learns: a kernel "
                     "aligned with them should let fine-tuning remove the multitask loss faster and end lower",
    "kta_entk_single": "the cosine between the eNTK's first step on unseen test patterns and the change they need: "
                       "a first step that points at the single-task targets should end at a lower test loss",
    "kta_entk_multi": "the same cosine for the multitask targets: a first step that points at them should make "
                      "fine-tuning faster and its final multitask loss lower",
    "sharing_initial": "hypothesis (i) of the paper (Sec 5): shared representations generalize to a new single "
                       "task (lower zero-shot loss, fewer iterations), generalize better on single tasks, persist "
                       "through training, and compromise concurrent multitasking (higher multitask loss, slower "
                       "fine-tuning)",
}

_SHARING_LIKE = {"loss_single_test": -1, "loss_multi_before": +1, "finetune_speed": -1, "loss_finetune_test": +1,
                 "route_zero_shot": -1,
                 "route_iterations": -1, "sharing_final": +1, "weight_change": 0, "kernel_distance": 0,
                 "linearization_gap": 0}
_NONE = {o: 0 for o in OUTCOME_NAMES}

EXPECTED_SIGNS: dict[str, dict[str, int]] = {
    "silhouette_entk_principled": dict(_SHARING_LIKE),
    "silhouette_entk_authors": dict(_SHARING_LIKE),
    "silhouette_epsilon": dict(_NONE),
    "silhouette_ntk": dict(_NONE),
    "kta_ntk_single": {**_NONE, "loss_single_test": -1, "kernel_distance": -1},
    "kta_ntk_multi": {**_NONE, "finetune_speed": +1, "loss_finetune_test": -1},
    "kta_entk_single": {**_NONE, "loss_single_test": -1},
    "kta_entk_multi": {**_NONE, "finetune_speed": +1, "loss_finetune_test": -1},
    "sharing_initial": dict(_SHARING_LIKE),
}


def expected_signs() -> dict[str, dict[str, int]]:
    """A copy of :data:`EXPECTED_SIGNS`: predictor -> outcome -> +1, -1 or 0 (no expectation),
    for the 9 x 10 cells of :data:`PREDICTOR_NAMES` x :data:`OUTCOME_NAMES`."""
    return {p: dict(row) for p, row in EXPECTED_SIGNS.items()}


def expected_sign(predictor: str, outcome: str) -> int:
    """The declared sign of one cell; ValueError naming the parameter for an unknown name."""
    if predictor not in EXPECTED_SIGNS:
        raise ValueError(f"predictor must be one of {list(PREDICTOR_NAMES)}, got {predictor!r}")
    if outcome not in EXPECTED_SIGNS[predictor]:
        raise ValueError(f"outcome must be one of {list(OUTCOME_NAMES)}, got {outcome!r}")
    return EXPECTED_SIGNS[predictor][outcome]
