"""Chapter 04's blocks of work, one call each: the hidden layer over training (M-PHATE, distances, ARI),
the t=0 eNTK structure and its kernel-free controls, η² of the loadings by factor, the shuffled-label
null, the eNTK-derived partitions and the swapped architecture, with the texts the page glues.

Book layer. The measurements come from :mod:`lib.analyses.representations`, :mod:`lib.analyses.controls`
and :mod:`lib.analyses.structure_report` (which also builds most tables); the verdicts from
:mod:`lib.book.representation_report`. Checked in ``tests/test_representation_blocks.py``.

Shapes: P networks (weight draws) per init, 2 inits (standard, large), N training patterns, K outputs,
S snapshots, G groups; ``structure`` is a :func:`lib.analyses.controls.cached_initial_structure` result.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import controls
from ..analyses import representation_claims as rc
from ..analyses import representations as rep
from ..analyses import structure_report as report
from ..core.tasks import ARCHITECTURES, TaskEnvironment, environment_key
from . import representation_report
from .tables import visible

CONTROLS = ("epsilon", "output_error", "targets", "ntk")  # the kernel-free controls and the plain NTK
SHORT_NAMES = {"entk_authors": "eNTK (authors)", "entk_principled": "eNTK (principled)", "entk_left": "eNTK left",
               "ntk": "plain NTK", "epsilon": "ε", "output_error": "ε·σ'", "targets": "targets"}
PER_OUTPUT_CONTROLS = ("epsilon", "output_error")  # the controls of the per-output table
ETA_VARIANTS = ("entk_authors", "entk_principled", "entk_left")  # the loadings of the η² table
# the ARI curves the page draws, by the title of their panel
ARI_TITLES = {"input vs feature": "input units vs feature (reference)",
              "input vs eNTK-derived": "input units vs eNTK-derived",
              "output vs output_pool": "output units vs output pool (reference)",
              "task vs input_pool": "tasks vs input pool (reference)",
              "task vs output_pool": "tasks vs output pool (reference)",
              "task vs eNTK-derived": "tasks vs eNTK-derived"}
SWAPPED_PREDICTORS = ("entk_authors", "epsilon", "output_error")  # what the swapped architecture computes
INSET_PROGRESS = 0.03  # the M-PHATE inset's snapshot: this share of training


def seeds_from(first_seed: int, n_pairs: int) -> list[int]:
    """Pair seeds ``first_seed`` ... ``first_seed + n_pairs - 1``."""
    return list(range(first_seed, first_seed + n_pairs))


def other_architecture(architecture: str) -> str:
    """The swapped architecture of ``architecture`` ("4x3" or "3x4")."""
    if architecture not in ("4x3", "3x4"):
        raise ValueError(f"architecture must be '4x3' or '3x4', got {architecture!r}")
    return "3x4" if architecture == "4x3" else "4x3"


class HiddenLayer(NamedTuple):
    """Group-averaged hidden activity of pairs over single-task training and the first pair's M-PHATE."""

    seeds: list[int]
    recorded: dict  # lib.analyses.representations.cached_grouped_hidden: hidden_groups (P, 2, S, 69, H), ...
    iterations: np.ndarray  # (S,)
    key: dict  # the cache parameters of the recording (first seed)
    embeddings: dict  # "<init>/<grouping>" -> (S, G, 2)
    final_labels: dict  # grouping -> (G,) the class that shapes each group's final marker


def hidden_layer(env: TaskEnvironment, schedule: str, first_seed: int, n_pairs: int, n_iterations: int) -> HiddenLayer:
    """The :class:`HiddenLayer` of ``n_pairs`` pairs from ``first_seed`` (cached)."""
    seeds = seeds_from(first_seed, n_pairs)
    recorded = rep.cached_grouped_hidden(env, schedule, seeds, n_iterations)
    key = dict(env=environment_key(env), schedule=schedule, seed=first_seed, n_iterations=n_iterations)
    embeddings = rep.cached_mphate(env, recorded["hidden_groups"][0], key)
    return HiddenLayer(seeds, recorded, recorded["iterations"], key, embeddings, report.final_labels(env))


def mphate_inset(hidden: HiddenLayer) -> tuple:
    """The inset of Paper Fig 7: standard init's input grouping at :data:`INSET_PROGRESS` of training,
    shaped by feature position (the ``inset`` of :func:`lib.book.plot_representations.plot_mphate_grid`)."""
    index = int(round(INSET_PROGRESS * (len(hidden.iterations) - 1)))
    return "standard", "input", index, hidden.final_labels["input"]


