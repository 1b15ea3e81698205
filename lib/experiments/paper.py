"""Values reported in the paper (Pyle et al., arXiv 2307.07575), cited for comparison only.

Keys: (quantity, phase, schedule) with quantity "relative" (silhouette vs own-minus-partner
final test loss) or "raw" (silhouette vs final test loss), phase "single" or "finetune",
schedule "ET", "LR" or "combined". Sources: Sec 5.2 (ET, relative), App A.6.4 (LR and
combined, relative), App A.6.5 (raw).

:data:`CLAIMS` lists every claim of Sections 3-5 and of the appendix figures, with the chapter
that judges it; the verdicts page shows one line per claim.
"""

from typing import NamedTuple

PAPER_CORRELATIONS: dict[tuple[str, str, str], float] = {
    ("relative", "single", "ET"): -0.881,
    ("relative", "finetune", "ET"): 0.973,
    ("relative", "single", "LR"): -0.850,
    ("relative", "finetune", "LR"): 0.952,
    ("relative", "single", "combined"): -0.757,
    ("relative", "finetune", "combined"): 0.932,
    ("raw", "single", "combined"): -0.421,
    ("raw", "single", "ET"): -0.224,
    ("raw", "single", "LR"): -0.637,
    ("raw", "finetune", "combined"): 0.894,
    ("raw", "finetune", "ET"): 0.947,
    ("raw", "finetune", "LR"): 0.875,
}

PAPER_SOURCES = {"relative": "Sec 5.2 / App A.6.4", "raw": "App A.6.5"}


class Claim(NamedTuple):
    """One claim of the paper: where it is made, what it says, and the chapter that tests it
    (``untested``: why it is not tested, for claims no chapter judges)."""

    section: str
    figure: str
    text: str
    chapter: str
    untested: str = ""


_SMG, _EPNTK, _REP, _PERF, _CORR = ("02_smg_validation", "03_epntk", "04_multitask_representations",
                                    "05_multitask_performance", "06_correlation_analysis")

