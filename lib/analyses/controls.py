"""What the t=0 eNTK knows beyond the labels: controls for every structural predictor.

**The small-weight limit.** For the multitask network (:class:`~lib.core.models.MultitaskNet`) the
eNTK of output k factors layer by layer (:func:`lib.core.kernels.entk_structured`):

    K_k[n, m] = s'_k(n) [ g_mk (z_n . z_m) + (x_n . x_m) sum_i W_o[k,i] h'_i(n) b_mi ],

with z = [h; x_task], g_m = eps_m * s'(m) and b_m = h'(m) * (W_o^T g_m). As every weight goes to
zero, h -> sigma(b_h) for every pattern, y -> sigma(b_o), s' -> sigma'(b_o), and the hidden-layer
term vanishes (it carries W_o twice). What is left is

    K_k[n, m] -> sigma'(b_o)^2 * eps0_mk * (H sigma(b_h)^2 + x_task,n . x_task,m),
    eps0_mk = 2 (sigma(b_o) - t_mk)                                   (:func:`small_weight_entk`)

a constant kernel plus a same-task bonus, *times the loss sensitivity of the column pattern*.
With H sigma(-2)^2 = 2.84 against a same-task bonus of 1 (and N/12 patterns per task), the
constant part dominates: the matrix is close to rank one, ``1 eps0_k^T``, and its leading right
vector is close to eps0_k — a two-valued function of whether output k is pattern m's target unit.
The leading vector of the standard-init eNTK is then the loss sensitivity, i.e. the targets.
The approximation error grows linearly with the init scale (tested); at the paper's large init
(weights U[-1, 1]) hidden activity and outputs vary strongly between patterns and the
hidden-layer term is as large as the output term, so the limit no longer applies.

**Controls.** Every structural predictor of chapter 04/06 is computed from (N patterns, K
outputs) "loadings" per network, so that silhouettes, eta^2 and correlations apply to all alike:

* ``entk_authors``, ``entk_principled``: the eNTK's leading (column-side) vectors, both variants;
* ``entk_left``: the row-side (left) singular vectors of the principled eNTK;
* ``ntk``: the leading vector of each output's plain NTK block (no loss weighting);
* ``epsilon``: the loss sensitivities eps = dL/dy at t=0 themselves (no kernel);
* ``output_error``: eps * sigma'(output), the error at the output pre-activation (no kernel);
* ``targets``: the targets alone (identical for the two networks of a pair).
"""

from __future__ import annotations

import numpy as np

from .checks import as_array, check_finite, check_labels, check_names, check_ndim
from .entk_vectors import leading_vectors, silhouette_of_loadings
from ..experiments.schedules import initial_pairs, params_of, test_set_size
from ..core.losses import output_loss_gradient
from ..core.models import INITS, LARGE_SCALINGS, MultitaskNet, Params
from ..core.tasks import TaskEnvironment, environment_key
from ..core.validation import check_choice, check_int, check_seed, check_seeds

# the structural predictors of chapters 04/06: whose (N, K) t=0 loadings are clustered (module docstring)
LOADING_PREDICTORS = ("entk_authors", "entk_principled", "entk_left", "ntk", "epsilon", "output_error", "targets")
LOADING_PREDICTOR_NAMES = {
    "entk_authors": "eNTK, authors' variant",
    "entk_principled": "eNTK, principled variant",
    "entk_left": "eNTK, row-side (left) vectors",
    "ntk": "plain NTK (no loss weighting)",
    "epsilon": "loss sensitivity ε alone (no kernel)",
    "output_error": "ε·σ' alone (no kernel)",
    "targets": "targets alone",
}


def _check_network_data(net: MultitaskNet, params: Params | None = None, y_rows_of: str | None = None,
                        **arrays) -> None:
    """Network inputs (N, n_inputs) and targets ``y*`` (rows of ``y_rows_of``, n_outputs): real 2-D
    finite arrays; ``params`` finite."""
    for name, a in arrays.items():
        if np.iscomplexobj(a) or np.ndim(a) != 2:
            raise ValueError(f"{name} must be a real 2-D array, got shape {np.shape(a)}")
        if name.startswith("y"):
            expected = (np.shape(arrays[y_rows_of])[0], net.n_outputs)
            if np.shape(a) != expected:
                raise ValueError(f"{name} must have shape (N, K) = {expected} for {y_rows_of} of shape "
                                 f"{np.shape(arrays[y_rows_of])}, got {np.shape(a)}")
        elif np.shape(a)[1] != net.n_inputs:
            raise ValueError(f"{name} must have {net.n_inputs} columns (the network's input units), got shape "
                             f"{np.shape(a)}")
        check_finite(name, np.asarray(a))
    if params is not None:
        import jax

        for path, leaf in jax.tree_util.tree_leaves_with_path(params):
            check_finite(f"params{jax.tree_util.keystr(path)}", np.asarray(leaf))


