"""The rich-to-lazy continuum end to end: the grid of init scales, the short and the converged
sweeps over it (cached points on Dask), and summaries of their tables over the scales.

Analyses layer. The points the sweeps run are :mod:`lib.analyses.continuum_points`; their results
are cached per point by :mod:`lib.experiments.sweep`. Correlations within each init scale:
:mod:`lib.analyses.within_scale`.
"""

from __future__ import annotations

import numpy as np

from .continuum_points import (CONTINUUM_OUTCOMES, CONTINUUM_PREDICTORS, LR_SELECTION_SEED, TASK_PAIR_DISTANCES,
                               choose_learning_rate)
from ..core.validation import check_int


def scale_grid(g_min: float, g_max: float, n_points: int) -> list[float]:
    """``n_points`` init scales spaced evenly in log from ``g_min`` to ``g_max``, always including 1
    (the standard draw) and 10 (the paper's large init) when they lie inside, rounded to 4 digits."""
    check_int("n_points", n_points, minimum=2)
    if not 0 < g_min < g_max:
        raise ValueError(f"g_min and g_max must satisfy 0 < g_min < g_max, got {g_min!r}, {g_max!r}")
    grid = set(np.round(np.geomspace(g_min, g_max, n_points), 4).tolist())
    for anchor in (1.0, 10.0):
        if g_min <= anchor <= g_max and anchor not in grid:
            grid.remove(min(grid, key=lambda g: abs(np.log(g / anchor))))
            grid.add(anchor)
    return sorted(grid)


def continuum_sweep(scales: dict[str, list[float]], lr_paper: float, lr_candidates: list[float], n_seeds: int,
                    n_lr_seeds: int, common: dict, n_lr_iterations: int, progress: bool = True) -> dict:
    """Run (or load from the cache) the whole continuum on Dask, one cached point per init
    scale and learning rate (:mod:`lib.experiments.sweep`):

    1. for every scale, :func:`~lib.analyses.continuum_points.lr_point` for each of
       ``lr_candidates`` on ``n_lr_seeds`` held-out networks (seeds from
       :data:`~lib.analyses.continuum_points.LR_SELECTION_SEED`, never evaluated);
       :func:`~lib.analyses.continuum_points.choose_learning_rate` picks the scale's tuned
       learning rate;
    2. :func:`~lib.analyses.continuum_points.predictor_point` per scale on the evaluated seeds
       0..n_seeds-1;
    3. :func:`~lib.analyses.continuum_points.outcome_point` per scale at ``lr_paper`` and at
       the tuned learning rate.

    Args:
        scales: scaling ("both", "hidden") -> init scales g.
        common: parameters shared by every outcome point (``n_single``, ``n_finetune``,
            ``n_route``, ``n_hidden``, ``n_train``, ``n_test``, ...).

    Returns: ``{"networks": {column: (rows,) array}, "tuned_lr": {(scaling, g): lr},
    "curves": {(scaling, g, lr_kind): outcome point arrays}}``; one row per evaluated
    network and learning-rate kind ("paper", "tuned").
    """
    from ..experiments.sweep import sweep
    from ..experiments.sweep_cluster import dask_client

    size = {k: common[k] for k in ("n_hidden", "n_train", "n_test") if k in common}
    cells = [(s, float(g)) for s, gs in scales.items() for g in gs]
    with dask_client() as client:
        lr_points = [{"scaling": s, "g": g, "lr": float(lr), "first_seed": LR_SELECTION_SEED, "n_seeds": n_lr_seeds,
                      "n_iterations": n_lr_iterations, **size} for s, g in cells for lr in lr_candidates]
        lr_runs = _run_sweep(sweep, lr_points, "lib.analyses.continuum_points:lr_point", client, progress)
        tuned = {}
        for i, (s, g) in enumerate(cells):
            runs = lr_runs[i * len(lr_candidates):(i + 1) * len(lr_candidates)]
            tuned[(s, g)] = choose_learning_rate(list(lr_candidates), [r["loss_train"][:, -1] for r in runs],
                                                 [r["loss_train"][:, 0] for r in runs])
        pred_points = [{"scaling": s, "g": g, "first_seed": 0, "n_seeds": n_seeds, **size} for s, g in cells]
        preds = _run_sweep(sweep, pred_points, "lib.analyses.continuum_points:predictor_point", client, progress)
        kinds = (("paper", lambda s, g: float(lr_paper)), ("tuned", lambda s, g: tuned[(s, g)]))
        out_points = [{"scaling": s, "g": g, "lr": lr_of(s, g), "first_seed": 0, "n_seeds": n_seeds, **common}
                      for _, lr_of in kinds for s, g in cells]
        outs = _run_sweep(sweep, out_points, "lib.analyses.continuum_points:outcome_point", client, progress)
    columns: dict[str, list] = {}
    curves = {}
    for k, (kind, _) in enumerate(kinds):
        for i, (s, g) in enumerate(cells):
            o = outs[k * len(cells) + i]
            curves[(s, g, kind)] = o
            block = {"scaling": [s] * n_seeds, "g": [g] * n_seeds, "lr_kind": [kind] * n_seeds,
                     "lr": [out_points[k * len(cells) + i]["lr"]] * n_seeds, "seed": list(range(n_seeds))}
            block |= {name: list(preds[i][name]) for name in CONTINUUM_PREDICTORS}
            block |= {name: list(o[name]) for name in CONTINUUM_OUTCOMES}
            for name, values in block.items():
                columns.setdefault(name, []).extend(values)
    return {"networks": {k: np.asarray(v) for k, v in columns.items()}, "tuned_lr": tuned, "curves": curves}


