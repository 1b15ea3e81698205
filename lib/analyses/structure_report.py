"""The tables of chapter 04 on the t=0 structure of the multitask network and its hidden layer.

Analyses layer. Every function takes the results the chapter computes elsewhere and returns
arrays or :class:`pandas.DataFrame` tables (cells formatted for the page, columns starting
with ``_`` holding the unformatted numbers):

* ``structure``: a :func:`lib.analyses.controls.cached_initial_structure` result (per predictor
  ``loadings/<name>`` (P, 2, N, K) and ``silhouette/<name>`` (P, 2), the training patterns
  ``stimulus_train``/``tasks_train`` (P, N), ``limit_error`` (P, 2));
* ``explained``: predictor -> (P, 2, F) eta^2 of its loadings by each factor of
  :func:`lib.analyses.representations.loading_factors` (:func:`variance_explained`);
* ARI curves of :func:`lib.analyses.representations.cached_ari_curves` (P, 2, S).

Axis 1 of every (P, 2) array is the init, in :data:`INIT_NAMES` order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from . import controls, partitions
from . import representation_claims
from . import representations as rep
from ..core.tasks import Dataset, TaskEnvironment

INIT_NAMES = ("standard", "large")
# the ARI curves whose first crossing of 0.5 orders the hidden layer's organization
ONSET_CURVES = ("task vs output_pool", "task vs input_pool", "task_by_input vs output_pool", "task_by_input vs feature")


def training_patterns(env: TaskEnvironment, structure: dict, pair: int) -> Dataset:
    """The training patterns of a pair: every predictor gives one loading per training pattern."""
    return env.encode(structure["stimulus_train"][pair], structure["tasks_train"][pair])


def final_labels(env: TaskEnvironment) -> dict[str, np.ndarray]:
    """Per M-PHATE grouping, the label of each group that shapes its final marker (paper Fig 7):
    input pool of each task, feature position of each input unit, output pool of each task x
    input group and of each output unit."""
    tasks = np.arange(env.n_tasks)
    return {"task": env.task_in_pool(tasks), "input": np.arange(env.n_stimulus_units) % env.n_features,
            "task_by_input": env.task_out_pool(np.repeat(tasks, env.n_features)),
            "output": np.arange(env.n_outputs) // env.n_features}


def distance_table(distance_ratios: dict[str, np.ndarray]) -> pd.DataFrame:
    """Mean ± sd over pairs of each (P, 2) ratio of :func:`lib.analyses.representations.task_distance_ratios`."""
    return pd.DataFrame({f"{init} init": [f"{r[:, i].mean():.2f} ± {r[:, i].std(ddof=1):.2f}"
                                          for r in distance_ratios.values()]
                         for i, init in enumerate(INIT_NAMES)},
                        index=[f"distance ratio, {k} / neither" for k in distance_ratios])


def sorted_loading_panels(env: TaskEnvironment, loadings: np.ndarray, patterns: Dataset) -> dict[str, np.ndarray]:
    """Paper Fig 15: the (2 inits, N, K) loadings of one pair with the training patterns sorted by
    routed input unit, then by task; title -> (N, K)."""
    by_input = np.lexsort((patterns.task, env.relevant_input_unit(patterns)))
    by_task = np.lexsort((env.relevant_feature(patterns), patterns.task))
    panels = {f"{init} init, sorted by input unit": loadings[i][by_input] for i, init in enumerate(INIT_NAMES)}
    panels |= {f"{init} init, sorted by task": loadings[i][by_task] for i, init in enumerate(INIT_NAMES)}
    return panels


def oriented_group_means(env: TaskEnvironment, structure: dict, loadings: np.ndarray, reference: np.ndarray,
                         n_pairs: int) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Paper Fig 8: per init and grouping (routed input unit, task), the mean over pairs of each
    output's mean loading per group, every network's vectors oriented along ``reference`` first
    (:func:`lib.analyses.controls.align_signs`). ``loadings``, ``reference``: (P, 2, N, K).
    Returns (title -> (K, groups) means, title -> group names)."""
    means, names = {}, {}
    for i, init in enumerate(INIT_NAMES):
        for grouping, n_groups, label in (("input", env.n_stimulus_units, "input unit"), ("task", env.n_tasks, "task")):
            per_pair = []
            for p in range(n_pairs):
                labels, _ = rep.group_labels(env, training_patterns(env, structure, p), grouping)
                oriented = controls.align_signs(loadings[p, i], reference[p, i])
                per_pair.append(partitions.group_means(oriented, labels, n_groups).T)
            title = f"{init} init, by {label}"
            means[title] = np.mean(per_pair, axis=0)
            names[title] = [f"{label} {g}" for g in range(n_groups)]
    return means, names


