"""The live explorer: what one network at one initial scale shows at t=0 and over a short run.

Analyses layer. :func:`explore` draws ONE multitask network at initial scale ``g`` (the standard
draw of seed ``seed`` times ``g`` on both layers, :func:`lib.experiments.continuum.scaled_initial_params`:
g = 1 is the paper's standard init, g = 10 its large init, the same weights as the standard/large
pair of that seed in chapters 00 and 04), on the single-task data of that seed
(:func:`lib.experiments.schedules.pair_datasets`), and returns

* the leading vectors of its t=0 eNTK for both variants (:data:`lib.core.entk_variants.ENTK_VARIANTS`,
  :mod:`lib.analyses.entk_vectors`) and their silhouettes (12-cluster k-means, as the paper);
* the controls of chapter 04 (:mod:`lib.analyses.controls`): the loss sensitivities eps = dL/dy,
  the output error eps * sigma' and the targets, each with its own silhouette, and the share of
  each eNTK variant's loadings that a linear function of each control explains (squared Pearson r,
  mean over outputs); and the eNTK's relative distance from its small-weight limit;
* a short training curve: summed squared error on the training and test sets every 10
  iterations of full-batch gradient descent (numba engine) at the schedule's learning rate.

At the defaults (200 hidden units, 200 training and 200 test patterns, the continuum's sizes,
300 iterations) one call, once compiled, costs about 0.3 s of CPU time (about a second of wall
time on a busy 2-core machine); the authors' variant (a full eigendecomposition per output)
grows with the cube of ``n_train``. Nothing is cached.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from threadpoolctl import threadpool_limits

from .controls import align_signs, explained_share, network_structure
from .entk_vectors import silhouette_of_loadings
from ..core.engines import DEFAULT_ENGINE
from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import MultitaskNet
from ..core.tasks import ARCHITECTURES, TaskEnvironment
from ..core.training import train_many
from ..core.validation import check_choice, check_int, check_positive_float, check_seed
from ..experiments.continuum import scaled_initial_params
from ..experiments.schedules import get_schedule, observe_pairs, pair_data_arrays, pair_datasets

CONTROLS = ("epsilon", "output_error", "targets")  # kernel-free controls (names of controls.LOADING_PREDICTORS)
G_RANGE = (1e-3, 100.0)  # init scales offered: from the small-weight limit to saturated units
# the init scales of the static strip (what the scale slider changes): small weights to past the paper's large init
STRIP_SCALES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
SNAPSHOT_EVERY = 10  # iterations between points of the training curve
LARGE_RATE_FROM = math.sqrt(10.0)  # the geometric midpoint of the standard (g = 1) and large (g = 10) inits


def explorer_learning_rate(schedule: str, g: float) -> float:
    """The schedule's learning rate for a network at init scale ``g``: the standard init's rate
    for g < sqrt(10) (the geometric midpoint of g = 1 and g = 10), the large init's rate above
    (:data:`lib.experiments.schedules.SCHEDULES`: "ET" 0.01 for both, "LR" 0.03 / 0.01)."""
    sched = get_schedule(schedule)
    g = check_positive_float("g", g)
    return sched.learning_rate("standard" if g < LARGE_RATE_FROM else "large")


def check_explorer(g, seed, schedule, architecture, n_iterations, n_hidden=200, n_train=200) -> None:
    """ValueError naming the parameter unless every argument of :func:`explore` is allowed:
    ``g`` in :data:`G_RANGE`, ``seed`` in [0, 2**32), ``schedule`` "ET" or "LR", ``architecture``
    a key of :data:`lib.core.tasks.ARCHITECTURES`, ``n_iterations`` a multiple of
    :data:`SNAPSHOT_EVERY` in [10, 10000], ``n_hidden`` in [1, 2000], ``n_train`` in [24, 1000]
    (at least 2 patterns per cluster of the 12-cluster k-means)."""
    if not G_RANGE[0] <= check_positive_float("g", g) <= G_RANGE[1]:
        raise ValueError(f"g must be a number in [{G_RANGE[0]:g}, {G_RANGE[1]:g}], got {g!r}")
    check_seed("seed", seed)
    get_schedule(schedule)
    check_choice("architecture", architecture, ARCHITECTURES)
    check_int("n_iterations", n_iterations, minimum=SNAPSHOT_EVERY, maximum=10_000)
    if n_iterations % SNAPSHOT_EVERY:
        raise ValueError(f"n_iterations must be a multiple of {SNAPSHOT_EVERY} (a curve point every "
                         f"{SNAPSHOT_EVERY} iterations) in [{SNAPSHOT_EVERY}, 10000], got {n_iterations}")
    check_int("n_hidden", n_hidden, minimum=1, maximum=2000)
    check_int("n_train", n_train, minimum=24, maximum=1000)


def explore(g: float = 1.0, seed: int = 0, schedule: str = "LR", architecture: str = "4x3", n_iterations: int = 300,
            n_hidden: int = 200, n_train: int = 200) -> dict:
    """The t=0 eNTK structure, its controls and a short training curve of one network (module docstring).

    Args:
        g: init scale (both layers), in :data:`G_RANGE`.
        seed: the weight draw and the data (as a pair seed of chapters 00/04).
        schedule: "ET" or "LR": the learning rate (:func:`explorer_learning_rate`).
        architecture: "4x3" (the paper's network) or "3x4" (App A.7.1's swap).
        n_iterations: full-batch gradient steps of the training curve, a multiple of 10.
        n_hidden: hidden units; n_train: training patterns, and as many test patterns (i.i.d.).

    Returns a dict (N = n_train patterns, K outputs, T = n_iterations / 10 + 1 points):
        ``loadings``: name -> (N, K) float64, for ``entk_principled``, ``entk_authors`` and the
        :data:`CONTROLS`; each eNTK column oriented to correlate non-negatively with the same
        column of eps (:func:`lib.analyses.controls.align_signs`; no silhouette changes);
        ``silhouette``: name -> float, the same names; ``share``: variant -> control -> float, the
        share of that eNTK variant's loadings explained by the control (mean over outputs);
        ``limit_error``: relative Frobenius distance of the principled eNTK from its small-weight
        limit; ``row_order`` (N,) int: the patterns sorted by the input unit their task routes
        (stable); ``iterations`` (T,) int, ``loss_train`` (T,), ``loss_test`` (T,): summed squared
        error over the N training / test patterns; ``learning_rate``; and the arguments, under
        their own names.
    """
    check_explorer(g, seed, schedule, architecture, n_iterations, n_hidden, n_train)
    env = TaskEnvironment(*ARCHITECTURES[architecture])
    net = MultitaskNet.for_environment(env, n_hidden)
    params_batch = scaled_initial_params(net, [seed], g, "both")
    params = jax.tree.map(lambda a: a[0], params_batch)
    datasets = pair_datasets(env, (seed,), "single", n_train, n_train, "iid")
    arrays = {k: v[0] for k, v in pair_data_arrays(datasets).items()}

    names = tuple(f"entk_{v}" for v in ENTK_VARIANTS) + CONTROLS
    # one BLAS/OpenMP thread: the matrices are small (N x N per output), and on a shared machine
    # idle-spinning thread pools make the eigendecompositions and k-means several times slower
    with threadpool_limits(1), warnings.catch_warnings():
        structure = network_structure(net, params, arrays["x_train"], arrays["y_train"], arrays["x_test"], names)
        loadings = {n: np.asarray(structure[n], np.float64) for n in names}
        for variant in ENTK_VARIANTS:
            loadings[f"entk_{variant}"] = align_signs(loadings[f"entk_{variant}"], loadings["epsilon"])
        # k-means warns where a control has fewer than 12 distinct rows (the targets)
        from sklearn.exceptions import ConvergenceWarning  # here: chapter 11's parameter check imports this module

        warnings.simplefilter("ignore", ConvergenceWarning)
        silhouette = {n: silhouette_of_loadings(loadings[n]) for n in names}
    share = {v: {c: float(np.nanmean(explained_share(loadings[f"entk_{v}"], loadings[c]))) for c in CONTROLS}
             for v in ENTK_VARIANTS}

    learning_rate = explorer_learning_rate(schedule, g)
    data = {k: jnp.asarray(arrays[k][None], jnp.float32) for k in ("x_train", "y_train", "x_test", "y_test")}
    _, curve = train_many(net, params_batch, data, jnp.asarray([learning_rate], jnp.float32), n_iterations,
                          n_iterations // SNAPSHOT_EVERY + 1, observe_pairs(net, False), engine=DEFAULT_ENGINE)
    train_set = datasets[0][0]
    return {
        "loadings": loadings, "silhouette": silhouette, "share": share,
        "limit_error": float(structure["limit_error"]),
        "row_order": np.argsort(env.relevant_input_unit(train_set), kind="stable"),
        "iterations": np.arange(0, n_iterations + 1, SNAPSHOT_EVERY),
        "loss_train": np.asarray(curve["loss_train"][0], np.float64),
        "loss_test": np.asarray(curve["loss_test"][0], np.float64),
        "learning_rate": learning_rate, "g": float(g), "seed": int(seed), "schedule": schedule,
        "architecture": architecture, "n_iterations": int(n_iterations), "n_hidden": int(n_hidden),
        "n_train": int(n_train), "n_features": env.n_features,
    }


def scale_strip(scales=STRIP_SCALES, seed: int = 0, schedule: str = "LR", architecture: str = "4x3",
                n_iterations: int = 300, n_hidden: int = 200, n_train: int = 200) -> dict[float, dict]:
    """:func:`explore` of one network (``seed``) at each init scale of ``scales`` (increasing, in
    :data:`G_RANGE`): what the explorer's scale slider changes, for a static page. Returns
    g -> result."""
    scales = [float(g) for g in scales]
    if len(scales) < 2 or any(b <= a for a, b in zip(scales, scales[1:])):
        raise ValueError(f"scales must be an increasing list of at least 2 init scales, got {scales}")
    for g in scales:  # every scale checked before any work
        check_explorer(g, seed, schedule, architecture, n_iterations, n_hidden, n_train)
    return {g: explore(g, seed, schedule, architecture, n_iterations, n_hidden, n_train) for g in scales}
