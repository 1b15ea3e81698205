"""Chapter 13's verdicts and summary rows: the rival theories' claims as the reader sees them.

Book layer. Every verdict comes from :func:`lib.analyses.claims.judge` (the Holm-over-cells claims
through :func:`lib.analyses.claims.judge_every_version` with the arguments of
:func:`lib.book.rival_report.holm_judge_arguments`); this module gathers the chapter's measurements
(:class:`RivalMeasures`), judges every claim (:func:`judge_claims`) and turns the judgements into the
rows of :func:`lib.book.summary.claim_row` (:func:`claim_rows`). Checked in
``tests/test_rival_verdicts.py``.

Scores are per network and predictor (see :mod:`lib.book.rival_report`); ``scales`` are init scales.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..analyses import claims
from ..analyses import rival_theories as rt
from . import rival_report, summary


class RivalMeasures(NamedTuple):
    """What chapter 13's claims read."""

    two_point_error: np.ndarray  # (gains, seeds) relative error of the two-point theory's final distance
    plateau_network: np.ndarray  # (gains, seeds) plateau length of the two-point network
    plateau_theory: np.ndarray  # (gains, seeds) the theory's plateau length
    gains: tuple  # the two-point network's init gains
    held_r: np.ndarray  # (networks,) task-pair r of the two-point theory on held-out multitask networks
    small: dict  # small init: rho_race, rho_size (networks,) Spearman rho with the route order; out_first (networks,)
    scores: dict  # scale -> outcome -> predictor -> (networks,) scores on the chapter's own networks
    scales: tuple  # the chapter's init scales
    continuum_scores: dict  # the same on the continuum's converged networks
    continuum_scales: tuple


def judge_claims(m: RivalMeasures) -> tuple[dict[str, claims.Judgement], dict[str, list[claims.Judgement]]]:
    """(claim -> judgement under the criterion in force, claim -> the judgements of its earlier versions)
    for every claim of chapter 13, in the order of the verdicts page. The Holm-over-cells claims are
    judged under every stability seed of their sign-flip draws where a cell draws them."""
    finite = np.isfinite(m.small["rho_race"]) & np.isfinite(m.small["rho_size"])
    error = np.asarray(m.two_point_error)
    judgements = {
        "rival-two-point-own-ground": claims.judge(
            "rival-two-point-own-ground", n=int(error.size),
            conditions=claims.named_conditions("rival-two-point-own-ground", rt.own_ground_conditions(
                error, m.plateau_network, m.plateau_theory)),
            ours=f"median error {np.median(error):.1%}; plateau at gain {m.gains[0]:g}: "
                 f"{np.median(m.plateau_network[0]):.3g} (network), {np.median(m.plateau_theory[0]):.3g} (theory); at "
                 f"gain {m.gains[-1]:g}: {np.median(m.plateau_network[-1]):.3g}, {np.median(m.plateau_theory[-1]):.3g} "
                 "(medians)"),
        "rival-two-point-task-pairs": claims.judge("rival-two-point-task-pairs", k=int(np.sum(m.held_r > 0.5)),
                                                   n=int(m.held_r.size)),
        "rival-race-order": claims.judge("rival-race-order", a=m.small["rho_race"][finite],
                                         b=np.zeros(int(finite.sum()))),
        "rival-race-beats-size": claims.judge("rival-race-beats-size", a=m.small["rho_race"][finite],
                                              b=m.small["rho_size"][finite]),
        "rival-race-structure": claims.judge("rival-race-structure", k=int(m.small["out_first"].sum()),
                                             n=int(m.small["out_first"].size)),
    }
    # the side-by-side claims: every version judged on the same evidence (the page shows each verdict)
    versioned = {key: claims.judge_every_version(key, **arguments) for key, arguments in rival_report.holm_judge_arguments(
        m.scores, m.scales, m.continuum_scores, m.continuum_scales, m.held_r, m.small).items()}
    judgements |= {key: current for key, (current, _) in versioned.items()}
    shape_error = m.scores[m.scales[0]]["c"]["race"]
    shape_error = shape_error[np.isfinite(shape_error)]  # a network whose loss never halves has no shape
    judgements["rival-race-loss-shape"] = claims.judge("rival-race-loss-shape", a=np.full(shape_error.size, 0.1),
                                                       b=shape_error)
    return judgements, {key: older for key, (_, older) in versioned.items()}


