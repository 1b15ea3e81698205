"""Values reported in the paper (Pyle et al., arXiv 2307.07575), cited for comparison only.

Keys: (quantity, phase, schedule) with quantity "relative" (silhouette vs own-minus-partner
final test loss) or "raw" (silhouette vs final test loss), phase "single" or "finetune",
schedule "ET", "LR" or "combined". Sources: Sec 5.2 (ET, relative), App A.6.4 (LR and
combined, relative), App A.6.5 (raw). The paper's claims and the criteria that judge them are
in :mod:`lib.analyses.claims`.
"""

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