def share_table(shares: dict[str, dict[str, np.ndarray]], limit_error: np.ndarray) -> pd.DataFrame:
    """Mean ± sd over pairs of the share of each eNTK variant's vectors explained by each control
    (variant -> control -> (P, 2), :func:`lib.analyses.controls.shares_explained`), and of the
    (P, 2) relative distance from the small-weight limit; rows (variant, control), columns inits."""
    share_rows = {}
    for v, by_control in shares.items():
        for name, values in by_control.items():
            share_rows[(f"eNTK ({v}) explained by", controls.LOADING_PREDICTOR_NAMES[name])] = [
                f"{values[:, i].mean():.3f} ± {values[:, i].std(ddof=1):.3f}" for i in range(2)]
    share_rows[("distance from the small-weight limit", "relative Frobenius error")] = [
        f"{limit_error[:, i].mean():.2f} ± {limit_error[:, i].std(ddof=1):.2f}" for i in range(2)]
    return pd.DataFrame(share_rows, index=["standard init", "large init"]).T


def per_output_table(env: TaskEnvironment, structure: dict, loadings: np.ndarray, n_pairs: int,
                     short_names: dict[str, str]) -> pd.DataFrame:
    """Per output unit: r^2 of the (P, 2, N, K) ``loadings`` with each control of ``short_names``
    (name -> column label), mean over pairs (lowest pair in brackets)."""
    per_output = {}
    for i, init in enumerate(INIT_NAMES):
        for name in short_names:
            r2 = np.array([controls.explained_share(loadings[p, i], structure[f"loadings/{name}"][p, i])
                           for p in range(n_pairs)])  # (P, K)
            per_output[f"{init}: {short_names[name]}"] = [f"{r2[:, k].mean():.3f} ({r2[:, k].min():.3f})"
                                                         for k in range(env.n_outputs)]
    return pd.DataFrame(per_output, index=[f"output {k} (pool {k // env.n_features}, m={k % env.n_features})"
                                           for k in range(env.n_outputs)])


def silhouette_table(structure: dict, predictors) -> pd.DataFrame:
    """Mean ± sd over pairs of the silhouette of each predictor's loadings, per init."""
    table = pd.DataFrame(
        {f"{init} init": [f"{structure[f'silhouette/{n}'][:, i].mean():.3f} ± "
                          f"{structure[f'silhouette/{n}'][:, i].std(ddof=1):.3f}"
                          for n in predictors] for i, init in enumerate(INIT_NAMES)},
        index=[controls.LOADING_PREDICTOR_NAMES[n] for n in predictors])
    table.index.name = "silhouette of"
    return table


def silhouette_correlations(structure: dict, predictors=("output_error", "epsilon")) -> dict[str, float]:
    """Pearson r over all networks between the eNTK's (authors' variant) silhouette and each of
    ``predictors``' silhouettes."""
    return {n: scipy_stats.pearsonr(structure["silhouette/entk_authors"].ravel(),
                                    structure[f"silhouette/{n}"].ravel())[0] for n in predictors}


def loading_factor_names(env: TaskEnvironment, structure: dict) -> list[str]:
    """The factors of :func:`lib.analyses.representations.loading_factors`, in their order."""
    return list(rep.loading_factors(env, training_patterns(env, structure, 0)))


def variance_explained(env: TaskEnvironment, structure: dict, predictor: str, n_pairs: int) -> np.ndarray:
    """(P, 2, F) eta^2 of each network's ``predictor`` loadings by each factor of
    :func:`loading_factor_names` (mean over outputs)."""
    return np.array([[list(rep.loading_variance_explained(
        structure[f"loadings/{predictor}"][p, i],
        rep.loading_factors(env, training_patterns(env, structure, p))).values())
        for i in range(2)] for p in range(n_pairs)])


