"""The prediction-horizon chapter's answer as reader text: a short answer box and the answer in detail.

Book layer; the chapter glues what these functions return. Every verdict comes from a
:class:`lib.analyses.claims.Judgement` (``judge()``), every number from the chapter's saved
results; these functions only put them into sentences.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..analyses.claim_registry_horizon_rivals import SETTLED_FROM
from ..analyses.claims import CLAIMS, Judgement
from .horizon_report import fraction_label, fractions_words, window_cells
from .horizon_verdicts import first_sure_fractions, on_every_analysed
from .replication_report import blocks_text, failing_claims
from .rival_report import verdict_lines

# what a verdict of "a kernel quantity predicts better than every trivial rival" says, on the continuum
BEATS_WORDS = {"reproduced": "A kernel quantity predicts better than every trivial rival in {winners} of {tests} "
                             "comparisons (after Holm's correction)",
               "not reproduced": "No kernel quantity predicts better than the representation and losses observed at "
                                 "the same moment, and for every kernel quantity some rival predicts better",
               "inconclusive": "No kernel quantity predicts significantly better than the representation and losses "
                               "observed at the same moment, and the rivals are not shown to predict better than "
                               "every kernel quantity (inconclusive)",
               "not tested": "Too few networks to judge whether a kernel quantity predicts better than the rivals",
               "borderline": "Whether a kernel quantity predicts better than the rivals is borderline"}
# the same on the paper's pairs, inside a sentence
PAIR_BEATS_WORDS = {"reproduced": "a kernel quantity beats every rival in {winners} of {tests} cells",
                    "not reproduced": "no kernel quantity beats the rivals, and every one is beaten by some rival",
                    "inconclusive": "no kernel quantity beats the rivals, and not every one is shown beaten "
                                    "(inconclusive)",
                    "not tested": "too few networks to compare kernel and rivals",
                    "borderline": "kernel against rivals is borderline"}


def when_words(first_fraction: float, who: str, fractions: Sequence[float]) -> str:
    """"<who> from 5% of the single-task phase", or "<who> at no fraction up to 50%" when
    ``first_fraction`` is not finite (no observed fraction reached)."""
    if math.isfinite(first_fraction):
        return f"{who} from {fraction_label(first_fraction)} of the single-task phase"
    return f"{who} at no fraction up to {100 * max(fractions):g}%"


def beats_words(verdict: str, n_winners: int, n_tests: int, pairs: bool = False) -> str:
    """What the verdict of the beats-the-rivals claim says (:data:`BEATS_WORDS`, or
    :data:`PAIR_BEATS_WORDS` for the pairs), with the count of winning cells where it is reproduced."""
    words = PAIR_BEATS_WORDS if pairs else BEATS_WORDS
    if verdict not in words:
        raise ValueError(f"verdict must be one of {sorted(words)}, got {verdict!r}")
    return words[verdict].format(winners=n_winners, tests=n_tests)


def adds_words(n_adds: int, n_cells: int) -> str:
    """The exploratory partial-correlation test's result, as the end of a sentence ("." when no cell
    was defined)."""
    if n_cells == 0:
        return "."
    if n_adds:
        return (f"; in an exploratory test added after a review, a kernel quantity adds information to all the "
                f"rivals together in {n_adds} of {n_cells} cells.")
    return ("; in an exploratory test added after a review, no kernel quantity adds information to all the rivals "
            "together in any cell after the correction.")


def answer_details(threshold: float, rival_first: float, kernel_first: float, fractions: Sequence[float],
                   n_early_cells: int, judgements: Mapping[str, Judgement], n_winners: int, n_tests: int,
                   n_adds: int, n_partial: int, finetune_fractions: Sequence[float],
                   finetune_judgements: Mapping[str, Judgement], pair_fractions: Sequence[float],
                   pair_judgements: Mapping[str, Judgement], n_pair_winners: int, n_pair_tests: int,
                   n_pair_adds: int, n_pair_partial: int) -> str:
    """The chapter's answer in full: the continuum's windows and rival comparison (``judgements``:
    the ``horizon-*`` claims), fine-tuning (``finetune_judgements``) and the paper's pairs
    (``pair_judgements``). ``rival_first``/``kernel_first``: the earliest fraction at which a rival /
    a kernel quantity reaches an absolute r beyond ``threshold`` (inf: none)."""
    text = (f"Within init scales, an outcome is predicted with |r| beyond {threshold:g} (its uncorrected 95% interval "
            f"wholly beyond it) {when_words(rival_first, 'by the representation or losses observed so far', fractions)}"
            f", and {when_words(kernel_first, 'by a kernel quantity', fractions)}; judged with the correction for the "
            f"{n_early_cells} early cells, the kernel's window is {judgements['horizon-kernel-window'].verdict}. ")
    text += beats_words(judgements["horizon-kernel-beats-rivals"].verdict, n_winners, n_tests)
    text += adds_words(n_adds, n_partial)
    text += (f" Observed during fine-tuning (at {fractions_words(finetune_fractions)} of it), a kernel quantity's "
             f"window for the fine-tuning outcomes is "
             f"{finetune_judgements['horizon-finetune-kernel-window'].verdict}, and whether it beats the rivals there "
             f"is {finetune_judgements['horizon-finetune-kernel-beats-rivals'].verdict}.")
    window = pair_judgements["horizon-pairs-kernel-window"]
    text += (f" On the paper's standard/large pairs, observed at {fractions_words(pair_fractions)} of their "
             f"single-task phase, within schedule and init: the kernel's early window is {window.verdict} "
             f"({window.ours}); the representation's is "
             f"{pair_judgements['horizon-pairs-representation-window'].verdict} and the test loss's "
             f"{pair_judgements['horizon-pairs-loss-window'].verdict}; "
             f"{beats_words(pair_judgements['horizon-pairs-kernel-beats-rivals'].verdict, n_pair_winners, n_pair_tests, pairs=True)}"
             f"; a kernel quantity adds information to all the rivals in {n_pair_adds} of {n_pair_partial} cells.")
    return text


# the claims whose replication the answer box reports, as it names them: the paper's pairs', the continuum's
BOX_PAIR_CLAIMS = {"horizon-pairs-kernel-window": "the kernel's early window",
                   "horizon-pairs-kernel-beats-rivals": "the rival comparison"}
BOX_CONTINUUM_CLAIMS = {"horizon-kernel-window": "the kernel's early window",
                        "horizon-kernel-beats-rivals": "the rival comparison",
                        "horizon-finetune-kernel-beats-rivals": "the rival comparison during fine-tuning"}


def replication_clause(discovery: Mapping[str, Judgement], replicated: Mapping[str, Judgement],
                       names: Mapping[str, str] = BOX_PAIR_CLAIMS, blocks: str = "both blocks of pairs") -> str:
    """"the same verdicts on <blocks>" when each claim of ``names`` (claim -> its name in the box)
    replicates (:func:`lib.analyses.replication.replication_status`), else the verdicts of those that
    do not, per block."""
    failing = failing_claims(discovery, replicated, list(names))
    if not failing:
        return f"the same verdicts on {blocks}"
    return "; ".join(f"{names[claim]} does not replicate ({blocks_text(discovery[claim], replicated[claim])})"
                     for claim in failing)


def answer_box(threshold: float, rival_first: float, kernel_first: float, fractions: Sequence[float],
               judgements: Mapping[str, Judgement], pair_judgements: Mapping[str, Judgement],
               replicated_pair_judgements: Mapping[str, Judgement], in_force: Mapping[str, Judgement],
               replicated: Mapping[str, Judgement]) -> str:
    """The short answer at the top of the chapter (three sentences): how early the representation and
    losses predict the outcome against a kernel quantity, and whether a kernel quantity beats them,
    on the continuum (``judgements``: the verdicts on every analysed network) and on the paper's pairs
    (both blocks); and which of the continuum's verdicts in force (``in_force``) its replication block
    (``replicated``) gives again."""
    window = judgements["horizon-kernel-window"].verdict
    beats = judgements["horizon-kernel-beats-rivals"].verdict
    pair_window = pair_judgements["horizon-pairs-kernel-window"].verdict
    pair_beats = pair_judgements["horizon-pairs-kernel-beats-rivals"].verdict
    continuum = replication_clause(in_force, replicated, BOX_CONTINUUM_CLAIMS, "both blocks of the continuum")
    return (f"Within an init scale, the representation and losses observed so far predict a network's final outcome "
            f"(|r| beyond {threshold:g}) "
            f"{when_words(rival_first, '', fractions).strip()}, a kernel quantity "
            f"{when_words(kernel_first, '', fractions).strip()} (the kernel's early window: {window}). "
            f"Whether a kernel quantity predicts better than those rivals observed at the same moment: {beats} on "
            f"the continuum; on the paper's standard/large pairs, {pair_beats} (early window: {pair_window}), with "
            f"{replication_clause(pair_judgements, replicated_pair_judgements)}. On a replication block of the "
            f"continuum's networks, under the criteria in force: {continuum}.")


def answer_texts(threshold: float, block, pairs, judgements, predictors: Sequence[str], kernels: Sequence[str],
                 outcomes: Sequence[str], fractions: Sequence[float], finetune_fractions: Sequence[float],
                 pair_fractions: Sequence[float], early: float) -> dict[str, str]:
    """The chapter's glued verdict texts: ``hz_verdicts`` (one line per claim, with its earlier
    versions' verdicts), ``hz_answer_box`` (:func:`answer_box`) and ``hz_answer``
    (:func:`answer_details`). The answer describes the figures and tables, which show every analysed
    network, so it quotes each claim's latest verdict judged on those networks: for a claim of
    :data:`lib.analyses.claim_registry_horizon_rivals.SETTLED_FROM` the version before the one in
    force (:func:`settled_text` gives the verdicts in force, on the networks whose fine-tuning
    settled). From the continuum's block (``block``: a
    :class:`lib.book.horizon_continuum_block.ContinuumBlock`), the pairs' discovery block (``pairs``:
    a :class:`lib.book.horizon_pair_block.PairBlock`) and ``judgements``
    (:class:`lib.book.horizon_verdicts.HorizonJudgements`)."""
    judged = {**judgements.single, **judgements.finetune, **judgements.pairs}
    quoted = on_every_analysed(judgements)
    kernel_first, rival_first = first_sure_fractions(block.curves, len(kernels))
    n_early_cells = len(window_cells(block.curves, predictors, kernels, outcomes, fractions, early)[0])
    f, pf = block.findings, pairs.findings
    count = lambda findings: (len(findings["winners"]), len(findings["p"]), len(findings["adds"]),  # noqa: E731
                              int(np.isfinite(findings["p_partial"]).sum()))
    n_winners, n_tests, n_adds, n_partial = count(f)
    n_pair_winners, n_pair_tests, n_pair_adds, n_pair_partial = count(pf)
    return {
        "hz_verdicts": verdict_lines(judged, judgements.earlier, {k: CLAIMS[k].text for k in judged}),
        "hz_answer_box": answer_box(threshold, rival_first, kernel_first, fractions, quoted, judgements.pairs,
                                    judgements.replicated_pairs, {**judgements.single, **judgements.finetune},
                                    judgements.replicated),
        "hz_answer": answer_details(threshold, rival_first, kernel_first, fractions, n_early_cells, quoted,
                                    n_winners, n_tests, n_adds, n_partial, finetune_fractions, quoted,
                                    pair_fractions, judgements.pairs, n_pair_winners, n_pair_tests, n_pair_adds,
                                    n_pair_partial),
    }


def settled_text(judgements, n_settled: int, n_analysed: int) -> str:
    """What the one convergence filter changes: the verdict of each claim of
    :data:`lib.analyses.claim_registry_horizon_rivals.SETTLED_FROM` on the ``n_settled``
    networks whose fine-tuning also settled (its post-hoc version in force) beside its previous
    version's on all ``n_analysed`` analysed networks (``judgements``:
    :class:`lib.book.horizon_verdicts.HorizonJudgements`)."""
    now, before = {**judgements.single, **judgements.finetune}, on_every_analysed(judgements)
    changed = [(claim, before[claim].verdict, now[claim].verdict) for claim in SETTLED_FROM
               if before[claim].verdict != now[claim].verdict]
    head = (f"Judged again on the {n_settled} of the {n_analysed} analysed networks whose fine-tuning also settled "
            f"(the one convergence filter; a post-hoc version of each of the {len(SETTLED_FROM)} claims whose "
            "family includes a fine-tuning outcome, not counted in the tallies)")
    shown = (" The figures, tables and answer above show all the analysed networks; the verdicts below give each "
             "post-hoc version's numbers on the settled ones.")
    if not changed:
        return head + ", every verdict is the same as on all the analysed networks." + shown
    return head + ", " + "; ".join(f"{CLAIMS[claim].text[0].lower() + CLAIMS[claim].text[1:]}: {old} on all the "
                                   f"analysed networks, {new} on the settled ones"
                                   for claim, old, new in changed) + "." + shown
