"""Analyses of the streamed eNTK/ePNTK runs of :mod:`lib.experiments.kernel_dynamics` (the chapter "The eNTK
over training"): when the t=0 kernel stops describing learning, which training patterns the
learned change comes from, and whether the ePNTK predicts the learned representation.

All functions take the arrays of :func:`lib.experiments.kernel_dynamics.run_kernel_dynamics` (leading axes
pairs x 2 inits, then snapshots where recorded, then the index set) and return numpy arrays
or tidy :class:`pandas.DataFrame` tables; nothing here trains or computes kernels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from .checks import as_array, check_cluster_count, check_finite, check_iterations, check_level, check_ndim, check_real
from ..core.entk_variants import ENTK_VARIANTS
from ..core.kernel_statistics import centered_cosine_similarity
from ..core.models import INITS
from ..core.validation import check_choice, check_int, check_seed


def first_below(iterations: np.ndarray, curves: np.ndarray, threshold: float) -> np.ndarray:
    """(...,) first iteration after 0 at which ``curves`` (..., S >= 2) is below ``threshold``; nan if
    never. A NaN entry of a curve (a similarity undefined at that snapshot) counts as not below."""
    if np.ndim(curves) < 1 or np.shape(curves)[-1] < 2:
        raise ValueError(f"curves must be an array (..., S >= 2 snapshots), got shape {np.shape(curves)}")
    check_iterations("iterations", iterations, np.shape(curves)[-1], "curves")
    check_real("threshold", threshold)
    below = np.asarray(curves)[..., 1:] < threshold
    first = np.argmax(below, axis=-1)
    return np.where(below.any(axis=-1), np.asarray(iterations)[1:][first], np.nan)


def upper_triangle(similarity: np.ndarray) -> np.ndarray:
    """(..., G (G - 1) / 2) the entries above the diagonal of (..., G, G) matrices."""
    _check_square("similarity", similarity)
    rows, cols = np.triu_indices(similarity.shape[-1], k=1)
    return similarity[..., rows, cols]


def _check_square(name: str, similarity) -> None:
    if np.ndim(similarity) < 2 or np.shape(similarity)[-1] != np.shape(similarity)[-2]:
        raise ValueError(f"{name} must be an array of square (..., G, G) matrices, got shape {np.shape(similarity)}")


def rsa(similarity_a: np.ndarray, similarity_b: np.ndarray) -> np.ndarray:
    """(...,) representational similarity: Spearman rank correlation of the off-diagonal entries
    of two (..., G, G) similarity matrices (leading axes broadcast); nan where either is constant or
    holds a NaN or infinite entry (undefined), a legitimate result."""
    _check_square("similarity_a", similarity_a)
    _check_square("similarity_b", similarity_b)
    shape_a, shape_b = np.shape(similarity_a), np.shape(similarity_b)
    if shape_a[-1] != shape_b[-1]:
        raise ValueError(f"similarity_a and similarity_b must compare the same G groups, got shapes {shape_a} and {shape_b}")
    try:
        np.broadcast_shapes(shape_a[:-2], shape_b[:-2])
    except ValueError:
        raise ValueError(f"similarity_a and similarity_b must have broadcastable leading axes, got shapes {shape_a} and "
                         f"{shape_b}") from None
    a, b = upper_triangle(np.asarray(similarity_a)), upper_triangle(np.asarray(similarity_b))
    a, b = np.broadcast_arrays(a, b)
    out = np.full(a.shape[:-1], np.nan)
    for index in np.ndindex(out.shape):
        x, y = a[index], b[index]
        if np.isfinite(x).all() and np.isfinite(y).all() and np.ptp(x) > 0 and np.ptp(y) > 0:
            out[index] = scipy_stats.spearmanr(x, y).statistic
    return out


def cluster_labels(features: np.ndarray, n_clusters: int, seed: int = 0) -> np.ndarray:
    """(G,) k-means clusters of the rows of (G, F) ``features`` in the geometry of
    :func:`~lib.core.kernel_statistics.centered_cosine_similarity` (centered, unit-norm rows).
    ``features`` must be finite, with at least ``n_clusters`` rows."""
    check_int("n_clusters", n_clusters, minimum=2)
    check_ndim("features", np.asarray(features), 2, "(G groups, F features)")
    check_cluster_count("n_clusters", n_clusters, np.shape(features)[0], "features", minimum=2)
    check_finite("features", np.asarray(features))
    check_seed("seed", seed)
    centered = features - features.mean(axis=0, keepdims=True)
    norms = np.linalg.norm(centered, axis=1, keepdims=True)
    unit = centered / np.where(norms > 0, norms, 1.0)
    return KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(unit.astype(np.float64))


def cluster_agreement(features_a: np.ndarray, features_b: np.ndarray, n_clusters: int, seed: int = 0) -> float:
    """Adjusted Rand index between the k-means clusters of two feature sets (G, F_a) and (G, F_b) of
    the same G groups."""
    if np.ndim(features_a) != 2 or np.ndim(features_b) != 2 or np.shape(features_a)[0] != np.shape(features_b)[0]:
        raise ValueError(f"features_a and features_b must be 2-D arrays (G groups, F) of the same groups, got shapes "
                         f"{np.shape(features_a)} and {np.shape(features_b)}")
    return float(adjusted_rand_score(cluster_labels(features_a, n_clusters, seed),
                                     cluster_labels(features_b, n_clusters, seed)))


# what may predict the trained network's hidden-layer task similarity: kernel task profiles
# (lib.core.kernel_statistics.task_profiles) of the final ePNTK and of the t=0 eNTK (kernel, side),
# and the untrained hidden layer (None)
REPRESENTATION_PREDICTORS = {"final ePNTK, training-pattern side": ("path_final", "columns"),
                             "final ePNTK, evaluated-pattern side": ("path_final", "rows"),
                             "t=0 eNTK, training-pattern side": ("entk_initial", "columns"),
                             "t=0 eNTK, evaluated-pattern side": ("entk_initial", "rows"),
                             "hidden layer at t=0 (control)": None}


def predictor_features(result: dict, predictor: str, index_set: str) -> np.ndarray:
    """(P, 2, G, F) task features of a :data:`REPRESENTATION_PREDICTORS` entry on the rows of
    ``index_set``."""
    check_choice("predictor", predictor, REPRESENTATION_PREDICTORS)
    i = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    if REPRESENTATION_PREDICTORS[predictor] is None:
        return result["hidden_initial"][:, :, i]
    kernel, side = REPRESENTATION_PREDICTORS[predictor]
    return result[f"profiles/{kernel}/{side}/{index_set}"]


def representation_agreement(result: dict, index_set: str, n_clusters=(3, 4)) -> dict[str, np.ndarray]:
    """Agreement of each predictor in :data:`REPRESENTATION_PREDICTORS` with the trained network's
    task similarity (task-mean hidden activity on the rows of ``index_set``): ``rsa/<predictor>``
    and ``ari<c>/<predictor>`` for each cluster count c, each (P, 2)."""
    i = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    if isinstance(n_clusters, (str, bytes)) or not hasattr(n_clusters, "__iter__"):
        raise ValueError(f"n_clusters must be a list of cluster counts (e.g. (3, 4)), got {n_clusters!r}")
    n_clusters = tuple(n_clusters)
    for j, c in enumerate(n_clusters):
        check_int(f"n_clusters[{j}]", c, minimum=2)
    hidden = result["hidden_final"][:, :, i]  # (P, 2, G, H)
    target = np.vectorize(centered_cosine_similarity, signature="(g,f)->(g,g)")(hidden)
    out = {}
    for name in REPRESENTATION_PREDICTORS:
        features = predictor_features(result, name, index_set)
        similarity = np.vectorize(centered_cosine_similarity, signature="(g,f)->(g,g)")(features)
        out[f"rsa/{name}"] = rsa(similarity, target)
        for c in n_clusters:
            out[f"ari{c}/{name}"] = np.array([[cluster_agreement(features[p, j], hidden[p, j], c)
                                               for j in range(2)] for p in range(len(features))])
    return out


def rsa_over_training(result: dict, index_set: str, side: str = "columns") -> dict[str, np.ndarray]:
    """(P, 2, S) RSA between the hidden layer's task similarity at each snapshot and that implied
    (on ``side``) by the ePNTK so far (``"ePNTK(t)"``) or by the t=0 eNTK (``"eNTK at t=0"``)."""
    i = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    check_choice("side", side, ("rows", "columns"))
    hidden = result["hidden_similarity"][:, :, :, i]  # (P, 2, S, G, G)
    initial = np.vectorize(centered_cosine_similarity, signature="(g,f)->(g,g)")(
        result[f"profiles/entk_initial/{side}/{index_set}"])
    return {"ePNTK(t)": rsa(result[f"kernel_similarity_{side}"][:, :, :, i], hidden),
            "eNTK at t=0": rsa(initial[:, :, None], hidden)}


def mean_sd(values: np.ndarray, digits: int = 2) -> str:
    """'mean ± sd' over the first axis (pairs), ignoring nan (a legitimate value, e.g. an RSA that is
    undefined for a pair): 'nan ± 0.00' if no value is finite, sd 0 if only one is."""
    check_int("digits", digits, minimum=0)
    values = np.asarray(values, dtype=np.float64)
    return f"{np.nanmean(values):.{digits}f} ± {np.nanstd(values, ddof=1) if np.isfinite(values).sum() > 1 else 0:.{digits}f}"


def paired_interval(differences: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): t-interval at ``level`` in (0, 1) of the mean of paired differences (P,) over
    pairs. NaN and infinite differences are left out (pairs where the quantity is undefined); with
    fewer than 2 left the bounds are nan (and the mean too with none)."""
    check_level("level", level)
    d = check_ndim("differences", as_array("differences", differences), 1, "(P pairs,)")
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return float(np.mean(d)) if len(d) else float("nan"), float("nan"), float("nan")
    half = scipy_stats.t.ppf(0.5 + level / 2, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def window_table(results: dict[str, dict], index_set: str, threshold: float) -> pd.DataFrame:
    """Per schedule and init: the first iteration at which the mean over outputs of each
    similarity to the t=0 eNTK falls below ``threshold`` (median and range over pairs; "never"
    if it does not within training), as a fraction of training too."""
    i = ENTK_VARIANTS.index(check_choice("index_set", index_set, ENTK_VARIANTS))
    check_real("threshold", threshold)
    measures = {"alignment of eNTK(t) with eNTK(0)": "alignment_initial",
                "overlap of leading vectors, eNTK(t) vs eNTK(0)": "overlap_initial",
                "alignment of the ePNTK so far with eNTK(0)": "alignment_path_initial"}
    rows = []
    for schedule, result in results.items():
        iterations = result["iterations"]
        for j, init in enumerate(INITS):
            for label, key in measures.items():
                crossing = first_below(iterations, result[key][:, j, :, i].mean(axis=-1), threshold)
                never = np.isnan(crossing).sum()
                median = np.nanmedian(crossing) if never < len(crossing) else np.nan
                rows.append({"schedule": schedule, "init": init, "measure": label,
                             "median iteration": "never" if np.isnan(median) else f"{median:.0f}",
                             "fraction of training": "-" if np.isnan(median) else f"{median / iterations[-1]:.1%}",
                             "pairs that never drop": f"{never} of {len(crossing)}", "_median": median,
                             "_fraction": median / iterations[-1]})
    return pd.DataFrame(rows)