# the fractions of the single-task phase at which converged_sweep records the test loss, and their columns
RECORDED_TEST_LOSS = {0.1: "loss_single_test_10pct", 0.2: "loss_single_test_20pct"}


def continuum_common(iterations: dict, n_train: int, n_hidden: int) -> dict:
    """The run sizes of a continuum's points from a chapter's ``iterations`` (``single``,
    ``finetune``, ``route``), ``n_train`` (training and test patterns) and ``n_hidden``."""
    return dict(n_single=iterations["single"], n_finetune=iterations["finetune"], n_route=iterations["route"],
                n_train=n_train, n_test=n_train, n_hidden=n_hidden)


def converged_sweep(scales: list[float], lr_candidates: list[float], n_lr_seeds: int, n_lr_iterations: int,
                    n_seeds: int, first_block: int, common: dict, progress: bool = True,
                    first_seed: int = 0) -> dict[str, np.ndarray]:
    """The converged continuum: ``n_seeds`` networks (seeds ``first_seed``... : the book's are 0...,
    a replication block any disjoint range) per init scale (both layers
    scaled) trained with the iteration counts of ``common`` (``n_single``, ``n_finetune``,
    ``n_route``, sizes), in cached :func:`~lib.analyses.continuum_points.outcome_point` blocks per
    scale (the first ``first_block`` seeds and the rest: two blocks keep both workers busy to the end; a
    network's outcomes do not depend on its block, tested), at the scale's learning rate chosen as
    :func:`continuum_sweep` chooses it
    (:func:`~lib.analyses.continuum_points.lr_point` on ``n_lr_seeds`` held-out networks per
    candidate, ``n_lr_iterations`` iterations; for a scale of that sweep's grid the same cached
    points, so the same choice); and the t=0 predictors in two cached
    :func:`~lib.analyses.continuum_points.predictor_point` blocks per scale: the first
    ``first_block`` seeds (with ``first_seed`` 0 and a scale of the grid, :func:`continuum_sweep`'s
    points, read from the cache) and the rest.

    Returns ``{column: (len(scales) * n_seeds,) array}`` with ``g``, ``seed``, ``lr``, every
    predictor of :data:`~lib.analyses.continuum_points.CONTINUUM_PREDICTORS` and outcome of
    :data:`~lib.analyses.continuum_points.CONTINUUM_OUTCOMES`, and per network the
    relative change of the single-task (``settle_single``) and fine-tuning (``settle_finetune``)
    test loss over the last tenth of its run, ``|L(T) - L(0.9 T)| / L(0.9 T)``, and
    ``route_resolution``: the iterations between recorded losses of the held-out route;
    ``loss_single_test_10pct``, ``loss_single_test_20pct``: the single-task test loss recorded at
    10% and 20% of the single-task phase; and the (len(scales) * n_seeds, 66) task-pair distances of
    :data:`~lib.analyses.continuum_points.TASK_PAIR_DISTANCES` (keys ``pairs/...``, the only 2-d columns)."""
    from ..experiments.sweep import sweep
    from ..experiments.sweep_cluster import dask_client

    check_int("n_seeds", n_seeds, minimum=2)
    check_int("first_block", first_block, minimum=1, maximum=n_seeds)
    check_int("first_seed", first_seed, minimum=0, maximum=LR_SELECTION_SEED - n_seeds)
    size = {k: common[k] for k in ("n_hidden", "n_train", "n_test") if k in common}
    blocks = [(first_seed, first_block)] + ([(first_seed + first_block, n_seeds - first_block)]
                                            if n_seeds > first_block else [])
    with dask_client() as client:
        lr_points = [{"scaling": "both", "g": float(g), "lr": float(lr), "first_seed": LR_SELECTION_SEED,
                      "n_seeds": n_lr_seeds, "n_iterations": n_lr_iterations, **size}
                     for g in scales for lr in lr_candidates]
        lr_runs = _run_sweep(sweep, lr_points, "lib.analyses.continuum_points:lr_point", client, progress)
        k = len(lr_candidates)
        tuned_lr = {g: choose_learning_rate(list(lr_candidates),
                                            [r["loss_train"][:, -1] for r in lr_runs[i * k:(i + 1) * k]],
                                            [r["loss_train"][:, 0] for r in lr_runs[i * k:(i + 1) * k]])
                    for i, g in enumerate(scales)}
        pred_points = [{"scaling": "both", "g": float(g), "first_seed": a, "n_seeds": n, **size}
                       for g in scales for a, n in blocks]
        preds = _run_sweep(sweep, pred_points, "lib.analyses.continuum_points:predictor_point", client, progress)
        out_points = [{"scaling": "both", "g": float(g), "lr": float(tuned_lr[g]), "first_seed": a,
                       "n_seeds": n, **common} for g in scales for a, n in blocks]
        outs = _run_sweep(sweep, out_points, "lib.analyses.continuum_points:outcome_point", client, progress)
    columns: dict[str, list] = {}
    for i, g in enumerate(scales):
        o = _joined(outs[i * len(blocks):(i + 1) * len(blocks)])
        block = {"g": [float(g)] * n_seeds, "seed": list(range(first_seed, first_seed + n_seeds)),
                 "lr": [float(tuned_lr[g])] * n_seeds}
        block |= {name: np.concatenate([preds[i * len(blocks) + b][name] for b in range(len(blocks))]).tolist()
                  for name in CONTINUUM_PREDICTORS}
        block |= {name: list(o[name]) for name in CONTINUUM_OUTCOMES}
        block |= {name: list(np.asarray(o[name], np.float64)) for name in TASK_PAIR_DISTANCES}  # rows of (66,)
        for phase, key in (("single", "curve/single/loss_test"), ("finetune", "curve/finetune/loss_test")):
            curve = np.asarray(o[key], np.float64)
            block[f"settle_{phase}"] = list(np.abs(curve[:, -1] - curve[:, -2]) / curve[:, -2])
        block["route_resolution"] = [int(np.max(np.diff(o["iterations/route"])))] * n_seeds
        for fraction, column in RECORDED_TEST_LOSS.items():  # the single-task test loss curve has 11 snapshots
            block[column] = list(np.asarray(o["curve/single/loss_test"])[:, round(10 * fraction)])
        for name, values in block.items():
            columns.setdefault(name, []).extend(values)
    return {k: np.asarray(v) for k, v in columns.items()}


