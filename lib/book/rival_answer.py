"""The rival-theories chapter's answer as reader text: a short answer box and the answer in detail.

Book layer; the chapter glues what these functions return. Every verdict comes from a
:class:`lib.analyses.claims.Judgement` (``judge()``), every number from the chapter's results;
these functions only put them into sentences.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..analyses.claims import Judgement

# the arrays of the race on the multitask network (small init) the answer quotes, per network
RACE_FIELDS = ("rho_race", "rho_size", "rho_route_only", "out_first", "t_in", "t_out")


def _check_race(race: Mapping[str, np.ndarray]) -> None:
    missing = [name for name in RACE_FIELDS if name not in race]
    if missing:
        raise ValueError(f"race must hold the per-network arrays {list(RACE_FIELDS)}, missing {missing}")


def own_ground_sentence(judgements: Mapping[str, Judgement], two_point_error: float, race_error: float) -> str:
    """How each theory does on its own network: the two-point theory's median relative error of the
    final distance (a fraction) with its verdict, and the race reduction's largest relative error."""
    return (f"On its own network the two-point theory predicts the final representational distance with a median "
            f"error of {two_point_error:.0%} ({judgements['rival-two-point-own-ground'].verdict}), and the race's "
            f"reduction matches its gated network within {race_error:.1%}.")


def answer_box(judgements: Mapping[str, Judgement], two_point_error: float, race_error: float,
               held_r: np.ndarray, race: Mapping[str, np.ndarray]) -> str:
    """The short answer at the top of the chapter (three sentences): each theory on its own ground,
    its predictions for the multitask network (the family's Holm verdict first), and how it does
    side by side with the t=0 eNTK and the controls. ``held_r``: (networks,) the two-point task-pair
    r per held-out network; ``race``: :data:`RACE_FIELDS`."""
    _check_race(race)
    held_r = np.asarray(held_r, np.float64)
    return (own_ground_sentence(judgements, two_point_error, race_error)
            + f" On the paper's multitask network their four predictions, corrected together, are "
            f"{judgements['rival-multitask-family'].verdict}: the two-point theory's task-pair prediction reaches "
            f"r > 0.5 in {int(np.sum(held_r > 0.5))} of {held_r.size} networks, and the race orders the routes with "
            f"mean rho {np.nanmean(race['rho_race']):+.2f} against {np.nanmean(race['rho_size']):+.2f} for route size "
            f"alone. Side by side with the t=0 eNTK, the network linearized at t=0 and the targets control, the "
            f"two-point theory's advantage on task similarity is {judgements['rival-side-similarity'].verdict} and the "
            f"race's on route order {judgements['rival-side-order'].verdict}.")


def answer_details(judgements: Mapping[str, Judgement], two_point_error: float, race_error: float,
                   held_r: np.ndarray, race: Mapping[str, np.ndarray],
                   continuum_replication: Judgement | None = None) -> str:
    """The chapter's answer in full, every claim's verdict with the numbers it rests on (arguments as
    :func:`answer_box`; ``continuum_replication``: rival-continuum-similarity on the converged
    continuum's replication block, quoted with whether it replicates)."""
    from .replication_report import blocks_text

    _check_race(race)
    continuum = judgements["rival-continuum-similarity"]
    on_continuum = (continuum.verdict if continuum_replication is None
                    else blocks_text(continuum, continuum_replication))
    held_r = np.asarray(held_r, np.float64)
    out_first = np.asarray(race["out_first"])
    return (own_ground_sentence(judgements, two_point_error, race_error)
            + f" On the multitask network, the two-point theory's task-pair prediction reaches r > 0.5 in "
            f"{int(np.sum(held_r > 0.5))} of {held_r.size} held-out networks "
            f"({judgements['rival-two-point-task-pairs'].verdict}); the race's route order has mean rho "
            f"{np.nanmean(race['rho_race']):+.2f} ({judgements['rival-race-order'].verdict}), against "
            f"{np.nanmean(race['rho_size']):+.2f} for route size alone ({judgements['rival-race-beats-size'].verdict} "
            f"that the race does better) and {np.nanmean(race['rho_route_only']):+.2f} for a race without sharing; "
            f"output-pool grouping came first in {int(out_first.sum())} of {out_first.size} networks "
            f"({judgements['rival-race-structure'].verdict}); the hidden layer's input-pool ARI reached 0.5 in "
            f"{int(np.isfinite(race['t_in']).sum())} and its output-pool ARI in "
            f"{int(np.isfinite(race['t_out']).sum())} of them. Corrected together (Holm over the four), these four "
            f"claims are {judgements['rival-multitask-family'].verdict}. Side by side with the t=0 eNTK, the network "
            f"linearized at t=0 and the targets control on the same networks, the two-point theory's advantage on "
            f"task similarity is {judgements['rival-side-similarity'].verdict} (on the continuum's converged "
            f"networks: {on_continuum}), the race's on route order "
            f"{judgements['rival-side-order'].verdict}, and the t=0 eNTK's over the targets control "
            f"{judgements['rival-side-kernel-vs-control'].verdict}; the race's loss shape (post hoc) is "
            f"{judgements['rival-race-loss-shape'].verdict}.")
