"""Sweep point of the prediction horizon: every predictor of every network of one init scale at
each fraction f of its single-task training.

Analyses layer. :func:`horizon_point` takes a parameter dict (checked and completed against
:data:`HORIZON_DEFAULTS`), retrains the continuum's networks of that scale to the snapshots
(:func:`lib.experiments.horizon_snapshots.single_task_snapshots`) and returns (F, S) arrays, one
per name of :data:`KERNEL_PREDICTORS` and :data:`RIVAL_PREDICTORS`; :mod:`lib.experiments.sweep`
runs and caches it.

Kernel predictors (the eNTK at t = fT on the network's own single-task data):

* ``silhouette_entk_principled``, ``silhouette_entk_authors``: silhouette of the eNTK's
  leading-vector loadings, both variants (:mod:`lib.analyses.entk_vectors`), as the t=0 predictor
  of the continuum chapter but at t = fT;
* ``silhouette_entk_accumulated``: the same (principled variant) for the eNTK accumulated up to
  fT, ``sum over snapshot intervals of (t_{j+1} - t_j) (E_j + E_{j+1}) / 2``: the trapezoid rule on
  the snapshots, a coarse stand-in for the ePNTK (the sum over every step); nan at f = 0;
* ``kta_entk_single``: cosine between the eNTK's first-order change of the test outputs and the
  change they still need (:func:`~lib.analyses.network_measures.entk_target_alignment`);
* ``kta_ntk_single``: centered alignment of the traced NTK with the single-task targets.

Trivial rivals (what anyone training the network sees at t = fT, no kernel needed):

* ``sharing``: the sharing index of the hidden representation (its task similarity structure);
* ``loss_train``, ``loss_test``: mean per-pattern single-task losses;
* ``loss_slope``: d log(training loss) / d iteration over the interval from the previous snapshot
  (nan at f = 0).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .continuum_points import POINT_DEFAULTS, _complete, _seeds
from .entk_vectors import leading_vectors, silhouette_of_loadings
from .network_measures import entk_alignment, hidden_by_task, ntk_target_alignment, sharing_index
from ..core.engines import DEFAULT_ENGINE
from ..core.kernels import entk
from ..core.models import MultitaskNet
from ..core.validation import check_int
from ..core.tasks import TaskEnvironment
from ..experiments.horizon_snapshots import HORIZON_FRACTIONS, single_task_snapshots, snapshot_iterations

KERNEL_PREDICTORS = ("silhouette_entk_principled", "silhouette_entk_authors", "silhouette_entk_accumulated",
                     "kta_entk_single", "kta_ntk_single")
RIVAL_PREDICTORS = ("sharing", "loss_train", "loss_test", "loss_slope")
HORIZON_DEFAULTS = {**POINT_DEFAULTS, "engine": DEFAULT_ENGINE.value, "lr": 0.01, "n_single": 2500,
                    "fractions": list(HORIZON_FRACTIONS), "initial_silhouettes": True}


def log_loss_slope(iterations, losses) -> np.ndarray:
    """(..., F) d log(loss) / d iteration between consecutive snapshots, at the later one; nan at
    the first. iterations (F,) strictly increasing; losses (..., F) positive."""
    iterations, losses = np.asarray(iterations, np.float64), np.asarray(losses, np.float64)
    if iterations.ndim != 1 or losses.shape[-1] != iterations.size or np.any(np.diff(iterations) <= 0):
        raise ValueError(f"iterations must be (F,) strictly increasing and losses (..., F), got {iterations.shape} "
                         f"and {losses.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.diff(np.log(losses), axis=-1) / np.diff(iterations)
    return np.concatenate([np.full(losses.shape[:-1] + (1,), np.nan), slope], axis=-1)


def accumulated_kernels(iterations, kernels) -> np.ndarray:
    """(F, ...) trapezoid-rule integrals of the kernels (F, ...) over iterations (F,) from the first
    snapshot to each one (zero at the first)."""
    iterations, kernels = np.asarray(iterations, np.float64), np.asarray(kernels, np.float64)
    if iterations.ndim != 1 or kernels.shape[0] != iterations.size:
        raise ValueError(f"kernels must be (F, ...) for iterations (F,), got {kernels.shape} and {iterations.shape}")
    steps = np.diff(iterations).reshape((-1,) + (1,) * (kernels.ndim - 1))
    pieces = steps * (kernels[1:] + kernels[:-1]) / 2
    return np.concatenate([np.zeros_like(kernels[:1]), np.cumsum(pieces, axis=0)])


INITIAL_SILHOUETTES = ("silhouette_entk_principled", "silhouette_entk_authors")


def network_predictors(env: TaskEnvironment, net: MultitaskNet, thetas: list, iterations, x_train, y_train, x_test,
                       y_test, loss_train, loss_test, initial_silhouettes: bool = True) -> dict[str, np.ndarray]:
    """Every predictor of one network at its F snapshots: ``thetas`` its weights at each snapshot,
    iterations (F,), its data, and its training and test losses (F,). Returns (F,) arrays.

    ``initial_silhouettes=False`` leaves the :data:`INITIAL_SILHOUETTES` of the first snapshot nan
    (they cost most of a snapshot: nine eigendecompositions for the authors' variant), for a caller
    that reads them from a cache of the same t=0 quantities (:func:`horizon_sweep`,
    :func:`lib.analyses.horizon_pairs.pair_horizon_sweep`)."""
    x_train, y_train, x_test = jnp.asarray(x_train), jnp.asarray(y_train), jnp.asarray(x_test)
    out = {name: [] for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS}
    principled = []
    for f, theta in enumerate(thetas):
        e_train = np.asarray(entk(net, theta, x_train, x_train, y_train), np.float64)
        e_test = np.asarray(entk(net, theta, x_test, x_train, y_train), np.float64)
        principled.append(e_train)
        skip = f == 0 and not initial_silhouettes
        out["silhouette_entk_principled"].append(
            np.nan if skip else silhouette_of_loadings(leading_vectors(e_train, "principled")))
        out["silhouette_entk_authors"].append(
            np.nan if skip else silhouette_of_loadings(leading_vectors(e_test, "authors")))
        out["kta_entk_single"].append(entk_alignment(e_test, np.asarray(y_test), np.asarray(net.apply(theta, x_test))))
        out["kta_ntk_single"].append(ntk_target_alignment(net, theta, x_train, y_train))
        out["sharing"].append(sharing_index(env, hidden_by_task(env, net, theta)))
    accumulated = accumulated_kernels(iterations, np.stack(principled))
    out["silhouette_entk_accumulated"] = [np.nan] + [silhouette_of_loadings(leading_vectors(a, "principled"))
                                                     for a in accumulated[1:]]
    out["loss_train"], out["loss_test"] = list(loss_train), list(loss_test)
    out["loss_slope"] = list(log_loss_slope(iterations, loss_train))
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


def snapshot_predictors(env: TaskEnvironment, net: MultitaskNet, run: dict[str, np.ndarray],
                        description: str, initial_silhouettes: bool = True) -> dict[str, np.ndarray]:
    """:func:`network_predictors` of every network of a snapshot run (``params/<name>`` (F, S, ...),
    ``iterations`` (F,), data ``x_train`` ... (S, N, .), losses ``loss_train``, ``loss_test`` (S, F), as
    :mod:`lib.experiments.horizon_snapshots` returns them), with a progress bar named ``description``;
    ``initial_silhouettes`` as :func:`network_predictors`. Returns every predictor (F, S) and
    ``iterations`` (F,)."""
    from tqdm import tqdm

    params = {k.split("/", 1)[1]: v for k, v in run.items() if k.startswith("params/")}
    n_networks = run["loss_train"].shape[0]
    rows = []
    for i in tqdm(range(n_networks), desc=description, mininterval=5):
        thetas = [{k: jnp.asarray(v[f, i]) for k, v in params.items()} for f in range(len(run["iterations"]))]
        rows.append(network_predictors(env, net, thetas, run["iterations"], run["x_train"][i], run["y_train"][i],
                                       run["x_test"][i], run["y_test"][i], run["loss_train"][i],
                                       run["loss_test"][i], initial_silhouettes))
    out = {name: np.stack([r[name] for r in rows], axis=1) for name in rows[0]}
    out["iterations"] = run["iterations"]
    return out


def horizon_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: the predictors of :data:`KERNEL_PREDICTORS` and :data:`RIVAL_PREDICTORS`, (F, S)
    each, of the networks ``first_seed`` ... at init scale ``g`` trained with ``lr`` for ``n_single``
    single-task iterations, at the ``fractions`` of that phase; plus ``iterations`` (F,)."""
    p = horizon_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    run = single_task_snapshots(env, _seeds(p), p["g"], p["scaling"], p["lr"], p["n_single"], p["fractions"],
                                p["n_hidden"], p["n_train"], p["n_test"], engine=p["engine"])
    return snapshot_predictors(env, net, run, f"horizon predictors g={p['g']:g}", p["initial_silhouettes"])


def _check_horizon(parameters: dict) -> dict:
    p = _complete("horizon_point", HORIZON_DEFAULTS, parameters)
    p["fractions"] = [float(f) for f in p["fractions"]]
    snapshot_iterations(p["fractions"], p["n_single"])  # fractions in [0, 1], distinct iterations
    check_initial_silhouettes(p["initial_silhouettes"], p["fractions"])
    return p


def check_initial_silhouettes(initial_silhouettes, fractions) -> None:
    """``initial_silhouettes`` (a point parameter) must be a bool, and False only with fractions
    starting at 0 (it leaves the t=0 silhouettes out)."""
    if not isinstance(initial_silhouettes, bool):
        raise ValueError(f"initial_silhouettes must be True or False, got {initial_silhouettes!r}")
    if not initial_silhouettes and float(fractions[0]) != 0.0:
        raise ValueError(f"initial_silhouettes=False leaves the t=0 silhouettes out, so fractions must start at 0, got "
                         f"{list(fractions)}")


horizon_point.check_parameters = _check_horizon


def horizon_sweep(scales, learning_rates, n_seeds: int, common: dict, fractions=HORIZON_FRACTIONS,
                  block_seeds: int = 15, progress: bool = True, initial_silhouettes: dict | None = None,
                  first_seed: int = 0) -> dict[str, np.ndarray]:
    """The predictors of every network of the converged continuum at every fraction: cached
    :func:`horizon_point` blocks of at most ``block_seeds`` networks per scale (seeds ``first_seed``
    ... ``first_seed + n_seeds - 1``,
    at ``learning_rates[i]`` for ``scales[i]``, with ``n_single``, ``n_hidden``, ``n_train``, ``n_test``
    from ``common``), run on Dask (blocks smaller than a scale keep every worker busy to the end).

    ``initial_silhouettes``: optionally, the (N,) t=0 values of :data:`INITIAL_SILHOUETTES` of these
    networks, already computed (the converged continuum's t=0 predictors,
    :func:`lib.analyses.continuum_sweeps.converged_sweep`: the same weights, data and code, so the
    same numbers; tested); the points then skip them (fractions must start at 0).

    Returns ``g``, ``seed`` (N,) with N = len(scales) x n_seeds in the converged continuum's order
    (scale-major), ``fractions``, ``iterations`` (F,), and every predictor (F, N)."""
    size = {k: common[k] for k in ("n_single", "n_hidden", "n_train", "n_test") if k in common}
    if initial_silhouettes is not None:
        n_networks = len(scales) * n_seeds
        for name in INITIAL_SILHOUETTES:
            values = np.asarray(initial_silhouettes.get(name, np.empty(0)), np.float64)
            if values.shape != (n_networks,) or not np.isfinite(values).all():
                raise ValueError(f"initial_silhouettes must hold finite (N,) arrays {list(INITIAL_SILHOUETTES)} with "
                                 f"N = len(scales) x n_seeds = {n_networks}, got {name!r} of shape {values.shape}")
        check_initial_silhouettes(False, fractions)
        size["initial_silhouettes"] = False
    out = scale_block_sweep(horizon_point, "lib.analyses.horizon_points:horizon_point", scales, learning_rates,
                            n_seeds, size, fractions, block_seeds, progress, first_seed)
    if initial_silhouettes is not None:
        for name in INITIAL_SILHOUETTES:
            out[name][0] = initial_silhouettes[name]
    return out


def scale_block_sweep(point_function, name: str, scales, learning_rates, n_seeds: int, size: dict, fractions,
                      block_seeds: int = 15, progress: bool = True, first_seed: int = 0) -> dict[str, np.ndarray]:
    """Run a horizon point function (``point_function``, importable as ``name``) over blocks of at most
    ``block_seeds`` networks per scale (seeds ``first_seed`` ... ``first_seed + n_seeds - 1``, ``learning_rates[i]`` for
    ``scales[i]``, the point parameters ``size`` and ``fractions``) on Dask, cached, and join them:
    ``g``, ``seed`` (N,) scale-major, ``fractions``, ``iterations`` (F,), every predictor (F, N)."""
    from ..experiments.sweep import sweep
    from ..experiments.sweep_cluster import dask_client

    if len(scales) != len(learning_rates) or not scales:
        raise ValueError(f"scales and learning_rates must be non-empty and of one length, got {len(scales)} and "
                         f"{len(learning_rates)}")
    check_int("block_seeds", block_seeds, minimum=1)
    check_int("first_seed", first_seed, minimum=0)
    end = first_seed + n_seeds
    blocks = [(first, min(block_seeds, end - first)) for first in range(first_seed, end, block_seeds)]
    points = [{"scaling": "both", "g": float(g), "lr": float(lr), "first_seed": first, "n_seeds": count,
               "fractions": [float(f) for f in fractions], **size}
              for g, lr in zip(scales, learning_rates) for first, count in blocks]
    for point in points:
        point_function.check_parameters(point)
    with dask_client() as client:
        report = sweep(points, function=name, client=client, progress=progress)
    if not report.ok:
        raise RuntimeError(f"{name} sweep points failed:\n" + "\n".join(f.format() for f in report.failures))
    runs = report.load()
    out = {name: np.concatenate([r[name] for r in runs], axis=1) for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS}
    out["g"] = np.repeat(np.asarray(scales, np.float64), n_seeds)
    out["seed"] = np.tile(np.arange(first_seed, end), len(scales))
    out["fractions"] = np.asarray(fractions, np.float64)
    out["iterations"] = runs[0]["iterations"]
    return out