def _sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


def small_weight_entk(net: MultitaskNet, x_eval: np.ndarray, x_train: np.ndarray, y_train: np.ndarray) -> np.ndarray:
    """(K, N, M) limit of the eNTK (summed squared error) of ``net`` as all weights go to zero:
    ``sigma'(b_o)^2 * eps0[m, k] * (H sigma(b_h)^2 + x_task[n] . x_task[m])`` (module docstring).
    ``x_eval`` (N, n_inputs), ``x_train`` (M, n_inputs), ``y_train`` (M, K), all finite."""
    _check_network_data(net, None, "x_train", x_eval=x_eval, x_train=x_train, y_train=y_train)
    x_eval, x_train, y_train = (np.asarray(a, dtype=np.float64) for a in (x_eval, x_train, y_train))
    h0, y0 = _sigmoid(net.bias_hidden), _sigmoid(net.bias_output)
    slope = y0 * (1.0 - y0)
    eps0 = 2.0 * (y0 - y_train)  # (M, K)
    gram = net.n_hidden * h0**2 + x_eval[:, net.n_stimulus:] @ x_train[:, net.n_stimulus:].T  # (N, M)
    return slope**2 * eps0.T[:, None, :] * gram[None]


def loss_sensitivity(net: MultitaskNet, params: Params, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(N, K) eps = dL/dy of the summed squared error at ``params``; ``x`` (N, n_inputs), ``y`` (N, K), finite."""
    _check_network_data(net, params, "x", x=x, y=y)
    return np.asarray(output_loss_gradient(net.apply(params, x), y))


def output_error(net: MultitaskNet, params: Params, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(N, K) eps * sigma'(output): dL/d(output pre-activation), the error the eNTK's output term carries;
    ``x`` (N, n_inputs), ``y`` (N, K), finite."""
    _check_network_data(net, params, "x", x=x, y=y)
    out = np.asarray(net.apply(params, x))
    return np.asarray(output_loss_gradient(out, y)) * out * (1.0 - out)


def ntk_loadings(net: MultitaskNet, params: Params, x: np.ndarray) -> np.ndarray:
    """(N, K) leading vector of each output's plain NTK block ``ntk[:, :, k, k]`` over ``x`` (N, n_inputs), finite."""
    from ..core.kernels import ntk_output_diagonal

    _check_network_data(net, None, None, x=x)
    blocks = np.asarray(ntk_output_diagonal(net, params, x, x), dtype=np.float64)
    return leading_vectors(blocks, "principled")


def explained_share(loadings: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(K,) squared Pearson r between each column of ``loadings`` (N, K) and the same column of
    ``reference`` (N, K): the share of the loadings' variance a linear function of the reference
    explains (sign-free; nan where a column is constant, e.g. for a single row). Both finite."""
    a, b = (as_array(name, v) for name, v in (("loadings", loadings), ("reference", reference)))
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"loadings and reference must be (N, K) arrays of one shape, got {a.shape} and {b.shape}")
    check_finite("loadings", a)
    check_finite("reference", b)
    a, b = a - a.mean(axis=0), b - b.mean(axis=0)
    denom = np.sqrt((a**2).sum(axis=0) * (b**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, ((a * b).sum(axis=0) / denom) ** 2, np.nan)


def align_signs(loadings: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``loadings`` (N, K) with each column's sign chosen so that it correlates non-negatively
    with the same column of ``reference``: a sign convention that does not depend on noise
    when averaging vectors over networks (a vector's sign is arbitrary). Both finite."""
    a, b = (as_array(name, v) for name, v in (("loadings", loadings), ("reference", reference)))
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"loadings and reference must be (N, K) arrays of one shape, got {a.shape} and {b.shape}")
    check_finite("loadings", a)
    check_finite("reference", b)
    covariance = ((a - a.mean(axis=0)) * (b - b.mean(axis=0))).sum(axis=0)
    return a * np.where(covariance < 0, -1.0, 1.0)


def eta_squared_permutation(values: np.ndarray, labels: np.ndarray, n_permutations: int = 1000,
                            seed: int = 0) -> tuple[float, np.ndarray, float]:
    """Between-group share of variance (eta^2) of ``values`` (N, K), averaged over the K columns,
    against its null under shuffled pattern labels.

    ``values`` finite, N >= 2; ``labels`` (N,) integer groups >= 0. A constant column (eta^2
    undefined) is left out of the mean over columns.

    Returns (observed, (n_permutations,) null values, one-sided p = (1 + #null >= observed) / (1 + n))."""
    values = as_array("values", values)
    labels = np.asarray(labels)
    if values.ndim != 2 or labels.shape != (values.shape[0],):
        raise ValueError(f"values must be (N, K) and labels (N,), got {values.shape} and {labels.shape}")
    if values.shape[0] < 2:
        raise ValueError(f"values must hold at least 2 patterns (rows), got shape {values.shape}")
    check_finite("values", values)
    check_labels("labels", labels)
    check_int("n_permutations", n_permutations, minimum=10)
    check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    permuted = np.stack([labels] + [rng.permutation(labels) for _ in range(n_permutations)])  # (1 + n, N)
    statistics = _batch_eta_squared(values, permuted)
    null = statistics[1:]
    return float(statistics[0]), null, float((1 + np.sum(null >= statistics[0] - 1e-12)) / (1 + n_permutations))


def _batch_eta_squared(values: np.ndarray, label_sets: np.ndarray) -> np.ndarray:
    """(B,) eta^2 averaged over columns for each row of ``label_sets`` (B, N): each label set's group
    sums by one :func:`numpy.bincount` per column over the (set, group) bins (holding 24 bytes per
    pattern and set: the labels, their bins and one column of weights)."""
    n_groups = int(label_sets.max()) + 1
    centred = values - values.mean(axis=0)
    total = (centred**2).sum(axis=0)  # (K,)
    n_sets = len(label_sets)
    bins = (label_sets + n_groups * np.arange(n_sets)[:, None]).ravel()  # (B N,) the (set, group) of each pattern
    counts = np.bincount(bins, minlength=n_sets * n_groups).reshape(n_sets, n_groups)  # (B, G)
    sums = np.stack([np.bincount(bins, weights=np.tile(column, n_sets), minlength=n_sets * n_groups)
                     for column in centred.T], axis=-1).reshape(n_sets, n_groups, -1)  # (B, G, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        between = np.where(counts[:, :, None] > 0, sums**2 / np.maximum(counts, 1)[:, :, None], 0.0).sum(axis=1)
        return np.nanmean(np.where(total > 0, between / total, np.nan), axis=1)


def network_structure(net: MultitaskNet, params: Params, x_train, y_train, x_test,
                      predictors=LOADING_PREDICTORS) -> dict:
    """(N, K) loadings of each of ``predictors`` (names from :data:`LOADING_PREDICTORS`) for one
    network at ``params``, and ``limit_error``: the relative Frobenius distance of its principled eNTK
    (training x training) from :func:`small_weight_entk`."""
    import jax.numpy as jnp

    from ..core.kernels import entk

    names = [check_choice("predictors[]", name, LOADING_PREDICTORS) for name in check_names("predictors", predictors)]
    x_train, y_train, x_test = (jnp.asarray(a) for a in (x_train, y_train, x_test))
    principled = np.asarray(entk(net, params, x_train, x_train, y_train), dtype=np.float64)
    limit = small_weight_entk(net, x_train, x_train, y_train)
    compute = {
        "entk_authors": lambda: leading_vectors(np.asarray(entk(net, params, x_test, x_train, y_train)), "authors"),
        "entk_principled": lambda: leading_vectors(principled, "principled"),
        "entk_left": lambda: leading_vectors(principled, "principled", side="left"),
        "ntk": lambda: ntk_loadings(net, params, x_train),
        "epsilon": lambda: loss_sensitivity(net, params, x_train, y_train),
        "output_error": lambda: output_error(net, params, x_train, y_train),
        "targets": lambda: np.asarray(y_train, dtype=np.float64),
    }
    out = {name: compute[name]() for name in names}
    out["limit_error"] = float(np.linalg.norm(principled - limit) / np.linalg.norm(limit))
    return out


def run_initial_structure(env: TaskEnvironment, seeds, n_hidden: int = 200, n_train: int = 500, n_test: int | None = None,
                          split: str = "iid", large_scaling: str = "both_layers",
                          predictors=LOADING_PREDICTORS) -> dict[str, np.ndarray]:
    """The t=0 structure of the standard/large pairs the schedules train (it does not depend on
    the schedule), for each of ``predictors`` (default: all of :data:`LOADING_PREDICTORS`; the authors'
    eNTK variant costs a full eigendecomposition per output).

    Returns ``loadings/<predictor>`` (P, 2, N_train, K) float32, ``silhouette/<predictor>`` (P, 2)
    (k-means with 12 clusters, as the paper), ``limit_error`` (P, 2) and the pairs'
    ``stimulus_train``/``tasks_train``.
    """
    import warnings

    import jax.numpy as jnp
    from sklearn.exceptions import ConvergenceWarning

    from ..core.parallel import parallel_map

    seeds = check_seeds("seeds", seeds)
    names = [check_choice("predictors[]", p, LOADING_PREDICTORS) for p in check_names("predictors", predictors)]
    if check_int("n_train", n_train, minimum=1) < 13:
        raise ValueError(f"n_train must be >= 13 (the silhouettes cluster the training patterns into 12 k-means "
                         f"clusters), got {n_train}")
    if not names:
        raise ValueError(f"predictors must name at least one of {list(LOADING_PREDICTORS)}")
    check_choice("large_scaling", large_scaling, LARGE_SCALINGS)
    n_test = test_set_size(env, split, n_train, n_test)
    if "entk_authors" in names and n_test != n_train:
        raise ValueError(f"predictor 'entk_authors' needs as many test as training patterns (its eigenvectors are "
                         f"those of a square test x train matrix), got {n_test} and {n_train} (split={split!r}); "
                         "leave 'entk_authors' out of predictors")
    pairs = initial_pairs(env, seeds, n_hidden, n_train, n_test, split, large_scaling)
    net = MultitaskNet.for_environment(env, n_hidden)
    weights = params_of(pairs, "params_initial")

    def one_network(p: int, i: int) -> dict:
        params = {k: jnp.asarray(v[p, i]) for k, v in weights.items()}
        structure = network_structure(net, params, pairs["x_train"][p], pairs["y_train"][p], pairs["x_test"][p], names)
        return structure | {f"silhouette/{n}": silhouette_of_loadings(structure[n]) for n in names}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # targets: 9 distinct rows for 12 clusters
        networks = parallel_map(one_network, [(p, i) for p in range(len(seeds)) for i in range(len(INITS))],
                                desc="t=0 structure (networks)")
    per_network = [networks[p * len(INITS):(p + 1) * len(INITS)] for p in range(len(seeds))]
    out = {k: pairs[k] for k in ("stimulus_train", "tasks_train")}
    for n in names:
        out[f"loadings/{n}"] = np.array([[net_[n] for net_ in row] for row in per_network], dtype=np.float32)
        out[f"silhouette/{n}"] = np.array([[net_[f"silhouette/{n}"] for net_ in row] for row in per_network])
    out["limit_error"] = np.array([[net_["limit_error"] for net_ in row] for row in per_network])
    return out


PAIR_STRUCTURE = "pair_initial_structure"  # the results-cache name of one pair's t=0 structure for one predictor
PAIR_KEYS = ("stimulus_train", "tasks_train", "limit_error")  # what every predictor's entry of a pair also holds


def pair_structure_parameters(env: TaskEnvironment, seed: int, n_hidden: int, split: str, large_scaling: str,
                              predictor: str) -> dict:
    """The results-cache parameters of pair ``seed``'s t=0 structure for ``predictor``."""
    return dict(env=environment_key(env), seed=int(seed), n_hidden=n_hidden, split=split,
                large_scaling=large_scaling, predictor=predictor, version=1)


def cached_initial_structure(env: TaskEnvironment, seeds, n_hidden: int = 200, split: str = "iid",
                             large_scaling: str = "both_layers",
                             predictors=LOADING_PREDICTORS) -> dict[str, np.ndarray]:
    """:func:`run_initial_structure` through the on-disk results cache, one entry per pair and
    predictor (:data:`PAIR_STRUCTURE`), so a chapter that needs other seeds or other predictors than
    an earlier one computes only the pairs and predictors missing (a pair's structure does not depend
    on the other seeds asked for: the same numbers as one :func:`run_initial_structure` call).

    The missing entries are computed in one :func:`run_initial_structure` call per set of missing
    predictors (every network of those pairs in parallel); another process computing the same entry
    meanwhile is waited for (:func:`lib.core.results.cached`). Returns what
    :func:`run_initial_structure` returns for ``seeds`` and ``predictors``."""
    from ..core import results

    seeds = check_seeds("seeds", seeds)
    names = [check_choice("predictors[]", p, LOADING_PREDICTORS) for p in check_names("predictors", predictors)]
    if not names:
        raise ValueError(f"predictors must name at least one of {list(LOADING_PREDICTORS)}")
    distinct = list(dict.fromkeys(seeds))

    def key(seed: int, name: str) -> dict:
        return pair_structure_parameters(env, seed, n_hidden, split, large_scaling, name)

    found = {(s, n): results.load(PAIR_STRUCTURE, key(s, n), computed_by=__name__) for s in distinct for n in names}
    missing: dict[tuple[str, ...], list[int]] = {}
    for s in distinct:
        absent = tuple(n for n in names if found[s, n] is None)
        if absent:
            missing.setdefault(absent, []).append(s)
    for absent, missing_seeds in missing.items():
        computed = run_initial_structure(env, missing_seeds, n_hidden, split=split, large_scaling=large_scaling,
                                         predictors=absent)
        for p, s in enumerate(missing_seeds):
            for n in absent:
                found[s, n] = results.cached(PAIR_STRUCTURE, key(s, n), lambda p=p, n=n: {
                    **{k: computed[k][p] for k in PAIR_KEYS}, "loadings": computed[f"loadings/{n}"][p],
                    "silhouette": computed[f"silhouette/{n}"][p]}, computed_by=__name__)
    first = {s: found[s, names[0]] for s in distinct}
    out = {k: np.stack([first[s][k] for s in seeds]) for k in PAIR_KEYS}
    for n in names:
        out[f"loadings/{n}"] = np.stack([found[s, n]["loadings"] for s in seeds])
        out[f"silhouette/{n}"] = np.stack([found[s, n]["silhouette"] for s in seeds])
    return out


def shares_explained(structure: dict, of: str, by: tuple[str, ...]) -> dict[str, np.ndarray]:
    """control -> (P, 2) share of the variance of ``loadings/<of>`` explained by ``loadings/<control>``
    (:func:`explained_share`, averaged over outputs) for every network of an
    :func:`run_initial_structure` result. The loadings must be finite."""
    by = check_names("by", by)
    shape = None
    for name in (of, *by):
        key = f"loadings/{name}"
        if key not in structure:
            raise ValueError(f"structure has no {key!r} (of and by name predictors); it holds "
                             f"{sorted(k for k in structure if k.startswith('loadings/'))}")
        array = np.asarray(structure[key])
        shape = array.shape if shape is None else shape
        if array.ndim != 4 or array.shape != shape:
            raise ValueError(f"structure[{key!r}] must be (P, 2, N, K) like structure['loadings/{of}'] {shape}, got "
                             f"shape {array.shape}")
        check_finite(f"structure[{key!r}]", array)
    target = structure[f"loadings/{of}"]
    return {name: np.array([[np.nanmean(explained_share(target[p, i], structure[f"loadings/{name}"][p, i]))
                             for i in range(target.shape[1])] for p in range(target.shape[0])])
            for name in by}


def shuffle_tests(loadings: np.ndarray, labels: list[np.ndarray], n_permutations: int = 1000,
                  seed: int = 0) -> dict[str, np.ndarray]:
    """:func:`eta_squared_permutation` for every network: ``loadings`` (P, 2, N, K), ``labels[p]``
    (N,) the factor of pair p's patterns. Returns ``observed``, ``null_95`` (95th percentile of the
    null) and ``p``, each (P, 2)."""
    check_ndim("loadings", np.asarray(loadings), 4, "(P pairs, 2 inits, N patterns, K outputs)")
    if isinstance(labels, np.ndarray) and labels.ndim == 1 or len(labels) != len(loadings):
        raise ValueError(f"labels must be a list of one (N,) label array per pair ({len(loadings)}), got "
                         f"{type(labels).__name__} of length {len(labels)}")
    for p, pair_labels in enumerate(labels):
        check_labels(f"labels[{p}]", pair_labels, size=np.shape(loadings)[2], rows_of=f"loadings[{p}, i]")
    check_finite("loadings", np.asarray(loadings))
    out = {"observed": [], "null_95": [], "p": []}
    for p, pair in enumerate(loadings):
        rows = [eta_squared_permutation(net, labels[p], n_permutations, seed) for net in pair]
        out["observed"].append([r[0] for r in rows])
        out["null_95"].append([float(np.percentile(r[1], 95)) for r in rows])
        out["p"].append([r[2] for r in rows])
    return {k: np.array(v) for k, v in out.items()}
