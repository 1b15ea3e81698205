"""What the continuum chapter reads off its networks: one setting's networks, the transition facts
per setting, convergence shares, a cell of the within-scale table and hypothesis (i)'s test.

Analyses layer. ``networks`` is a per-network table (column -> (S,) array) as
:func:`lib.analyses.continuum_sweeps.continuum_sweep` and :func:`~lib.analyses.continuum_sweeps.converged_sweep`
return it (columns ``g``, ``scaling``, ``lr_kind``, the outcomes, ``converged``, ``settle_*``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from . import within_scale
from .continuum_sweeps import medians_by_scale, transition_midpoint

# the linearization gap counts only where it stayed finite in at least this share of every scale's networks
GAP_DEFINED_SHARE = 0.9
SETTLED_CHANGE = 0.01  # a test loss "settled": relative change below this over the last tenth of a phase


def networks_of(networks: dict[str, np.ndarray], scaling: str, lr_kind: str) -> dict[str, np.ndarray]:
    """The rows of one setting: networks scaled as ``scaling`` and trained at the ``lr_kind`` rate."""
    rows = (networks["scaling"] == scaling) & (networks["lr_kind"] == lr_kind)
    if not rows.any():
        raise ValueError(f"no network has scaling={scaling!r} and lr_kind={lr_kind!r}; scalings "
                         f"{sorted(set(networks['scaling']))}, lr kinds {sorted(set(networks['lr_kind']))}")
    return {column: values[rows] for column, values in networks.items()}


def transition_facts(networks: dict[str, np.ndarray]) -> dict:
    """Per-scale medians of one setting and where the transition lies.

    Returns ``gs`` (scales, increasing), the medians ``gap`` (linearization gap), ``dist`` (NTK
    distance) and ``loss`` (single-task test loss) per scale, ``gap_finite`` (share of finite gaps
    per scale), ``gap_defined`` (every scale at least :data:`GAP_DEFINED_SHARE` finite), the
    midpoints ``mid_gap`` (nan unless ``gap_defined``) and ``mid_dist`` (in g,
    :func:`~lib.analyses.continuum_sweeps.transition_midpoint`), ``best_g`` (lowest median test loss)
    and ``converged`` (share of networks whose single-task training converged)."""
    gs, gap = medians_by_scale(networks, "linearization_gap")
    _, dist = medians_by_scale(networks, "kernel_distance")
    _, loss = medians_by_scale(networks, "loss_single_test")
    finite = np.array([np.mean(np.isfinite(networks["linearization_gap"][networks["g"] == g])) for g in gs])
    defined = bool(np.all(finite >= GAP_DEFINED_SHARE))
    return {"gs": gs, "gap": gap, "dist": dist, "loss": loss, "gap_finite": finite, "gap_defined": defined,
            "mid_gap": transition_midpoint(gs, gap) if defined else float("nan"),
            "mid_dist": transition_midpoint(gs, dist), "best_g": gs[np.nanargmin(loss)],
            "converged": float(np.mean(networks["converged"]))}


def settled(networks: dict[str, np.ndarray], phase: str) -> np.ndarray:
    """(S,) bool: the networks whose test loss changed by less than :data:`SETTLED_CHANGE` over the
    last tenth of ``phase`` ("single" or "finetune"); a diverged (nan) change has not settled."""
    if phase not in ("single", "finetune"):
        raise ValueError(f"phase must be one of ['finetune', 'single'], got {phase!r}")
    return networks[f"settle_{phase}"] < SETTLED_CHANGE


def settled_share(networks: dict[str, np.ndarray], phase: str, g: float | None = None) -> float:
    """Share of networks (of scale ``g``, or all) that :func:`settled` over the last tenth of ``phase``."""
    done = settled(networks, phase)
    return float(np.mean(done if g is None else done[networks["g"] == g]))


def analysed(networks: dict[str, np.ndarray], converged_only: bool, finetune: bool = False) -> np.ndarray:
    """(S,) bool: the networks chapters 10, 12 and 13 analyse, the one convergence filter of the
    converged continuum. Those whose single-task training converged (final training loss at most a
    tenth of its initial value, the ``converged`` column) and, with ``finetune`` (for a family of
    cells that includes a fine-tuning outcome), whose fine-tuning also :func:`settled`; every
    network where ``converged_only`` is off (the quick profile, too short to converge)."""
    if not isinstance(converged_only, (bool, np.bool_)):
        raise ValueError(f"converged_only must be True or False, got {converged_only!r}")
    if not isinstance(finetune, (bool, np.bool_)):
        raise ValueError(f"finetune must be True or False, got {finetune!r}")
    if not converged_only:
        return np.ones(np.shape(networks["g"]), bool)
    converged = networks["converged"] == 1
    return converged & settled(networks, "finetune") if finetune else converged


FINETUNE_OUTCOMES = ("finetune_speed", "loss_finetune_test")  # the outcomes of the fine-tuning phase


def analysed_networks(networks: dict[str, np.ndarray], converged_only: bool) -> dict[str, np.ndarray]:
    """The converged continuum as a chapter analyses it cell by cell: the rows of :func:`analysed`
    (single-task training converged), with the :data:`FINETUNE_OUTCOMES` of a network whose
    fine-tuning had not :func:`settled` set to nan, so that a cell with a fine-tuning outcome uses the
    settled networks only (the within-scale cells leave nan out). Every network, unchanged, where
    ``converged_only`` is off."""
    use = analysed(networks, converged_only)
    out = {column: values[use] for column, values in networks.items()}
    if converged_only:
        unsettled_rows = ~settled(out, "finetune")
        for name in FINETUNE_OUTCOMES:
            out[name] = np.where(unsettled_rows, np.nan, out[name])
    return out


def unsettled(networks: dict[str, np.ndarray], phase: str, use: np.ndarray | None = None) -> tuple[int, int]:
    """(networks among ``use`` (default: all) that have not :func:`settled` over the last tenth of
    ``phase``, networks among ``use``)."""
    use = np.ones(np.shape(networks["g"]), bool) if use is None else np.asarray(use)
    if use.dtype != bool or use.shape != np.shape(networks["g"]):
        raise ValueError(f"use must be a boolean mask of shape {np.shape(networks['g'])}, got {use.dtype} {use.shape}")
    return int(np.sum(~settled(networks, phase)[use])), int(np.sum(use))


def cell(rows: list[dict], predictor: str, outcome: str) -> dict:
    """The row of ``predictor`` x ``outcome`` in one setting's within-scale cells
    (:func:`lib.analyses.within_scale.cell_table`)."""
    for row in rows:
        if row["predictor"] == predictor and row["outcome"] == outcome:
            return row
    raise ValueError(f"no cell for predictor={predictor!r} and outcome={outcome!r} among {len(rows)} rows")


def route_hypothesis(networks: dict[str, np.ndarray], n_resamples: int, n_permutations: int, seed: int = 0) -> dict:
    """Hypothesis (i) in one setting: the within-scale test of r(trained sharing, iterations to learn
    the held-out route) (:func:`lib.analyses.within_scale.within_scale_test`, resampled under
    ``seed``), with ``r_across``: the plain r over every network where both are finite."""
    sharing, iterations = networks["sharing_final"], networks["route_iterations"]
    keep = np.isfinite(sharing) & np.isfinite(iterations)
    return within_scale.within_scale_test(sharing, iterations, networks["g"], n_resamples, n_permutations,
                                          seed=seed) | {"r_across": float(np.corrcoef(sharing[keep], iterations[keep])[0, 1])}


def route_hypothesis_evidence(networks: dict[str, np.ndarray], n_resamples: int, n_permutations: int,
                              separated: tuple[float, float] = (1.0, 10.0)) -> Callable[[int], dict]:
    """seed -> the evidence of claim ``sharing-new-task`` drawn under that resampling seed: ``r``, ``lo``,
    ``hi`` of :func:`route_hypothesis` and ``separates`` (the bootstrap interval of the mean trained
    sharing at ``separated[0]`` minus ``separated[1]`` excludes 0,
    :func:`lib.analyses.within_scale.group_difference`); each seed computed once, seed 0 the page's.
    The claim is judged under every stability seed of both bootstraps."""
    def at(seed: int) -> dict:
        test = route_hypothesis(networks, n_resamples, n_permutations, seed)
        separation = within_scale.group_difference(networks["sharing_final"], networks["g"], *separated, n_resamples,
                                                   seed=seed)
        return {"r": test["r"], "lo": test["lo"], "hi": test["hi"], "separates": separation["separates"]}

    return functools.lru_cache(maxsize=None)(at)
