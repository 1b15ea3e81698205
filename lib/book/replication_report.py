"""The replication table a chapter shows: each claim's verdict on its discovery and its replication block.

The judgements come from :func:`lib.analyses.claims.judge` on each block
(:mod:`lib.analyses.replication` declares the blocks); whether a verdict replicates is
:func:`lib.analyses.replication.replication_status`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..analyses import claims
from ..analyses.replication import REPLICATES, replication_status
from .names import judgement_text


def replication_view(discovery: dict[str, claims.Judgement], replicated: dict[str, claims.Judgement],
                     precision: dict[str, str]) -> pd.DataFrame:
    """One row per claim of ``discovery`` (claim -> judgement): its verdict and numbers on each
    block, whether the verdict replicates and the precision note (claim -> text; "–" where none
    is declared)."""
    return pd.DataFrame([{"claim": claims.CLAIMS[claim].text,
                          "discovery block": f"{judgement_text(j)}: {j.ours}",
                          "replication block": f"{judgement_text(replicated[claim])}: {replicated[claim].ours}",
                          "replicates?": replication_status(j, replicated[claim]),
                          "precision": precision.get(claim) or "–"}
                         for claim, j in discovery.items()])


def continuum_block_words(first_seed: int, n_seeds: int, scales: Sequence[float]) -> str:
    """A block of the converged continuum in words (chapters 10 and 12): its seeds and networks."""
    return (f"seeds {first_seed}-{first_seed + n_seeds - 1} at each of the {len(scales)} init scales "
            f"({n_seeds * len(scales)} networks)")


def blocks_text(discovery: claims.Judgement, replicated: claims.Judgement) -> str:
    """A claim's verdict on both blocks as reader text (:func:`lib.book.names.judgement_text`): "V on
    both blocks" when it replicates, else "V on the discovery block, W on the replication block"."""
    if replication_status(discovery, replicated) == REPLICATES:
        return f"{judgement_text(discovery)} on both blocks"
    return f"{judgement_text(discovery)} on the discovery block, {judgement_text(replicated)} on the replication block"


def failing_claims(discovery: Mapping[str, claims.Judgement], replicated: Mapping[str, claims.Judgement],
                   claims_shown: Sequence[str] | None = None) -> list[str]:
    """The claims of ``claims_shown`` (default: every claim of ``replicated``) whose verdict does not
    replicate (:func:`lib.analyses.replication.replication_status`), in that order."""
    shown = list(replicated) if claims_shown is None else list(claims_shown)
    return [claim for claim in shown if replication_status(discovery[claim], replicated[claim]) != REPLICATES]


def replication_words(discovery: claims.Judgement, replicated: claims.Judgement) -> str:
    """The replication block's result as the chapters quote it: "numbers: verdict (replicates)"."""
    return f"{replicated.ours}: {judgement_text(replicated)} ({replication_status(discovery, replicated)})"
