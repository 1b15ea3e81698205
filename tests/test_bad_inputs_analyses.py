"""Bad inputs to the public functions of lib.analyses stop at the entry with a ValueError that names
the argument (before: a NaN or garbage result, or an error from deep inside NumPy, scikit-learn or
JAX naming nothing the caller passed), while the NaN results that are legitimate answers stay."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.analyses import controls, entk_vectors, kernel_analysis, partitions, representations, stats
from lib.analyses.mphate import embed_over_time
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment

ENV = TaskEnvironment()
RNG = np.random.default_rng(0)
PAIRS, OTHER = RNG.normal(size=(6, 2)), RNG.normal(size=(6, 2))
ITERATIONS = np.array([0, 10, 20, 30])
LOSSES = RNG.uniform(1, 2, size=(5, 2, 4))
POINTS = RNG.normal(size=(12, 4))
LOADINGS = RNG.normal(size=(50, 3))
LABELS = np.repeat(np.arange(5), 10)
MATRIX = RNG.normal(size=(8, 6))
HIDDEN = RNG.normal(size=(1, 2, 3, 69, 5))
SIMILARITY = np.corrcoef(RNG.normal(size=(12, 20)))
FEATURES = RNG.normal(size=(12, 6))
NET = MultitaskNet.for_environment(ENV, 10)
TRAIN = ENV.make_data(0, 30, 10)[0]
X, Y = np.asarray(TRAIN.x), np.asarray(TRAIN.y)


def with_nan(array, index=(1, 1)):
    array = np.array(array, dtype=np.float64)
    array[index] = np.nan
    return array


def with_inf(array, index=(0, 0)):
    array = np.array(array, dtype=np.float64)
    array[index] = np.inf
    return array


def params():
    return NET.init(jax.random.PRNGKey(0), weight_range=0.5, dtype=jnp.float64)


def schedules(**changes):
    entry = {"silhouette": PAIRS, "single": OTHER, "finetune": OTHER + 1} | changes
    return {"ET": entry}


def kernel_result():
    result = {"hidden_final": RNG.normal(size=(2, 2, 2, 12, 7)), "hidden_initial": RNG.normal(size=(2, 2, 2, 12, 7)),
              "sharing_signed": RNG.uniform(size=(2, 2, 3, 2, 4)),
              "sharing_pattern_fraction": RNG.uniform(size=(2, 2, 2, 4)), "iterations": np.arange(5) * 10}
    for key in ("alignment_initial", "overlap_initial", "alignment_path_initial"):
        result[key] = RNG.uniform(size=(2, 2, 5, 3, 2))
    for kernel, side in filter(None, kernel_analysis.REPRESENTATION_PREDICTORS.values()):
        result[f"profiles/{kernel}/{side}/principled"] = RNG.normal(size=(2, 2, 12, 5))
    return result


def derived_task(labels=None, parts=None):
    labels = np.tile(np.arange(12) // 3, (1, 2, 1)) if labels is None else labels
    return {"task": (labels, np.full((1, 2), 4) if parts is None else parts)}


# (id, call, the argument the message must name); every case was a confusing error, a crash or a
# silently wrong (NaN or garbage) result before these checks
CASES = [
    # stats
    ("pearson: empty", lambda: stats.pearson([], []), "x and y must hold at least 2"),
    ("pearson: one point", lambda: stats.pearson([1.0], [2.0]), "x and y must hold at least 2"),
    ("pearson: NaN", lambda: stats.pearson(with_nan(PAIRS), OTHER), "x must be finite"),
    ("pearson: inf", lambda: stats.pearson(PAIRS, with_inf(OTHER)), "y must be finite"),
    ("relative_to_partner: strings", lambda: stats.relative_to_partner([["a", "b"], ["c", "d"]]), "values must be"),
    ("init_label: negative", lambda: stats.init_label(-1), "n_pairs"),
    ("init_label: float", lambda: stats.init_label(2.5), "n_pairs"),
    ("bootstrap_ci: pairs differ", lambda: stats.bootstrap_ci(PAIRS, OTHER[:4], 200), "x and y must hold the same pairs"),
    ("bootstrap_ci: NaN", lambda: stats.bootstrap_ci(with_nan(PAIRS), OTHER, 200), "x must be finite"),
    ("bootstrap_ci: inf", lambda: stats.bootstrap_ci(PAIRS, with_inf(OTHER), 200), "y must be finite"),
    ("bootstrap_ci: negative seed", lambda: stats.bootstrap_ci(PAIRS, OTHER, 200, seed=-1), "seed"),
    ("bootstrap_ci: float seed", lambda: stats.bootstrap_ci(PAIRS, OTHER, 200, seed=1.5), "seed"),
    ("bootstrap_ci: level 0", lambda: stats.bootstrap_ci(PAIRS, OTHER, 200, level=0), "level"),
    ("bootstrap_ci: level 95", lambda: stats.bootstrap_ci(PAIRS, OTHER, 200, level=95), "level"),
    ("bootstrap_ci: level nan", lambda: stats.bootstrap_ci(PAIRS, OTHER, 200, level=float("nan")), "level"),
    ("permutation: NaN", lambda: stats.permutation_within_condition(PAIRS, with_nan(OTHER), 200), "y must be finite"),
    ("permutation: seed", lambda: stats.permutation_within_condition(PAIRS, OTHER, 200, seed=0.5), "seed"),
    ("within_condition: NaN", lambda: stats.within_condition(with_nan(PAIRS), OTHER), "x must be finite"),
    ("correlation_report: pairs differ", lambda: stats.correlation_report(PAIRS, OTHER[:5], 200),
     "predictor and outcome must hold the same pairs"),
    ("correlation_report: NaN", lambda: stats.correlation_report(PAIRS, with_nan(OTHER), 200), "outcome must be finite"),
    ("correlation_report: seed", lambda: stats.correlation_report(PAIRS, OTHER, 200, seed=-3), "seed"),
    ("correlation_table: empty", lambda: stats.correlation_table({}, 200), "by_schedule must be a non-empty"),
    ("correlation_table: missing key", lambda: stats.correlation_table(schedules(), 200, predictor="ntk"),
     r"by_schedule\['ET'\] must be a dict"),
    ("correlation_table: not a dict", lambda: stats.correlation_table({"ET": PAIRS}, 200), r"by_schedule\['ET'\]"),
    ("correlation_table: shapes differ", lambda: stats.correlation_table(schedules(silhouette=PAIRS[:4]), 200),
     r"by_schedule\['ET'\] must hold arrays of one shape"),
    ("correlation_table: NaN", lambda: stats.correlation_table(schedules(single=with_nan(OTHER)), 200),
     r"by_schedule\['ET'\]\['single'\] must be finite"),
    ("rival_correlations: one string", lambda: stats.rival_correlations(schedules(), "silhouette", 200),
     "predictors must be a list"),
    ("rival_correlations: empty", lambda: stats.rival_correlations({}, ["silhouette"], 200), "by_schedule"),
    ("paired_trajectory_summary: 2-D", lambda: stats.paired_trajectory_summary(ITERATIONS, LOSSES[..., 0]), "losses"),
    ("paired_trajectory_summary: 3 inits", lambda: stats.paired_trajectory_summary(ITERATIONS, np.ones((5, 3, 4))),
     "losses"),
    ("paired_trajectory_summary: one snapshot", lambda: stats.paired_trajectory_summary(ITERATIONS[:1], LOSSES[..., :1]),
     "losses"),
    ("paired_trajectory_summary: no pairs", lambda: stats.paired_trajectory_summary(ITERATIONS, LOSSES[:0]), "losses"),
    ("paired_trajectory_summary: iterations long", lambda: stats.paired_trajectory_summary(np.arange(10), LOSSES),
     "iterations"),
    ("paired_trajectory_summary: NaN", lambda: stats.paired_trajectory_summary(ITERATIONS, with_nan(LOSSES, (0, 0, 3))),
     "losses must be finite"),
    ("first_iteration_below: iterations long", lambda: stats.first_iteration_below(np.arange(8), LOSSES, 0.9),
     "iterations"),
    ("first_iteration_below: iterations short", lambda: stats.first_iteration_below(ITERATIONS[:3], LOSSES, 0.9),
     "iterations"),
    ("first_iteration_below: fraction nan", lambda: stats.first_iteration_below(ITERATIONS, LOSSES, float("nan")),
     "fraction"),
    ("first_iteration_below: fraction negative", lambda: stats.first_iteration_below(ITERATIONS, LOSSES, -1), "fraction"),
    ("first_iteration_below: fraction string", lambda: stats.first_iteration_below(ITERATIONS, LOSSES, "half"),
     "fraction"),
    ("first_iteration_below: no snapshots", lambda: stats.first_iteration_below(ITERATIONS[:0], LOSSES[..., :0], 0.5),
     "curves"),
    ("first_iteration_below: NaN", lambda: stats.first_iteration_below(ITERATIONS, with_nan(LOSSES, (0, 0, 0)), 0.5),
     "curves must be finite"),
    ("relative_to_start: zero start", lambda: stats.relative_to_start([[0.0, 1.0]]), "curves must start"),
    ("relative_to_start: NaN start", lambda: stats.relative_to_start([[np.nan, 1.0]]), "curves must start"),
    ("relative_to_start: scalar", lambda: stats.relative_to_start(3.0), "curves"),
    ("relative_loss_area: no snapshots", lambda: stats.relative_loss_area(np.ones((3, 0))), "curves"),
    ("relative_loss_area: NaN", lambda: stats.relative_loss_area([[1.0, np.nan, 2.0]]), "curves must be finite"),
    # representations
    ("group_labels: not a Dataset", lambda: representations.group_labels(ENV, np.ones((3, 4)), "task"), "data must be"),
    ("averaging_matrix: negative label", lambda: representations.averaging_matrix(np.array([0, -1, 1]), 2), "labels"),
    ("averaging_matrix: label >= n_groups", lambda: representations.averaging_matrix(np.array([0, 1, 2]), 2), "labels"),
    ("averaging_matrix: float labels", lambda: representations.averaging_matrix(np.array([0.0, 1.0]), 2), "labels"),
    ("averaging_matrix: n_groups negative", lambda: representations.averaging_matrix(np.array([0, 1]), -1), "n_groups"),
    ("averaging_matrix: 2-D labels", lambda: representations.averaging_matrix(np.array([[0, 1], [1, 0]]), 2), "labels"),
    ("variance_explained: lengths differ", lambda: representations.variance_explained(np.arange(4.0), np.array([0, 1, 1])),
     "labels"),
    ("variance_explained: negative labels",
     lambda: representations.variance_explained(np.arange(4.0), np.array([0, -1, 1, 0])), "labels"),
    ("variance_explained: NaN", lambda: representations.variance_explained(with_nan([1.0, 2.0, 3.0, 4.0], 1),
                                                                           np.array([0, 0, 1, 1])), "values must be finite"),
    ("variance_explained: empty", lambda: representations.variance_explained(np.array([]), np.array([], int)), "values"),
    ("variance_explained: 2-D", lambda: representations.variance_explained(np.ones((4, 2)), np.array([0, 0, 1, 1])),
     "values"),
    ("loading_factors: multitask", lambda: representations.loading_factors(ENV, ENV.all_patterns(True)),
     "data must hold single-task"),
    ("loading_variance_explained: 1-D", lambda: representations.loading_variance_explained(
        np.ones(972), representations.loading_factors(ENV, ENV.all_patterns())), "loadings"),
    ("loading_variance_explained: factor length", lambda: representations.loading_variance_explained(
        RNG.normal(size=(500, 9)), representations.loading_factors(ENV, ENV.all_patterns())), r"factors\['feature'\]"),
    ("loading_variance_explained: NaN", lambda: representations.loading_variance_explained(
        with_nan(RNG.normal(size=(972, 9)), (3, 2)), representations.loading_factors(ENV, ENV.all_patterns())),
     "loadings must be finite"),
    ("split_groupings: 60 groups", lambda: representations.split_groupings(ENV, HIDDEN[..., :60, :]), "hidden_groups"),
    ("entk_partitions: 3-D loadings", lambda: representations.entk_partitions(
        ENV, np.ones((2, 972, 9)), ENV.all_patterns().stimulus[None], ENV.all_patterns().tasks[None], "task"), "loadings"),
    ("entk_partitions: pairs differ", lambda: representations.entk_partitions(
        ENV, np.ones((2, 2, 972, 9)), ENV.all_patterns().stimulus[None], ENV.all_patterns().tasks[None], "task"),
     "stimulus"),
    ("entk_partitions: NaN", lambda: representations.entk_partitions(
        ENV, with_nan(np.ones((1, 2, 972, 9)), (0, 0, 0, 0)), ENV.all_patterns().stimulus[None],
        ENV.all_patterns().tasks[None], "task"), "loadings must be finite"),
    ("ari_curves: 60 groups", lambda: representations.ari_curves(ENV, HIDDEN[..., :60, :]), "hidden_groups"),
    ("ari_curves: 4-D", lambda: representations.ari_curves(ENV, HIDDEN[0]), "hidden_groups"),
    ("ari_curves: NaN", lambda: representations.ari_curves(ENV, with_nan(HIDDEN, (0, 0, 0, 0, 0))),
     "hidden_groups must be finite"),
    ("ari_curves: seed", lambda: representations.ari_curves(ENV, HIDDEN, seed=-1), "seed"),
    ("ari_curves: derived parts shape", lambda: representations.ari_curves(
        ENV, HIDDEN, derived_task(parts=np.full((1,), 4))), r"derived\['task'\] parts"),
    ("ari_curves: derived parts > G", lambda: representations.ari_curves(
        ENV, HIDDEN, derived_task(parts=np.full((1, 2), 20))), r"derived\['task'\] parts"),
    ("ari_curves: derived labels G", lambda: representations.ari_curves(
        ENV, HIDDEN, derived_task(labels=np.zeros((1, 2, 9), int))), r"derived\['task'\] labels"),
    ("ari_curves: derived not a pair", lambda: representations.ari_curves(ENV, HIDDEN, {"task": np.full((1, 2), 3)}),
     r"derived\['task'\] must be a pair"),
    ("cached_mphate: 3 inits", lambda: representations.cached_mphate(ENV, np.ones((3, 30, 69, 5)), {}),
     "hidden_groups_pair"),
    ("cached_mphate: all pairs", lambda: representations.cached_mphate(ENV, HIDDEN, {}), "hidden_groups_pair"),
    ("task_distance_ratios: 9 tasks", lambda: representations.task_distance_ratios(ENV, np.ones((9, 5))), "task_means"),
    ("task_distance_ratios: NaN", lambda: representations.task_distance_ratios(ENV, with_nan(RNG.normal(size=(12, 5)))),
     "task_means must be finite"),
    ("onset: lengths differ", lambda: representations.onset(np.array([0, 100, 200]), np.array([0.0, 0.6])), "iterations"),
    ("onset: 2-D curve", lambda: representations.onset(np.array([0, 100]), np.ones((2, 2))), "curve"),
    ("onset: level nan", lambda: representations.onset(np.array([0, 100]), np.array([0.0, 1.0]), float("nan")), "level"),
    ("onset: empty", lambda: representations.onset(np.array([]), np.array([])), "curve"),
    ("onset: NaN", lambda: representations.onset(np.arange(3), np.array([0.0, np.nan, 0.8])), "curve must be finite"),
    # entk_vectors
    ("leading_vector: 1-D", lambda: entk_vectors.leading_vector(np.ones(5)), "matrix"),
    ("leading_vector: 3-D", lambda: entk_vectors.leading_vector(np.ones((2, 3, 3))), "matrix"),
    ("leading_vector: empty", lambda: entk_vectors.leading_vector(np.ones((0, 5))), "matrix"),
    ("leading_vector: NaN", lambda: entk_vectors.leading_vector(with_nan(MATRIX)), "matrix must be finite"),
    ("leading_vector: inf", lambda: entk_vectors.leading_vector(with_inf(MATRIX)), "matrix must be finite"),
    ("leading_vector: NaN, authors", lambda: entk_vectors.leading_vector(with_nan(MATRIX[:6]), "authors"),
     "matrix must be finite"),
    ("leading_vector: NaN, ARPACK", lambda: entk_vectors.leading_vector(with_nan(np.ones((60, 60)))),
     "matrix must be finite"),
    ("leading_vector: authors and left", lambda: entk_vectors.leading_vector(MATRIX[:6], "authors", "left"), "side"),
    ("leading_vector: complex", lambda: entk_vectors.leading_vector(MATRIX + 1j), "matrix must be a real"),
    ("leading_singular_pair: NaN", lambda: entk_vectors.leading_singular_pair(np.full((4, 4), np.nan)), "matrix"),
    ("leading_vectors: 2-D", lambda: entk_vectors.leading_vectors(MATRIX), "entk"),
    ("leading_vectors: no outputs", lambda: entk_vectors.leading_vectors(np.ones((0, 5, 5))), "entk"),
    ("leading_vectors: NaN", lambda: entk_vectors.leading_vectors(np.full((2, 5, 5), np.nan)), "entk must be finite"),
    ("silhouette: more clusters than rows", lambda: entk_vectors.silhouette_of_loadings(LOADINGS[:5]),
     "n_clusters must be an integer >= 2 and <= 4"),
    ("silhouette: clusters == rows", lambda: entk_vectors.silhouette_of_loadings(LOADINGS[:12]),
     "n_clusters must be an integer >= 2 and <= 11"),
    ("silhouette: 1-D", lambda: entk_vectors.silhouette_of_loadings(LOADINGS[:, 0]), "loadings"),
    ("silhouette: NaN", lambda: entk_vectors.silhouette_of_loadings(with_nan(LOADINGS)), "loadings must be finite"),
    ("silhouette: seed", lambda: entk_vectors.silhouette_of_loadings(LOADINGS, seed=-1), "seed"),
    ("silhouette: identical rows", lambda: entk_vectors.silhouette_of_loadings(np.ones((40, 3))),
     "loadings has fewer than 2 distinct rows"),
    ("loglog_slope: NaN", lambda: entk_vectors.loglog_slope([1.0, 2.0, 4.0], [1.0, np.nan, 3.0]), "y holds"),
    ("loglog_slope: inf", lambda: entk_vectors.loglog_slope([1.0, np.inf, 4.0], [1.0, 2.0, 3.0]), "x holds"),
    ("loglog_slope: equal x", lambda: entk_vectors.loglog_slope([2.0, 2.0], [1.0, 2.0]), "x must hold at least 2 distinct"),
    ("loglog_slope: 2-D", lambda: entk_vectors.loglog_slope(np.full((2, 2), 2.0), np.ones((2, 2))), "1-D"),
    # controls
    ("small_weight_entk: width", lambda: controls.small_weight_entk(NET, X[:, :10], X, Y), "x_eval"),
    ("small_weight_entk: rows", lambda: controls.small_weight_entk(NET, X, X, Y[:20]), "y_train"),
    ("small_weight_entk: outputs", lambda: controls.small_weight_entk(NET, X, X, Y[:, :5]), "y_train"),
    ("small_weight_entk: 1-D", lambda: controls.small_weight_entk(NET, X, X[0], Y), "x_train"),
    ("small_weight_entk: NaN", lambda: controls.small_weight_entk(NET, X, X, with_nan(Y)), "y_train must be finite"),
    ("loss_sensitivity: rows", lambda: controls.loss_sensitivity(NET, params(), X, Y[:20]), "y must have shape"),
    ("loss_sensitivity: width", lambda: controls.loss_sensitivity(NET, params(), X[:, :10], Y), "x must have 24"),
    ("loss_sensitivity: NaN x", lambda: controls.loss_sensitivity(NET, params(), with_nan(X), Y), "x must be finite"),
    ("loss_sensitivity: NaN params", lambda: controls.loss_sensitivity(
        NET, params() | {"w_output": jnp.full_like(params()["w_output"], jnp.nan)}, X, Y), "params.*must be finite"),
    ("output_error: outputs", lambda: controls.output_error(NET, params(), X, Y[:, :5]), "y must have shape"),
    ("output_error: NaN y", lambda: controls.output_error(NET, params(), X, with_nan(Y)), "y must be finite"),
    ("ntk_loadings: NaN x", lambda: controls.ntk_loadings(NET, params(), with_nan(X)), "x must be finite"),
    ("explained_share: NaN", lambda: controls.explained_share(with_nan(LOADINGS), LOADINGS), "loadings must be finite"),
    ("explained_share: inf", lambda: controls.explained_share(LOADINGS, with_inf(LOADINGS)), "reference must be finite"),
    ("align_signs: NaN", lambda: controls.align_signs(LOADINGS, with_nan(LOADINGS)), "reference must be finite"),
    ("eta_squared: negative labels", lambda: controls.eta_squared_permutation(LOADINGS, LABELS - 1, 100), "labels"),
    ("eta_squared: float labels", lambda: controls.eta_squared_permutation(LOADINGS, LABELS + 0.5, 100), "labels"),
    ("eta_squared: NaN", lambda: controls.eta_squared_permutation(with_nan(LOADINGS), LABELS, 100),
     "values must be finite"),
    ("eta_squared: seed", lambda: controls.eta_squared_permutation(LOADINGS, LABELS, 100, seed=0.5), "seed"),
    ("eta_squared: empty", lambda: controls.eta_squared_permutation(LOADINGS[:0], LABELS[:0], 100), "values"),
    ("network_structure: one string", lambda: controls.network_structure(NET, params(), X, Y, X, "ntk"),
     "predictors must be a list"),
    ("run_initial_structure: one string", lambda: controls.run_initial_structure(ENV, [0], predictors="ntk"),
     "predictors must be a list"),
    ("run_initial_structure: n_train < 13", lambda: controls.run_initial_structure(ENV, [0], 5, 5, 5), "n_train"),
    ("cached_initial_structure: one string", lambda: controls.cached_initial_structure(ENV, [0], predictors="ntk"),
     "predictors must be a list"),
    ("shares_explained: by a string", lambda: controls.shares_explained(
        {"loadings/a": np.ones((1, 2, 4, 3)), "loadings/b": np.ones((1, 2, 4, 3))}, "a", "b"), "by must be a list"),
    ("shares_explained: missing", lambda: controls.shares_explained({"loadings/a": np.ones((1, 2, 4, 3))}, "a", ("x",)),
     "structure has no 'loadings/x'"),
    ("shares_explained: rows differ", lambda: controls.shares_explained(
        {"loadings/a": np.ones((1, 2, 4, 3)), "loadings/b": np.ones((1, 2, 3, 3))}, "a", ("b",)),
     r"structure\['loadings/b'\]"),
    ("shares_explained: NaN", lambda: controls.shares_explained(
        {"loadings/a": with_nan(np.ones((1, 2, 4, 3)), (0, 0, 0, 0)), "loadings/b": np.ones((1, 2, 4, 3))}, "a", ("b",)),
     r"structure\['loadings/a'\] must be finite"),
    ("shuffle_tests: too few label arrays", lambda: controls.shuffle_tests(np.ones((2, 2, 10, 3)), [LABELS[:10]], 100),
     "labels must be a list"),
    ("shuffle_tests: one label array", lambda: controls.shuffle_tests(np.ones((2, 2, 10, 3)), LABELS[:10], 100),
     "labels must be a list"),
    ("shuffle_tests: 3-D", lambda: controls.shuffle_tests(np.ones((2, 10, 3)), [LABELS[:10]] * 2, 100), "loadings"),
    # partitions
    ("group_means: label >= n_groups", lambda: partitions.group_means(POINTS, np.arange(12), 3), "labels"),
    ("group_means: negative label", lambda: partitions.group_means(POINTS, np.arange(12) - 1, 12), "labels"),
    ("group_means: float labels", lambda: partitions.group_means(POINTS, np.arange(12) * 1.0, 12), "labels"),
    ("group_means: float n_groups", lambda: partitions.group_means(POINTS, np.zeros(12, int), 2.5), "n_groups"),
    ("group_means: NaN", lambda: partitions.group_means(with_nan(POINTS), np.arange(12) % 2, 2),
     "values must be finite"),
    ("kmeans: 1-D", lambda: partitions.kmeans(POINTS[:, 0], 2), "points"),
    ("kmeans: 3-D", lambda: partitions.kmeans(POINTS[None], 2), "points"),
    ("kmeans: empty", lambda: partitions.kmeans(POINTS[:0], 1), "points"),
    ("kmeans: NaN", lambda: partitions.kmeans(with_nan(POINTS), 3), "points must be finite"),
    ("kmeans: inf", lambda: partitions.kmeans(with_inf(POINTS), 3), "points must be finite"),
    ("kmeans: max_iter 0", lambda: partitions.kmeans(POINTS, 3, max_iter=0), "max_iter"),
    ("kmeans: seed", lambda: partitions.kmeans(POINTS, 3, seed=-1), "seed"),
    ("canonical_labels: 2-D", lambda: partitions.canonical_labels(np.array([[1, 0], [0, 2]])), "labels"),
    ("canonical_labels: NaN", lambda: partitions.canonical_labels(np.array([np.nan, np.nan, 1.0])), "labels"),
    ("derive_partition: seed", lambda: partitions.derive_partition(POINTS, seed=-1), "seed"),
    ("same_partition: lengths differ", lambda: partitions.same_partition([0, 1, 1], [0, 1]), "a and b"),
    ("same_partition: 2-D", lambda: partitions.same_partition(np.array([[0, 1], [1, 0]]), np.array([0, 1, 1, 0])),
     "a and b"),
    ("cluster_over_training: 2-D", lambda: partitions.cluster_over_training(POINTS, 2), "grouped"),
    ("cluster_over_training: NaN", lambda: partitions.cluster_over_training(with_nan(POINTS)[None], 3),
     "grouped must be finite"),
    ("ari_of_clusters: NaN labels", lambda: partitions.ari_of_clusters(np.zeros((3, 4)), np.array([0, np.nan, np.nan, 1])),
     "labels must not hold NaN"),
    # kernel_analysis
    ("first_below: iterations long", lambda: kernel_analysis.first_below(np.arange(8), np.ones((3, 5)), 0.5),
     "iterations"),
    ("first_below: iterations short", lambda: kernel_analysis.first_below(np.arange(3), np.ones((3, 5)), 0.5),
     "iterations"),
    ("first_below: threshold nan", lambda: kernel_analysis.first_below(np.arange(5), np.ones((3, 5)), float("nan")),
     "threshold"),
    ("first_below: threshold string", lambda: kernel_analysis.first_below(np.arange(5), np.ones((3, 5)), "a"),
     "threshold"),
    ("first_below: no snapshots", lambda: kernel_analysis.first_below(np.arange(0), np.ones((3, 0)), 0.5), "curves"),
    ("upper_triangle: (4, 3)", lambda: kernel_analysis.upper_triangle(np.ones((4, 3))), "similarity"),
    ("upper_triangle: 1-D", lambda: kernel_analysis.upper_triangle(np.ones(4)), "similarity"),
    ("rsa: G differs", lambda: kernel_analysis.rsa(SIMILARITY, SIMILARITY[:9, :9]), "similarity_a and similarity_b"),
    ("rsa: leading axes", lambda: kernel_analysis.rsa(np.stack([SIMILARITY] * 3), np.stack([SIMILARITY] * 2)),
     "similarity_a and similarity_b"),
    ("rsa: not square", lambda: kernel_analysis.rsa(SIMILARITY[:, :9], SIMILARITY[:, :9]), "similarity_a"),
    ("cluster_labels: more clusters than groups", lambda: kernel_analysis.cluster_labels(FEATURES[:3], 4),
     "n_clusters must be an integer >= 2 and <= 3"),
    ("cluster_labels: 1-D", lambda: kernel_analysis.cluster_labels(FEATURES[:, 0], 2), "features"),
    ("cluster_labels: NaN", lambda: kernel_analysis.cluster_labels(with_nan(FEATURES), 3), "features must be finite"),
    ("cluster_labels: seed", lambda: kernel_analysis.cluster_labels(FEATURES, 3, seed=0.5), "seed"),
    ("cluster_agreement: G differs", lambda: kernel_analysis.cluster_agreement(FEATURES, FEATURES[:9], 3),
     "features_a and features_b"),
    ("representation_agreement: one int", lambda: kernel_analysis.representation_agreement(
        kernel_result(), "principled", 3), "n_clusters must be a list"),
    ("mean_sd: negative digits", lambda: kernel_analysis.mean_sd(np.ones(3), -1), "digits"),
    ("mean_sd: float digits", lambda: kernel_analysis.mean_sd(np.ones(3), 2.5), "digits"),
    ("paired_interval: level 0", lambda: kernel_analysis.paired_interval(np.array([1.0, 2.0, 3.0]), 0), "level"),
    ("paired_interval: level 1", lambda: kernel_analysis.paired_interval(np.array([1.0, 2.0, 3.0]), 1), "level"),
    ("paired_interval: level 95", lambda: kernel_analysis.paired_interval(np.array([1.0, 2.0, 3.0]), 95), "level"),
    ("paired_interval: 2-D", lambda: kernel_analysis.paired_interval(np.ones((3, 2))), "differences"),
    ("window_table: threshold nan", lambda: kernel_analysis.window_table(
        {"ET": kernel_result()}, "principled", float("nan")), "threshold"),
    ("window_table: iterations differ", lambda: kernel_analysis.window_table(
        {"ET": kernel_result() | {"iterations": np.arange(9)}}, "principled", 0.5), "iterations"),
    # mphate (all checks run before m_phate is imported)
    ("embed_over_time: seed", lambda: embed_over_time(np.ones((30, 6, 8)), seed=-1), "seed"),
    ("embed_over_time: one group", lambda: embed_over_time(np.ones((30, 1, 8))), "activity"),
    ("embed_over_time: no units", lambda: embed_over_time(np.ones((30, 6, 0))), "activity"),
    ("embed_over_time: NaN", lambda: embed_over_time(with_nan(np.ones((30, 6, 8)), (7, 4, 0))),
     "activity must be finite"),
    ("embed_over_time: n_jobs 0", lambda: embed_over_time(np.ones((30, 6, 8)), n_jobs=0), "n_jobs must be a non-zero"),
]


@pytest.mark.parametrize("call, match", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_is_a_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- NaN where it is the answer ---------------------------------------------------------
def test_correlations_of_a_constant_are_nan():
    constant = np.ones((6, 2))
    assert np.isnan(stats.pearson(constant, OTHER))
    assert all(np.isnan(stats.bootstrap_ci(constant, OTHER, 200)))
    assert np.isnan(stats.permutation_within_condition(constant, OTHER, 200)[1])
    report = stats.correlation_report(constant, OTHER, 200)
    assert np.isnan(report["r"]) and np.isnan(report["r_within_standard"]) and np.isfinite(report["r_label"])


def test_never_reached_thresholds_are_nan():
    curves = np.array([[4.0, 3.0, 2.0, 1.0], [4.0, 4.0, 4.0, 3.0]])
    np.testing.assert_array_equal(stats.first_iteration_below(ITERATIONS, curves, 0.5), [20.0, np.nan])
    assert np.isnan(representations.onset(np.array([0, 100]), np.array([0.0, 0.1])))
    with_gap = np.array([[1.0, np.nan, 0.2, 0.1], [1.0, 0.9, 0.8, np.nan]])  # an undefined similarity: not below
    np.testing.assert_array_equal(kernel_analysis.first_below(ITERATIONS, with_gap, 0.5), [20.0, np.nan])


def test_nan_aware_summaries_skip_nan():
    assert kernel_analysis.mean_sd(np.array([1.0, np.nan, 3.0])) == "2.00 ± 1.41"
    assert kernel_analysis.mean_sd(np.array([np.nan, np.nan])) == "nan ± 0.00"
    mean, low, high = kernel_analysis.paired_interval(np.array([1.0, np.nan, 2.0, 3.0]))
    assert mean == 2.0 and low < 2.0 < high
    assert np.isnan(kernel_analysis.paired_interval(np.array([1.0, np.nan]))[1])
    assert np.isnan(kernel_analysis.rsa(np.full((12, 12), np.nan), SIMILARITY))
    assert np.isnan(kernel_analysis.rsa(np.ones((12, 12)), SIMILARITY))


def test_undefined_shares_and_empty_groups_are_nan():
    means = partitions.group_means(POINTS, np.zeros(12, int), 2)
    np.testing.assert_allclose(means[0], POINTS.mean(axis=0))
    assert np.isnan(means[1]).all()
    assert np.isnan(representations.variance_explained(np.ones(4), np.array([0, 0, 1, 1])))
    share = controls.explained_share(np.column_stack([LOADINGS[:, 0], np.ones(50)]), LOADINGS[:, :2])
    assert share[0] == pytest.approx(1.0) and np.isnan(share[1])
    loadings = np.column_stack([np.arange(972.0) % 3, np.ones(972)])  # the constant column is left out
    factors = representations.loading_factors(ENV, ENV.all_patterns())
    assert representations.loading_variance_explained(loadings, factors)["feature"] == pytest.approx(
        representations.variance_explained(loadings[:, 0], factors["feature"]))
    assert np.isnan(representations.task_distance_ratios(ENV, np.ones((12, 5)))["same input pool"])


def test_elementwise_transforms_keep_nan_in_place():
    relative = stats.relative_to_partner(with_nan(PAIRS, (2, 1)))
    assert np.isnan(relative[2]).all() and np.isfinite(np.delete(relative, 2, axis=0)).all()
    scaled = stats.relative_to_start(np.array([[2.0, np.nan, 1.0]]))
    np.testing.assert_array_equal(scaled, [[1.0, np.nan, 0.5]])