def continuum_text(judgements: dict, n_hidden: int, continuum_n_hidden: int, m: RivalMeasures) -> str:
    """The page's sentence on the two task-similarity claims, on the chapter's networks and on the
    continuum's, and the best predictor per scale on the continuum's networks."""
    side, continuum = judgements["rival-side-similarity"], judgements["rival-continuum-similarity"]
    return (f"On chapter 13's own networks ({n_hidden} hidden units, held-out seeds), the two-point theory against "
            f"the t=0 eNTK, the linearized network and the targets control is **{side.verdict}** ({side.ours}); on "
            f"the continuum's networks ({continuum_n_hidden} hidden units, rates fitted on held-out seeds), "
            f"**{continuum.verdict}** ({continuum.ours}). Best mean r per scale on the continuum's networks (any "
            "predictor, the t = 0 distance baseline included): "
            + rival_report.best_per_scale(m.continuum_scores, m.continuum_scales) + ".")


def claim_rows(judgements: dict, earlier: dict, continuum_replication: claims.Judgement | None = None,
               replication_block: str = "", precision: str = "") -> list[dict]:
    """The summary rows of chapter 13 (:func:`lib.book.summary.claim_row`), each claim with its
    earlier versions; rival-continuum-similarity with its judgement on the replication block
    (``continuum_replication``) that ``replication_block`` names, and the ``precision`` note."""
    E, j = summary.evidence, judgements
    saxe = "pathway counting (Saxe et al. Sec 4.2)"
    side = E("rv-side-by-side", "side-by-side comparison")
    return [
        summary.claim_row("final distance and plateau of the two-point network (held-out seeds)", "van Rossem & Saxe "
                          "Fig 3", j["rival-two-point-own-ground"], control="rates fitted on other seeds",
                          evidence=E("rv-two-point-validation", "two-point validation")),
        summary.claim_row("share of held-out multitask networks with task-pair r > 0.5", "",
                          j["rival-two-point-task-pairs"], control="rates fitted on other networks",
                          evidence=E("rv-task-pairs", "task-pair figure")),
        summary.claim_row("mean Spearman rho, race vs observed route order (small init)", saxe, j["rival-race-order"],
                          control="the route-size rival (next row)", evidence=E("rv-race", "race figure")),
        summary.claim_row("mean rho(race) - rho(route size)", "", j["rival-race-beats-size"],
                          control="route size alone", evidence=E("rv-race", "race figure")),
        summary.claim_row("share of networks grouping by output pool before input pool", saxe,
                          j["rival-race-structure"], control="the input-pool ARI", evidence=E("rv-race", "race figure")),
        summary.claim_row("two-point theory vs t=0 eNTK, linearized net, targets control (task similarity, every "
                          "scale; Holm over cells)", "", j["rival-side-similarity"],
                          control="the targets control (small-weight-limit eNTK)",
                          earlier=earlier["rival-side-similarity"], evidence=side),
        summary.claim_row("two-point theory vs t=0 eNTK, linearized net, targets control (task similarity, the "
                          "continuum's converged networks, every scale; Holm over cells)", "",
                          j["rival-continuum-similarity"], control="the targets control (small-weight-limit eNTK)",
                          earlier=earlier["rival-continuum-similarity"],
                          evidence=E("rv-continuum", "(a) on the continuum's networks"),
                          replication=continuum_replication, replication_block=replication_block,
                          precision=precision),
        summary.claim_row("race vs t=0 eNTK, linearized net, targets control, route size (route order, small init; "
                          "Holm over cells)", saxe, j["rival-side-order"], control="route size and the targets control",
                          earlier=earlier["rival-side-order"], evidence=side),
        summary.claim_row("t=0 eNTK vs the targets control (its own cells: task similarity and route order, every "
                          "scale; Holm over them)", "", j["rival-side-kernel-vs-control"],
                          control="the small-weight-limit kernel", earlier=earlier["rival-side-kernel-vs-control"],
                          evidence=side),
        summary.claim_row("race's loss shape: mean absolute error of the share removed at half the half-time (post "
                          "hoc)", "", j["rival-race-loss-shape"], control="the linearized net's shape (table)",
                          evidence=side),
        summary.claim_row("the four multitask claims together (Holm over the four)", "", j["rival-multitask-family"],
                          control="each claim's own verdict (rows above)", earlier=earlier["rival-multitask-family"],
                          evidence=E("rv-verdicts", "verdicts")),
    ]