def final_distance_ratios(env: TaskEnvironment, hidden: HiddenLayer) -> dict[str, np.ndarray]:
    """"same input pool" / "same output pool" -> (P, 2) distance ratios of the final task means
    (:func:`lib.analyses.representations.task_distance_ratios`)."""
    _, _, probe_rows = rep.probe(env)
    return rep.task_distance_ratios(env, hidden.recorded["hidden_groups"][:, :, -1, probe_rows["task"]])


class InitialStructure(NamedTuple):
    """The t=0 eNTK structure of the pairs and its controls."""

    seeds: list[int]
    structure: dict
    loadings: np.ndarray  # (P, 2, N, K) the authors' variant's leading loadings


def initial_structure(env: TaskEnvironment, first_seed: int, n_pairs: int, predictors=controls.LOADING_PREDICTORS
                      ) -> InitialStructure:
    """The :class:`InitialStructure` of ``n_pairs`` pairs from ``first_seed`` (cached)."""
    seeds = seeds_from(first_seed, n_pairs)
    structure = controls.cached_initial_structure(env, seeds, predictors=predictors)
    return InitialStructure(seeds, structure, structure["loadings/entk_authors"])


def first_pair_panels(env: TaskEnvironment, t0: InitialStructure) -> dict[str, np.ndarray]:
    """Paper Fig 15: the first pair's loadings, sorted by routed input unit and by task."""
    return report.sorted_loading_panels(env, t0.loadings[0], report.training_patterns(env, t0.structure, 0))


def fig8_group_means(env: TaskEnvironment, t0: InitialStructure) -> tuple[dict, dict]:
    """Paper Fig 8: (title -> (K, groups) oriented group means, title -> group names), standard init's
    panels first, the routed input units before the tasks."""
    n_pairs = len(t0.seeds)
    means, names = report.oriented_group_means(env, t0.structure, t0.loadings, t0.structure["loadings/epsilon"],
                                               n_pairs)
    return {t: means[t] for t in sorted(means, key=lambda t: ("large" in t, "task" in t))}, names


def control_shares(t0: InitialStructure) -> dict[str, dict[str, np.ndarray]]:
    """eNTK variant ("authors", "principled") -> control of :data:`CONTROLS` -> (P, 2) share of the
    leading vectors it explains (:func:`lib.analyses.controls.shares_explained`)."""
    return {v: controls.shares_explained(t0.structure, f"entk_{v}", CONTROLS) for v in ("authors", "principled")}


def epsilon_share(shares: dict) -> float:
    """The headline: mean share of standard init's (authors') leading vectors that ε explains."""
    return float(shares["authors"]["epsilon"][:, 0].mean())


def per_output_table(env: TaskEnvironment, t0: InitialStructure) -> pd.DataFrame:
    """Per output unit, r² of its leading eNTK vector with ε and with ε·σ'
    (:func:`lib.analyses.structure_report.per_output_table`)."""
    return report.per_output_table(env, t0.structure, t0.loadings, len(t0.seeds),
                                   {n: SHORT_NAMES[n] for n in PER_OUTPUT_CONTROLS})


def control_panels(shares: dict, t0: InitialStructure) -> tuple[dict, dict]:
    """The two panels of the controls figure: (reader name -> (P, 2) share of the authors' vectors
    explained, reader name -> (P, 2) silhouette of each predictor's own loadings)."""
    return ({SHORT_NAMES[n]: shares["authors"][n] for n in CONTROLS},
            {SHORT_NAMES[n]: t0.structure[f"silhouette/{n}"] for n in controls.LOADING_PREDICTORS})


def silhouette_texts(t0: InitialStructure) -> dict[str, str]:
    """Mean silhouette of every predictor per init (``sil_<name>_std`` / ``_large``) and the
    correlation of the eNTK's silhouettes with ε·σ''s and ε's over all networks."""
    r = report.silhouette_correlations(t0.structure)
    return (representation_report.mean_texts("sil_", {n: t0.structure[f"silhouette/{n}"]
                                                      for n in controls.LOADING_PREDICTORS})
            | {"sil_r_output_error": f"{r['output_error']:.3f}", "sil_r_epsilon": f"{r['epsilon']:.3f}"})


def silhouette_table(t0: InitialStructure) -> pd.DataFrame:
    """Silhouette of every predictor's loadings per init (:func:`lib.analyses.structure_report.silhouette_table`)."""
    return report.silhouette_table(t0.structure, controls.LOADING_PREDICTORS)


