"""The prediction-horizon chapter's sentences about its accuracy curves and rival findings.

Book layer. ``curves``: outcome -> :func:`lib.analyses.horizon.accuracy_curves` (``within``, ``across``
(P predictors, F fractions), ``earliest_sure`` (P,), ``shuffled`` (permutations, P, F) and ``null_half``);
``findings``: :func:`lib.book.horizon_report.rival_findings`; ``predictors``: the names behind the
curves' rows, the first ``n_kernels`` of them the kernel quantities. Each function returns the texts
the chapter glues, by glue name where it returns several. Checked in ``tests/test_horizon_texts.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..analyses.claims import CLAIMS
from ..analyses.replication import CONTINUUM_SAMPLE
from .horizon_report import control_text, fraction_label, fractions_words, strongest_text
from .names import reader_name
from .replication_report import blocks_text, failing_claims


def curve_texts(curves: dict, predictors: Sequence[str], n_kernels: int, fractions: Sequence[float]) -> dict[str, str]:
    """The strongest cells across and within scales (at t = 0 and at any fraction, for the kernel
    quantities and for the rivals), the shuffled-outcome control of the within-scale r's (the share of
    shuffled ``|r|`` inside the null half-width, their 95th percentile) and every cell surely beyond the
    threshold from some fraction on."""
    kernels, rivals, t0 = slice(0, n_kernels), slice(n_kernels, None), slice(0, 1)
    strongest = lambda kind, rows, at=slice(None): strongest_text(curves, kind, predictors, rows, fractions, at)  # noqa: E731
    first = next(iter(curves.values()))
    shuffled = np.concatenate([np.abs(c["shuffled"]).ravel() for c in curves.values()])
    shuffled = shuffled[np.isfinite(shuffled)]
    sure = [f"{reader_name(p)} for the {reader_name(o)} from {fraction_label(c['earliest_sure'][i])}"
            for o, c in curves.items() for i, p in enumerate(predictors) if np.isfinite(c["earliest_sure"][i])]
    return {"hz_across_t0": strongest("across", kernels, t0), "hz_across_t0_rival": strongest("across", rivals, t0),
            "hz_within_t0": strongest("within", kernels, t0), "hz_within_kernel": strongest("within", kernels),
            "hz_within_rival": strongest("within", rivals), "hz_last": f"{100 * max(fractions):g}%",
            "hz_n_perm": f"{first['shuffled'].shape[0]}",
            "hz_shuffled": f"{np.mean(shuffled <= first['null_half']):.1%}",
            "hz_shuffled_q95": f"{np.quantile(shuffled, 0.95):.3f}", "hz_null_half": f"{first['null_half']:.3f}",
            "hz_sure": "; ".join(sure) if sure else "none"}


def beats_text(findings: dict, n_kernels: int, level: float = 0.05) -> str:
    """Whether a kernel quantity beats every rival in some cell after Holm's correction; where none
    does, the reverse test: in how many cells, and for which kernel quantities, some rival predicts
    better."""
    tests, winners, beaten = findings["p"], findings["winners"], findings["beaten"]
    if winners:
        return f"A kernel quantity beats every rival in {len(winners)} of {len(tests)} cells (first table below)."
    never = [k for k in dict.fromkeys(findings["kernel_of"]) if k not in beaten]
    return (f"No kernel quantity beats every rival in any of the {len(tests)} cells after the correction (smallest p "
            f"before it: {min(tests):.2g}). The reverse test (some rival predicts better than the kernel quantity; the "
            f"smallest p over the four rivals times four, Holm over the same cells) is significant in "
            f"{int(np.sum(findings['p_reverse_holm'] <= level))} cells, for {len(beaten)} of the {n_kernels} kernel "
            "quantities" + (f" (never for: {', '.join(never)})." if len(beaten) < n_kernels else "."))


def adds_text(findings: dict) -> str:
    """In how many of the cells that could be tested a kernel quantity adds to the rivals."""
    adds = findings["adds"]
    return (f"Significant after the correction in {len(adds)} of {int(np.isfinite(findings['p_partial']).sum())} cells "
            "that could be tested" + (" (second table below)." if adds else "."))


def finetune_text(curves: dict, findings: dict, predictors: Sequence[str], fractions: Sequence[float],
                  level: float = 0.05) -> str:
    """Per fine-tuning outcome its largest within-scale ``|r|`` after the start (predictor and fraction),
    and in how many cells a kernel quantity beats every rival, or a rival a kernel quantity (Holm)."""
    best = {o: max(((abs(c["within"][i, f]), predictors[i], f) for i in range(len(predictors))
                    for f in range(1, len(fractions)) if np.isfinite(c["within"][i, f])), default=None)
            for o, c in curves.items()}
    return (" ".join(f"For the {reader_name(o)}, the largest within-scale |r| after the start is {size:.2f} "
                     f"({reader_name(p)} at {fraction_label(fractions[f])})." for o, (size, p, f) in
                     ((o, b) for o, b in best.items() if b is not None))
            + f" A kernel quantity beats every rival in {int(np.sum(findings['p_holm'] <= level))} of "
              f"{len(findings['p'])} cells (Holm), and a rival beats a kernel quantity in "
              f"{int(np.sum(findings['p_reverse_holm'] <= level))}.")


def retrace_text(relative_difference: float) -> str:
    """How a retrained run's losses compare with the cached run's: "identical", or the largest relative
    difference."""
    return "identical" if relative_difference == 0 else f"equal to within {relative_difference:.1e} (relative)"


def finetune_settle_text(unsettled: int, analysed: int, settled_change: float) -> str:
    """Whether the analysed networks' fine-tuning had settled: how many of the ``analysed`` networks'
    multitask test loss still changed by ``settled_change`` (relative) or more over the last tenth of
    fine-tuning, and what that means for the fine-tuning outcomes."""
    share = f"{100 * settled_change:g}%"
    if analysed < 1 or not 0 <= unsettled <= analysed:
        raise ValueError(f"need 0 <= unsettled <= analysed and analysed >= 1, got {unsettled} of {analysed}")
    if unsettled == 0:
        return (f"Every one of the {analysed} analysed networks' multitask test loss changed by less than {share} over "
                "the last tenth of fine-tuning: the fine-tuning outcomes are those of settled networks.")
    return (f"{unsettled} of the {analysed} analysed networks' multitask test loss still changed by {share} or more "
            "over the last tenth of fine-tuning. The fine-tuning outcomes include them: they are outcomes after the "
            "declared number of fine-tuning iterations, not at convergence, and a network still learning can still "
            "move its final loss.")


def design_texts(seeds: int, single_iterations: int, use: np.ndarray, converged_only: bool, scales: Sequence[float],
                 per_scale: Sequence[int], fractions: Sequence[float], retrace: float, threshold: float,
                 early: float) -> dict[str, str]:
    """The page's texts of the design: networks per scale and how many are analysed (``use`` (N,)), the
    single-task iterations, the fractions observed, the retraced snapshots' agreement, the threshold of
    a useful prediction and the end of the early window."""
    return {"hz_seeds": f"{seeds}", "hz_single": f"{single_iterations:,}",
            "hz_used": f"{int(use.sum())} of {use.size} networks"
                       f"{'' if converged_only else ' (every network: converged_only is off)'} ("
                       + ", ".join(f"g = {g:g}: {n}" for g, n in zip(scales, per_scale)) + ")",
            "hz_fractions": ", ".join(f"{100 * f:g}%" for f in fractions), "hz_retrace": retrace_text(retrace),
            "hz_threshold": f"{threshold:g}", "hz_early": f"{100 * early:g}%"}


def finding_texts(findings: dict, n_kernels: int, control_discoveries: np.ndarray, n_control: int) -> dict[str, str]:
    """The page's texts of the kernel-against-rival cells of the continuum: how many cells were
    tested, the beats and adds sentences, and the add test's negative control
    (``control_discoveries``: (``n_control``,) discoveries per within-scale permutation)."""
    return {"hz_n_tests": f"{len(findings['p'])}", "hz_beats_text": beats_text(findings, n_kernels),
            "hz_n_control": f"{n_control}", "hz_control_text": control_text(control_discoveries),
            "hz_adds_text": adds_text(findings)}


def finetune_texts(block, fractions: Sequence[float], finetune_iterations: int, predictors: Sequence[str],
                   unsettled: tuple[int, int], settled_change: float) -> dict[str, str]:
    """The page's texts of the fine-tuning horizon (``block``: a
    :class:`lib.book.horizon_continuum_block.FinetuneBlock` observed at ``fractions`` of
    ``finetune_iterations``; ``unsettled``: (networks whose fine-tuning had not settled, networks
    analysed), :func:`lib.analyses.continuum_facts.unsettled`)."""
    return {"hz_ft_fractions": fractions_words(fractions),
            "hz_ft_iterations": f"{finetune_iterations:,}", "hz_ft_n_fractions": f"{len(fractions)}",
            "hz_ft_retrace": retrace_text(block.retrace),
            "hz_ft_text": finetune_text(block.curves, block.findings, predictors, fractions),
            "hz_ft_settled": finetune_settle_text(*unsettled, settled_change)}


def pair_texts(block, n_pairs: int, iterations: dict, fractions: Sequence[float], n_kernels: int,
               level: float = 0.05) -> dict[str, str]:
    """The page's texts of the horizon on the paper's pairs (``block``: a
    :class:`lib.book.horizon_pair_block.PairBlock` of ``n_pairs`` pairs per schedule trained
    ``iterations`` (schedule -> iterations) and observed at ``fractions``): the design, the
    snapshots' agreement with the runs and their cost (the single-threaded wall time recorded when the
    snapshots were computed, s per snapshot after t = 0), and the kernel-against-rival counts."""
    n_networks = block.values.shape[2]
    n_later = n_networks * (len(fractions) - 1)  # snapshots after t = 0
    findings = block.findings
    adds, n_partial = findings["adds"], int(np.isfinite(findings["p_partial"]).sum())
    return {"hz_pairs_n": f"{n_pairs}", "hz_pairs_et": f"{iterations['ET']:,}", "hz_pairs_lr": f"{iterations['LR']:,}",
            "hz_pairs_fractions": fractions_words(fractions),
            "hz_pairs_retrace": retrace_text(block.retrace),
            "hz_pairs_cost": f"at most {float(block.snapshots['wall_time_s']) / n_later:.2f} s (the wall time of a "
                             "single-threaded worker, measured when the blocks were computed, over the snapshots after "
                             "t = 0)",
            "hz_pairs_networks": f"{n_networks}", "hz_pairs_n_fractions": f"{len(fractions)}",
            "hz_pairs_groups": ", ".join(f"{g}: {n} networks"
                                         for g, n in zip(dict.fromkeys(block.groups), block.per_group)),
            "hz_pairs_beats_text": (f"a kernel quantity beats every rival in {len(findings['winners'])} of "
                                    f"{len(findings['p'])} cells after Holm's correction, and some rival beats a kernel "
                                    f"quantity in {int(np.sum(findings['p_reverse_holm'] <= level))} cells "
                                    f"({len(findings['beaten'])} of the {n_kernels} kernel quantities are beaten "
                                    "somewhere)."),
            "hz_pairs_adds_text": (f"Given all four rivals, a kernel quantity adds information (partial correlation, "
                                   f"Holm) in {len(adds)} of {n_partial} cells" + (" (second table)." if adds else "."))}


def replication_texts(judgements, block_words: str, replication_blocks) -> dict[str, str]:
    """The continuum's replication section: the block (``block_words``), the declared half-width and
    a sentence of how many of the block's networks are analysed and which verdicts in force it gives
    again (``judgements``: :class:`lib.book.horizon_verdicts.HorizonJudgements`;
    ``replication_blocks``: :class:`lib.book.horizon_continuum_block.ContinuumBlocks`)."""
    in_force = {**judgements.single, **judgements.finetune}
    failing = failing_claims(in_force, judgements.replicated)
    single, settled = replication_blocks.single, replication_blocks.settled
    analysed = (f"Of the block's {single.use.size} networks, {int(single.use.sum())} are analysed "
                f"({int(settled.use.sum())} of them settled in fine-tuning too). ")
    if not failing:
        result = f"All {len(judgements.replicated)} verdicts replicate."
    else:
        result = (f"{len(judgements.replicated) - len(failing)} of the {len(judgements.replicated)} verdicts replicate; "
                  + "; ".join(f"{CLAIMS[c].text[0].lower() + CLAIMS[c].text[1:]}: "
                              f"{blocks_text(in_force[c], judgements.replicated[c])}" for c in failing) + ".")
    return {"hz_replication_block": block_words, "hz_declared_half_width": f"{CONTINUUM_SAMPLE.half_width:.2f}",
            "hz_replication_text": analysed + result}