def eta_rows(explained: dict[str, np.ndarray], factors: list[str], predictors, n_pairs: int) -> list[dict]:
    """Per predictor and factor: eta^2 mean ± sd over pairs per init, and the paired difference
    standard - large with a 95% t-interval over the ``n_pairs`` pairs; ``_name``, ``_factor``,
    ``_lo`` (the interval's lower bound), ``_std`` and ``_large`` (the means) unformatted."""
    rows = []
    for n in predictors:
        diff = explained[n][:, 0] - explained[n][:, 1]
        half_width = scipy_stats.t.ppf(0.975, n_pairs - 1) * diff.std(axis=0, ddof=1) / np.sqrt(n_pairs)
        for j, factor in enumerate(factors):
            rows.append({"loadings": controls.LOADING_PREDICTOR_NAMES[n], "factor": factor,
                         "standard": f"{explained[n][:, 0, j].mean():.3f} ± {explained[n][:, 0, j].std(ddof=1):.3f}",
                         "large": f"{explained[n][:, 1, j].mean():.3f} ± {explained[n][:, 1, j].std(ddof=1):.3f}",
                         "standard − large [95% CI]":
                             f"{diff[:, j].mean():+.3f} [{diff[:, j].mean() - half_width[j]:+.3f}, "
                             f"{diff[:, j].mean() + half_width[j]:+.3f}]",
                         "_name": n, "_factor": factor, "_lo": diff[:, j].mean() - half_width[j],
                         "_std": explained[n][:, 0, j].mean(), "_large": explained[n][:, 1, j].mean()})
    return rows


def factor_means_table(explained: dict[str, np.ndarray], factors: list[str], predictors) -> pd.DataFrame:
    """Mean eta^2 over pairs, 'standard / large', per predictor (rows) and factor (columns)."""
    table = pd.DataFrame(
        {f"{factor} (std / large)": [f"{explained[n][:, 0, j].mean():.2f} / {explained[n][:, 1, j].mean():.2f}"
                                     for n in predictors] for j, factor in enumerate(factors)},
        index=[controls.LOADING_PREDICTOR_NAMES[n] for n in predictors])
    table.index.name = "η² of"
    return table


def sort_factor_eta(explained: np.ndarray, factors: list[str]) -> np.ndarray:
    """(P, 2 inits, 2) eta^2 by the two factors Figs 8 and 15 sort by: feature position (input
    sort) and the task's output pool (task sort), from one predictor's (P, 2, F) ``explained``."""
    return explained[:, :, [factors.index("feature"), factors.index("output pool")]]


def paired_table(eta_pair: np.ndarray, seeds) -> pd.DataFrame:
    """Per weight draw (seed): eta^2 by the two sort factors (:func:`sort_factor_eta`, (P, 2, 2))
    per init, their mean per init, and standard - large of that mean."""
    eta_standard, eta_large = eta_pair[:, 0].mean(axis=1), eta_pair[:, 1].mean(axis=1)
    return pd.DataFrame({
        "η² feature (standard / large)": [f"{s:.3f} / {l:.3f}" for s, l in eta_pair[:, :, 0]],
        "η² output pool (standard / large)": [f"{s:.3f} / {l:.3f}" for s, l in eta_pair[:, :, 1]],
        "mean of the two, standard": eta_standard.round(3), "mean of the two, large": eta_large.round(3),
        "standard − large": (eta_standard - eta_large).round(3)},
        index=pd.Index(seeds, name="weight draw (seed)"))


def shuffle_null_rows(env: TaskEnvironment, structure: dict, loadings: np.ndarray, n_pairs: int,
                      n_permutations: int) -> tuple[list[dict], dict[str, dict[str, np.ndarray]]]:
    """Each network's eta^2 of its (P, 2, N, K) ``loadings`` by routed input unit and by task
    against a shuffled-label null (:func:`lib.analyses.controls.shuffle_tests`): table rows per
    grouping and init, and grouping -> the tests' arrays (``observed``, ``null_95``, ``p``: (P, 2))."""
    null_rows, null_tests = [], {}
    for grouping, label in (("input", "routed input unit"), ("task", "task")):
        labels_per_pair = [rep.group_labels(env, training_patterns(env, structure, p), grouping)[0]
                           for p in range(n_pairs)]
        null_tests[grouping] = tests = controls.shuffle_tests(loadings, labels_per_pair, n_permutations)
        for i, init in enumerate(INIT_NAMES):
            null_rows.append({"grouping": label, "init": init,
                              "η² observed": f"{tests['observed'][:, i].mean():.3f} ± "
                                             f"{tests['observed'][:, i].std(ddof=1):.3f}",
                              "null 95th percentile": f"{tests['null_95'][:, i].mean():.3f}",
                              "networks with p < 0.05": f"{int((tests['p'][:, i] < 0.05).sum())}/{n_pairs}"})
    return null_rows, null_tests