class LoadingEta(NamedTuple):
    """η² of every predictor's loadings by each factor of the patterns."""

    factors: list[str]
    explained: dict  # predictor -> (P, 2, F)
    rows: list[dict]  # lib.analyses.structure_report.eta_rows of the eNTK variants
    table: pd.DataFrame  # those rows as the reader's table (the unformatted columns left out)
    by_name: dict  # "variant/factor" -> row


def loading_eta(env: TaskEnvironment, t0: InitialStructure) -> LoadingEta:
    """The :class:`LoadingEta` of every predictor of :data:`lib.analyses.controls.LOADING_PREDICTORS`."""
    n_pairs = len(t0.seeds)
    factors = report.loading_factor_names(env, t0.structure)
    explained = {n: report.variance_explained(env, t0.structure, n, n_pairs) for n in controls.LOADING_PREDICTORS}
    rows = report.eta_rows(explained, factors, ETA_VARIANTS, n_pairs)
    frame = pd.DataFrame(rows)
    return LoadingEta(factors, explained, rows, visible(frame),
                      {r["_name"] + "/" + r["_factor"]: r for r in rows})


def factor_means_table(eta: LoadingEta) -> pd.DataFrame:
    """Mean η² of each factor for every predictor (:func:`lib.analyses.structure_report.factor_means_table`)."""
    return report.factor_means_table(eta.explained, eta.factors, controls.LOADING_PREDICTORS)


def sort_factor_pairs(eta: LoadingEta) -> tuple[np.ndarray, np.ndarray]:
    """(P, 2 inits, 2) η² of the authors' loadings by the two sort factors of Figs 8 and 15, and
    (P, 2) the same for ε·σ' alone, mean of the two factors: what claim entk-large compares."""
    control = report.sort_factor_eta(eta.explained["output_error"], eta.factors).mean(axis=2)
    return report.sort_factor_eta(eta.explained["entk_authors"], eta.factors), control


class ShuffleNull(NamedTuple):
    """Each network's η² by routed input unit and by task against a shuffled-label null."""

    table: pd.DataFrame  # per grouping and init
    tests: dict  # grouping -> "observed", "null_95", "p": (P, 2)
    large_structured: int  # large-init networks structured beyond the null by either sort


def shuffle_null(env: TaskEnvironment, t0: InitialStructure, n_permutations: int) -> ShuffleNull:
    """The :class:`ShuffleNull` of the authors' loadings (:func:`lib.analyses.structure_report.shuffle_null_rows`)."""
    rows, tests = report.shuffle_null_rows(env, t0.structure, t0.loadings, len(t0.seeds), n_permutations)
    _, large_structured = rc.structured_networks(tests["input"]["p"], tests["task"]["p"])
    return ShuffleNull(pd.DataFrame(rows), tests, large_structured)


def null_texts(null: ShuffleNull, n_permutations: int) -> dict[str, str]:
    """The null's size, the large-init networks beyond it, the mean η² by routed input unit per init
    and the null's mean 95th percentile."""
    observed = null.tests["input"]["observed"]
    return {"n_permutations": f"{n_permutations}", "null_large_structured": f"{null.large_structured} of "
            f"{len(observed)}", "null_large_eta": f"{observed[:, 1].mean():.2f}",
            "null_std_eta": f"{observed[:, 0].mean():.2f}", "null_95": f"{null.tests['input']['null_95'].mean():.3f}"}


def derived_partitions(env: TaskEnvironment, structure: dict, predictor: str) -> dict:
    """grouping -> (labels (P, 2, G), parts (P, 2)): the partition each network's ``predictor``
    loadings give (:func:`lib.analyses.representations.entk_partitions`)."""
    return {g: rep.entk_partitions(env, structure[f"loadings/{predictor}"], structure["stimulus_train"],
                                   structure["tasks_train"], g) for g in rep.DERIVED_GROUPINGS}


class PartitionAgreement(NamedTuple):
    """The eNTK-derived partitions and how often they equal each reference partition or ε·σ''s."""

    derived: dict  # grouping -> (labels (P, 2, G), parts (P, 2)) of the authors' eNTK
    table: pd.DataFrame  # per grouping and init
    counts: dict  # (grouping, reference or "control", init) -> networks