def _joined(blocks: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One outcome point's arrays from consecutive seed blocks of it: per-network arrays (first axis:
    networks) concatenated, the ``iterations/...`` (shared by every block) from the first."""
    return {k: v if k.startswith("iterations/") else np.concatenate([b[k] for b in blocks])
            for k, v in blocks[0].items()}


def _run_sweep(sweep, points, function, client, progress):
    report = sweep(points, function=function, client=client, progress=progress)
    if not report.ok:
        raise RuntimeError("continuum sweep points failed:\n" + "\n".join(f.format() for f in report.failures))
    return report.load()



def transition_midpoint(scales: np.ndarray, values: np.ndarray) -> float:
    """Init scale at which ``values`` first crosses the midpoint of its range, interpolated
    linearly in log g between the two grid points around the crossing.

    scales: (G,) increasing init scales g; values: (G,) e.g. median kernel distance per scale.
    Returns nan when fewer than two finite values or a flat curve leave no crossing."""
    scales, values = np.asarray(scales, float), np.asarray(values, float)
    keep = np.isfinite(values)
    scales, values = scales[keep], values[keep]
    if len(values) < 2 or values.max() == values.min():
        return float("nan")
    middle = (values.max() + values.min()) / 2
    above = values >= middle
    crossing = np.flatnonzero(above[1:] != above[:-1])
    if not len(crossing):
        return float("nan")
    i = crossing[0]
    fraction = (middle - values[i]) / (values[i + 1] - values[i])
    return float(np.exp(np.log(scales[i]) + fraction * (np.log(scales[i + 1]) - np.log(scales[i]))))


def _known(values) -> np.ndarray:
    """``values`` as a float array without its NaN entries."""
    values = np.asarray(values, dtype=float)
    return values[~np.isnan(values)]


def nan_median(values) -> float:
    """The median of the non-NaN ``values`` (as ``np.nanmedian``); NaN, without a warning, when every
    value is NaN (e.g. a scale at which every linearization diverged)."""
    known = _known(values)
    return float(np.median(known)) if known.size else float("nan")


def nan_quartiles(values) -> np.ndarray:
    """(3,) 25th, 50th and 75th percentiles of the non-NaN ``values`` (as ``np.nanpercentile``); NaN,
    without a warning, when every value is NaN."""
    known = _known(values)
    return np.percentile(known, [25, 50, 75]) if known.size else np.full(3, np.nan)


def medians_by_scale(networks: dict[str, np.ndarray], column: str) -> tuple[np.ndarray, np.ndarray]:
    """(scales (S,), :func:`nan_median` of ``column`` per scale (S,)) of a table of networks of one
    setting (``networks["g"]``: each network's initial scale)."""
    gs = np.unique(networks["g"])
    return gs, np.array([nan_median(networks[column][networks["g"] == g]) for g in gs])
