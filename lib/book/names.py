"""Reader-facing names of the book's predictors, outcomes, variants and verdicts: one mapping,
used by tables (:mod:`lib.book.tables`), figures and the verdicts page, so that a page never
shows an internal identifier such as ``kta_ntk_multi`` where a reader needs words.

:func:`reader_name` names one identifier (``ValueError`` for one it does not know);
:func:`rename` renames the known identifiers of a list or of a table's columns and leaves
other labels (already written for a reader) as they are.
"""

from __future__ import annotations

from collections.abc import Iterable

# the t=0 predictors of the continuum chapter (lib.analyses.expected_signs.PREDICTOR_NAMES)
PREDICTOR_LABELS: dict[str, str] = {
    "silhouette_entk_principled": "eNTK silhouette (principled)",
    "silhouette_entk_authors": "eNTK silhouette (authors)",
    "silhouette_epsilon": "control: epsilon alone",
    "silhouette_ntk": "control: plain NTK",
    "kta_ntk_single": "NTK-target alignment, single",
    "kta_ntk_multi": "NTK-target alignment, multi",
    "kta_entk_single": "eNTK-target alignment, single",
    "kta_entk_multi": "eNTK-target alignment, multi",
    "sharing_initial": "sharing index, t=0",
}
# the predictors of the prediction horizon at a fraction f of training (lib.analyses.horizon_points) that are
# not t=0 predictors too (those read as in PREDICTOR_LABELS: no key is in two of the tables NAMES merges)
HORIZON_PREDICTOR_LABELS: dict[str, str] = {
    "silhouette_entk_accumulated": "accumulated eNTK silhouette",
    "sharing": "sharing index so far",
    "loss_train": "training loss so far",
    "loss_test": "test loss so far",
    "loss_slope": "slope of log training loss",
}
# the outcomes of a trained network (lib.analyses.expected_signs.OUTCOME_NAMES and the continuum's extras)
OUTCOME_LABELS: dict[str, str] = {
    "loss_single_test": "single-task test loss",
    "loss_multi_before": "multitask loss before fine-tuning",
    "finetune_speed": "fine-tuning speed",
    "loss_finetune_test": "multitask test loss after fine-tuning",
    "route_zero_shot": "held-out route: zero-shot loss",
    "route_iterations": "held-out route: iterations to criterion",
    "route_reached": "held-out route: share reaching the criterion",
    "sharing_final": "sharing index, trained",
    "weight_change": "|dW| / |W0|",
    "kernel_distance": "NTK distance t=0 vs trained",
    "linearization_gap": "gap to linearization",
}
# the two eNTK variants (lib.core.entk_variants.ENTK_VARIANTS)
VARIANTS: dict[str, str] = {
    "principled": "principled eNTK (training rows and columns)",
    "authors": "authors' eNTK (test rows, training columns)",
}
# the counts of a standard-vs-large comparison (lib.analyses.robustness.binary_comparison)
PHASES = {"single": "single task", "finetune": "fine-tuning"}
COMPARISON: dict[str, str] = {"n_pairs": "pairs"}
for _phase, _words in PHASES.items():
    COMPARISON.update({f"{_phase}/standard_wins": f"{_words}: standard lower",
                       f"{_phase}/large_wins": f"{_words}: large lower",
                       f"{_phase}/not_converged_standard": f"{_words}: standard not converged",
                       f"{_phase}/not_converged_large": f"{_words}: large not converged"})
# other column identifiers that reach tables
COLUMNS: dict[str, str] = {
    "g": "init scale g",
    "lr": "learning rate",
    "n": "networks",
    "n_networks": "networks",
    "paper_r": "paper r",
    "settle_single": "settled, single task",
    "settle_finetune": "settled, fine-tuning",
}
# verdicts (lib.analyses.claims.VERDICTS) with the symbol a reader takes in at a glance: plain
# Unicode symbols that common text fonts (DejaVu, Liberation) have, so they render without an emoji font
VERDICT_SYMBOLS: dict[str, str] = {
    "reproduced": "\u2714",                     # heavy check mark
    "reproduced with qualification": "\u2611",  # ballot box with check
    "not reproduced": "\u2718",                 # heavy ballot x
    "inconclusive": "?",
    "borderline": "\u26a0",                     # warning sign
    "not discriminating": "\u2248",             # almost equal to
    "not tested": "\u2013",                     # en dash
    "does not replicate": "\u2260",             # not equal to: the two blocks of networks disagree
}

NAMES: dict[str, str] = {**HORIZON_PREDICTOR_LABELS, **PREDICTOR_LABELS, **OUTCOME_LABELS, **VARIANTS, **COMPARISON, **COLUMNS}


def reader_name(key: str) -> str:
    """The reader-facing name of one identifier (a predictor, outcome, variant, comparison count
    or column id). Raises ``ValueError`` naming the allowed identifiers for an unknown one."""
    if key not in NAMES:
        raise ValueError(f"key={key!r} has no reader-facing name; allowed: {sorted(NAMES)}")
    return NAMES[key]


def rename(labels: Iterable) -> list:
    """The labels with every known identifier replaced by its reader-facing name; other labels
    (already words) unchanged. Works on a list or a DataFrame's ``columns``/``index``."""
    return [NAMES.get(label, label) if isinstance(label, str) else label for label in labels]


def verdict_badge(verdict: str) -> str:
    """The verdict with its symbol, e.g. ``"\u2714 reproduced"``. Raises ``ValueError`` for a verdict
    that is not one of ``lib.analyses.claims.VERDICTS``."""
    if verdict not in VERDICT_SYMBOLS:
        raise ValueError(f"verdict={verdict!r}; allowed: {list(VERDICT_SYMBOLS)}")
    return f"{VERDICT_SYMBOLS[verdict]} {verdict}"


def judgement_text(judgement, badge: bool = False) -> str:
    """A judgement's (:class:`lib.analyses.claims.Judgement`) verdict with its qualification in
    parentheses, as one line of reader text; ``badge``: the verdict with its symbol
    (:func:`verdict_badge`), as the chapters' verdict tables show it."""
    verdict = verdict_badge(judgement.verdict) if badge else judgement.verdict
    return verdict + (f" ({judgement.qualification})" if judgement.qualification else "")