def partition_agreement(env: TaskEnvironment, t0: InitialStructure) -> PartitionAgreement:
    """The :class:`PartitionAgreement` of the authors' eNTK against ε·σ''s partitions
    (:func:`lib.analyses.structure_report.partition_agreement`)."""
    derived = derived_partitions(env, t0.structure, "entk_authors")
    control = derived_partitions(env, t0.structure, "output_error")
    rows, counts = report.partition_agreement(env, derived, control, len(t0.seeds))
    return PartitionAgreement(derived, pd.DataFrame(rows), counts)


def agreement_texts(agreement: PartitionAgreement, n_pairs: int) -> dict[str, str]:
    """``agree_<grouping>_<reference>_<init>``: "k/P" networks, and the number of pairs."""
    return ({f"agree_{g}_{by}_{init}": f"{same}/{n_pairs}" for (g, by, init), same in agreement.counts.items()}
            | {"n_entk_pairs_text": f"{n_pairs}"})


def ari_curves(env: TaskEnvironment, hidden: HiddenLayer, derived: dict) -> dict[str, np.ndarray]:
    """comparison -> (P', 2, S) ARI of the hidden layer's clusters against the reference partitions
    and the first P' (recorded) networks' ``derived`` partitions (cached)."""
    n = len(hidden.seeds)
    derived_recorded = {g: (labels[:n], parts[:n]) for g, (labels, parts) in derived.items()}
    return rep.cached_ari_curves(env, hidden.recorded, {**hidden.key, "seeds": hidden.seeds}, derived_recorded)


def titled_curves(ari: dict) -> dict[str, np.ndarray]:
    """The curves of :data:`ARI_TITLES` under their panel titles."""
    return {ARI_TITLES[k]: ari[k] for k in ARI_TITLES}


def ari_table(ari: dict, iterations: np.ndarray) -> pd.DataFrame:
    """End, peak and onset of every ARI curve (:func:`lib.analyses.structure_report.ari_rows`)."""
    return pd.DataFrame(report.ari_rows(ari, iterations))


class Swapped(NamedTuple):
    """The other architecture: its hidden layer, t=0 eNTK structure, derived partitions and ARI."""

    architecture: str
    env: TaskEnvironment
    hidden: HiddenLayer
    t0: InitialStructure
    derived: dict  # grouping -> (labels (P, 2, G), parts (P, 2))
    ari: dict  # comparison -> (P, 2, S)


def swapped_architecture(other: str, schedule: str, first_seed: int, n_pairs: int, n_iterations: int,
                         shown: bool) -> Swapped | None:
    """The :class:`Swapped` analysis of architecture ``other``; None when it is not ``shown``."""
    if not shown:
        return None
    env = TaskEnvironment(*ARCHITECTURES[other])
    hidden = hidden_layer(env, schedule, first_seed, n_pairs, n_iterations)
    t0 = initial_structure(env, first_seed, n_pairs, predictors=SWAPPED_PREDICTORS)
    derived = derived_partitions(env, t0.structure, "entk_authors")
    return Swapped(other, env, hidden, t0, derived, ari_curves(env, hidden, derived))


def onset_table(architecture: str, ari: dict, iterations: np.ndarray, swapped: Swapped | None) -> dict:
    """architecture -> curve -> first iteration with mean standard-init ARI >= 0.5 (NaN: never),
    the swapped architecture's only when it was computed."""
    onsets = {architecture: report.onsets(ari, iterations)}
    if swapped is not None:
        onsets[swapped.architecture] = report.onsets(swapped.ari, swapped.hidden.iterations)
    return onsets


def onset_frame(onsets: dict) -> pd.DataFrame:
    """The onsets as the reader's table: a row per curve, a column per architecture."""
    return pd.DataFrame(onsets).rename(index=lambda n: f"first iteration with mean ARI ≥ 0.5: {n}")


def swapped_page_texts(swapped: Swapped | None, architecture: str, other: str, onsets: dict,
                       n_pairs: int) -> dict[str, str]:
    """The swapped architecture's texts (:func:`lib.book.representation_report.swapped_texts`, "not
    computed" when it was not), its name and pairs, and the onsets of both architectures."""
    if swapped is None:
        texts = dict.fromkeys(representation_report.SWAPPED_TEXTS, "not computed")
    else:
        texts = representation_report.swapped_texts(swapped.env, swapped.t0.structure, swapped.derived["task"][0],
                                                    n_pairs)
    return (texts | {"other_architecture": other, "other_n_pairs": f"{n_pairs}"}
            | representation_report.onset_texts(onsets, architecture, other))