# Every claim of Sections 3-5 and of the appendix figures, in the paper's order (one line each
# on the verdicts page). Keys are stable ids used by the chapters' summary rows.
CLAIMS: dict[str, Claim] = {
    "one-step": Claim("Sec 2.1", "Fig 1", "The t=0 eNTK prediction perfectly matches the network after one step",
                      "01_one_step_entk"),
    "smg-tiers": Claim("Sec 3", "Fig 2", "The SMG network learns in tiers: modes one after another, larger first",
                       _SMG),
    "smg-train-test": Claim("Sec 3", "Fig 2", "Train and test losses of the SMG task are nearly identical", _SMG,
                            "the authors' test set is their training set, so the two curves are identical by "
                            "construction (ours too)"),
    "smg-fig3": Claim("Sec 3", "Fig 3", "eNTK singular vectors match the data's projections on mode 1 at t=190 and "
                      "on mode 2 at t=770", _SMG),
    "smg-mode-learned": Claim("Sec 3", "Figs 3-4", "The eNTK shows mode 1 being learned at t=190 and mode 2 at t=770",
                              _SMG),
    "smg-times": Claim("Sec 3", "Fig 2", "Modes 1 and 2 are being learned around t=190 and t=770", _SMG),
    "smg-primary": Claim("Sec 3", "Fig 4", "The primary eNTK vector moves through the modes one at a time, larger "
                         "first", _SMG),
    "smg-secondary": Claim("Sec 3", "Fig 4", "The secondary vector switches modes when the primary one does", _SMG),
    "smg-anticipation": Claim("Sec 3", "Fig 5", "eNTK vector switches precede (predict) the loss drops", _SMG),
    "smg-ntk": Claim("App A.4", "Fig 14", "The plain NTK's primary vector stays on mode 1; its singular values are "
                     "unrelated to learning", _SMG),
    "epntk-map": Claim("App A.3.2", "", "The ePNTK estimate of the learned change of W closely tracks the true "
                       "change", _EPNTK),
    "epntk-exact": Claim("App A.3", "", "The ePNTK attributes the whole change of the outputs to the training "
                         "points", _EPNTK),
    "epntk-fig11": Claim("App A.3.1", "Fig 11", "At t=190 the ePNTK has mostly learned mode 1; at t=770 the eNTK "
                         "learns mode 2 and the ePNTK holds modes 1 and 2", _EPNTK),
    "epntk-fig12": Claim("App A.3.1", "Fig 12", "The ePNTK's first vector matches mode 1 at both analysis times",
                         _EPNTK),
    "epntk-fig13": Claim("App A.3.1", "Fig 13", "ePNTK singular values jump when the loss drops", _EPNTK),
    "mphate-task": Claim("Sec 4.2.1", "Fig 7", "Standard init, task grouping: four clusters of tasks sharing an "
                         "input pool", _REP),
    "mphate-input": Claim("Sec 4.2.1", "Fig 7", "Standard init, input grouping: three clusters by feature position, "
                          "transient", _REP),
    "mphate-output": Claim("Sec 4.2.1", "Fig 7", "Standard init, output grouping: three clusters by output pool",
                           _REP),
    "mphate-order": Claim("Sec 4.2.1", "Fig 7", "Organization by output pool comes first, by input pool later", _REP),
    "mphate-large": Claim("Sec 4.2.1", "Fig 7", "Large init: little structure; tasks roughly equidistant", _REP),
    "mphate-large-output": Claim("Sec 4.2.1", "Fig 7", "Large init: output grouping still forms three clusters",
                                 _REP),
    "entk-standard": Claim("Sec 4.2.2", "Figs 8, 15", "Standard init t=0 eNTK: clustered by feature position "
                           "(input sort) and by output pool (task sort)", _REP),
    "entk-large": Claim("Sec 4.2.2", "Figs 8, 15", "Large init t=0 eNTK: not clustered", _REP),
    "entk-unsorted": Claim("App A.6.1", "Fig 16", "Unsorted, the t=0 eNTK vectors look like noise", _REP,
                           "a statement about display order: sorting patterns changes no loading, and the structure "
                           "is measured order-free in chapter 04"),
    "entk-anticipates": Claim("Sec 4.2.2", "Fig 8", "The t=0 eNTK anticipates the structure learning will produce",
                              _REP),
    "ari-task": Claim("Sec 4.2.2", "Fig 9", "Task groups predicted from the t=0 eNTK match the hidden layer by the "
                      "end of training", _REP),
    "ari-input": Claim("Sec 4.2.2", "Fig 9", "Input groups predicted from the t=0 eNTK match early, then decay",
                       _REP),
    "swapped": Claim("App A.7.1", "Fig 20", "With 3 input and 4 output pools the pattern is unchanged (output "
                     "organization first)", _REP),
    "perf-et-single": Claim("Sec 5.1", "Fig 10", "Single-task (ET): large init improves faster at first, then "
                            "standard init overtakes it", _PERF),
    "perf-et-finetune": Claim("Sec 5.1", "Fig 10", "Fine-tuning (ET): large init has a clear and sustained "
                              "advantage", _PERF),
    "sharing-new-task": Claim("Sec 5", "", "Hypothesis (i): insofar as a network shares representations, it "
                              "learns a new single task faster", "10_rich_lazy_continuum"),
    "perf-multitask-speed": Claim("Sec 5", "Fig 10", "Large init acquires multitasking faster", _PERF),
    "perf-runs": Claim("App A.6.2", "Fig 17", "In every trial standard init eventually overtakes large init", _PERF),
    "perf-scale": Claim("App A.6.2", "Fig 17", "Final loss varies by over an order of magnitude between trials",
                        _PERF),
    "perf-lr-single": Claim("App A.6.3", "Fig 18", "LR schedule: standard init better in single-task training (no "
                            "early large-init advantage)", _PERF),
    "perf-lr-finetune": Claim("App A.6.3", "Fig 18", "LR schedule: large init better throughout fine-tuning", _PERF),
    "perf-train-test": Claim("App A.6.6", "Fig 19", "Training losses are below test losses", _PERF),
    "perf-train-speed": Claim("App A.6.6", "Fig 19", "ET: large init fits the training set faster without "
                              "generalizing better; LR: standard init fits better without generalizing better",
                              _PERF),
    "corr-et": Claim("Sec 5.2", "", "r(silhouette, relative test loss) = -0.881 single-task, 0.973 fine-tuning (ET)",
                     _CORR),
    "corr-lr": Claim("App A.6.4", "", "Same, LR schedule: -0.850 / 0.952", _CORR),
    "corr-combined": Claim("App A.6.4", "", "Same, ET and LR combined: -0.757 / 0.932", _CORR),
    "corr-raw": Claim("App A.6.5", "", "r(silhouette, raw test loss): -0.421 / 0.894 combined, weaker single-task",
                      _CORR),
    "corr-predicts": Claim("Sec 5.2, 6", "", "The t=0 eNTK predicts each network's generalization after both phases",
                           _CORR),
}