def structured_by_seed(env: TaskEnvironment, structure: dict, loadings: np.ndarray, n_pairs: int,
                       n_permutations: int) -> Callable[[int], tuple[int, int]]:
    """seed -> (standard-init networks structured beyond the shuffled-label null by both sorts,
    large-init networks by either; :func:`lib.analyses.representation_claims.structured_networks`)
    with the labels shuffled under that seed (:func:`lib.analyses.controls.shuffle_tests`), each seed
    computed once; seed 0 is :func:`shuffle_null_rows`' draw. The claims that count these networks are
    judged under every stability seed of the shuffles."""
    labels = {grouping: [rep.group_labels(env, training_patterns(env, structure, p), grouping)[0]
                         for p in range(n_pairs)] for grouping in ("input", "task")}

    def at(seed: int) -> tuple[int, int]:
        p = {grouping: controls.shuffle_tests(loadings, labels[grouping], n_permutations, seed)["p"]
             for grouping in labels}
        return representation_claims.structured_networks(p["input"], p["task"])

    return functools.lru_cache(maxsize=None)(at)


def partition_agreement(env: TaskEnvironment, derived: dict, derived_control: dict,
                        n_pairs: int) -> tuple[list[dict], dict[tuple[str, str, str], int]]:
    """How often each network's eNTK-derived partition (grouping -> (labels (P, 2, G), parts
    (P, 2)), :func:`lib.analyses.representations.entk_partitions`) is each reference partition
    and the control's derived partition: table rows per grouping and init, and
    (grouping, reference or "control", init) -> number of networks."""
    agreement_rows, agreement = [], {}
    for g in rep.DERIVED_GROUPINGS:
        labels_g, parts_g = derived[g]
        for i, init in enumerate(INIT_NAMES):
            row = {"grouping": g, "init": init,
                   "parts chosen": ", ".join(f"{k}: {int((parts_g[:, i] == k).sum())}"
                                             for k in np.unique(parts_g[:, i]))}
            for by in partitions.REFERENCE_PARTITIONS[g]:
                reference, _ = partitions.reference_partition(env, g, by)
                same = sum(partitions.same_partition(labels_g[p, i], reference) for p in range(n_pairs))
                agreement[(g, by, init)] = same
                row[f"= reference by {by}"] = f"{same}/{n_pairs}"
            same_control = sum(partitions.same_partition(labels_g[p, i], derived_control[g][0][p, i])
                               for p in range(n_pairs))
            agreement[(g, "control", init)] = same_control
            row["= ε·σ' control's partition"] = f"{same_control}/{n_pairs}"
            agreement_rows.append(row)
    return agreement_rows, agreement


def ari_rows(ari: dict[str, np.ndarray], iterations: np.ndarray) -> list[dict]:
    """Per ARI comparison (title -> (P, 2, S)): per init the final ARI (mean ± population sd over
    pairs), the mean curve's peak and its iteration, and the mean curve's first iteration >= 0.5
    ("never" when it stays below)."""
    rows = []
    for title, v in ari.items():
        mean = v.mean(axis=0)  # (2, S)
        row = {"comparison": title}
        for i, init in enumerate(INIT_NAMES):
            row[f"{init}: end"] = f"{v[:, i, -1].mean():.2f} ± {v[:, i, -1].std():.2f}"
            row[f"{init}: peak (iteration)"] = f"{mean[i].max():.2f} ({iterations[np.argmax(mean[i])]})"
            first = rep.onset(iterations, mean[i])
            row[f"{init}: first ≥ 0.5"] = "never" if np.isnan(first) else f"{first:.0f}"
        rows.append(row)
    return rows


def onsets(curves: dict[str, np.ndarray], iterations: np.ndarray) -> dict[str, float]:
    """Standard init: first iteration at which the mean ARI curve of each of :data:`ONSET_CURVES`
    reaches 0.5 (nan: never)."""
    return {name: rep.onset(iterations, curves[name][:, 0].mean(axis=0)) for name in ONSET_CURVES}
