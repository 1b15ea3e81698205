"""Chapter 04's verdicts and summary rows: the claims about learned representations as the reader
sees them.

Book layer. The rules the verdicts apply are :mod:`lib.analyses.representation_claims`' and the
criteria the registry's (every verdict through :func:`lib.analyses.claims.judge`); this module
gathers the chapter's measurements (:class:`RepresentationMeasures`), judges each claim
(:func:`judge_claims`, :func:`judge_entk_large`), writes the page's texts of the paired comparison
(:func:`entk_large_texts`) and turns the judgements into the rows of
:func:`lib.book.summary.claim_row` (:func:`claim_rows`). Checked in
``tests/test_representation_report.py``.

Shapes: P networks (weight draws) per init, 2 inits (standard, large), T snapshots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..analyses import claims, controls, partitions
from ..analyses import representation_claims as rc
from ..analyses import structure_report
from ..core.tasks import TaskEnvironment
from . import summary
from .names import judgement_text
from .tables import iteration_text

# the glue names of the swapped architecture's sentences ("not computed" when it is not shown)
SWAPPED_TEXTS = ("other_share_epsilon_std", "other_share_output_error_large", "other_sil_std", "other_sil_large",
                 "other_task_output_pool", "other_eta_by_factor")


class RepresentationMeasures(NamedTuple):
    """What chapter 04 measured, as its claims read it."""

    architecture: str  # the main architecture ("4x3" or "3x4")
    other: str  # the swapped architecture
    n_networks: int  # P: networks per init of the t=0 eNTK analyses
    ari: dict  # curve title -> (P', 2, T) ARI of the hidden layer's clusters against a partition
    distance_ratios: dict  # "same input pool" / "same output pool" -> (P', 2) final distance ratios
    shares: dict  # eNTK variant -> control -> (P, 2) share of the leading vectors the control explains
    agreement: dict  # (grouping, reference, init) -> networks whose eNTK-derived partition equals it
    onsets: dict  # architecture -> curve title -> first iteration with mean ARI >= 0.5 (nan: never)
    eta: dict  # "variant/factor" -> the row of lib.analyses.structure_report.eta_rows
    structured: Callable[[int], tuple]  # seed -> (standard-init networks structured beyond the null, large-init ones)
    swapped_shown: bool  # whether the swapped architecture was computed


class EntkLarge(NamedTuple):
    """The paired comparison of the t=0 eNTK's structure at standard and large init (claim entk-large)."""

    current: claims.Judgement  # under the criterion in force, the kernel-free control judged beside it
    version_2: claims.Judgement
    standard: np.ndarray  # (P,) η² of the leading loadings, mean of the two sort factors, standard init
    large: np.ndarray  # (P,) the same at large init
    control_diff: float  # ε·σ' alone: mean standard − large η²


def judge_entk_large(eta_pair: np.ndarray, control_pair: np.ndarray) -> EntkLarge:
    """entk-large judged on ``eta_pair`` (P, 2 inits, 2 factors): η² of the eNTK's leading loadings by
    the two sort factors, with ``control_pair`` (P, 2 inits): the same for ε·σ' alone, mean of the two
    factors."""
    eta_pair, control_pair = np.asarray(eta_pair, float), np.asarray(control_pair, float)
    if eta_pair.ndim != 3 or eta_pair.shape[1] != 2 or control_pair.shape != eta_pair.shape[:2]:
        raise ValueError(f"eta_pair must be (P, 2, factors) and control_pair (P, 2), got {eta_pair.shape} and "
                         f"{control_pair.shape}")
    standard, large = eta_pair[:, 0].mean(axis=1), eta_pair[:, 1].mean(axis=1)
    version_2 = claims.judge("entk-large", version=2, a=standard, b=large)
    current = claims.judge("entk-large", a=standard, b=large,
                           controls={claims.criterion("entk-large").controls[0]: dict(a=control_pair[:, 0],
                                                                                      b=control_pair[:, 1])})
    return EntkLarge(current, version_2, standard, large, float((control_pair[:, 0] - control_pair[:, 1]).mean()))


def entk_large_texts(e: EntkLarge) -> dict[str, str]:
    """The page's glued texts of the entk-large comparison, by glue name."""
    j = e.current
    return {"entk_large_control_diff": f"{e.control_diff:+.3f}", "entk_large_diff": j.ours,
            "entk_large_ci": j.interval, "entk_large_std": f"{e.standard.mean():.3f}",
            "entk_large_large": f"{e.large.mean():.3f}",
            "entk_large_k": f"{int((e.standard > e.large).sum())} of {e.standard.size}",
            "entk_large_verdict": judgement_text(j),
            "entk_large_v2_verdict": e.version_2.verdict,
            "entk_large_stability": (f"the same verdict under {j.stability} bootstrap seeds" if j.stability
                                     else "a test without resampling")}


def ari_texts(env: TaskEnvironment, ari: dict, iterations: np.ndarray) -> dict[str, str]:
    """The page's texts of the ARI curves (title -> (P, 2, T), at ``iterations`` (T,)): per curve and
    init its mean final ARI, its peak and the iteration of the peak; and ``ari_crossing``, the ARI of
    the tasks' input-pool partition against their output-pool one (what a clustering that matches
    one of them scores against the other)."""
    from sklearn.metrics import adjusted_rand_score

    texts = {}
    for title, curves in ari.items():
        slug = title.replace(" ", "_")
        for i, init in enumerate(("std", "large")):
            mean = curves[:, i].mean(axis=0)
            texts |= {f"ari_final_{init}_{slug}": f"{curves[:, i, -1].mean():.2f}",
                      f"ari_peak_{init}_{slug}": f"{mean.max():.2f}",
                      f"ari_peak_at_{init}_{slug}": f"{iterations[np.argmax(mean)]}"}
    crossing = adjusted_rand_score(partitions.reference_partition(env, "task", "input_pool")[0],
                                   partitions.reference_partition(env, "task", "output_pool")[0])
    return texts | {"ari_crossing": f"{crossing:.2f}"}


INIT_SLUGS = ("std", "large")  # the glue names' word for each init


def mean_texts(prefix: str, values: dict, fmt: str = ".2f") -> dict[str, str]:
    """``{prefix}{name}_std`` and ``..._large``: the mean over networks of each (P, 2 inits) array of
    ``values`` (name -> array; spaces in a name become underscores)."""
    return {f"{prefix}{name.replace(' ', '_')}_{init}": f"{np.asarray(v)[:, i].mean():{fmt}}"
            for name, v in values.items() for i, init in enumerate(INIT_SLUGS)}


def share_texts(shares: dict, limit_error: np.ndarray) -> dict[str, str]:
    """The shares of the leading eNTK vectors each control explains (``shares``: variant -> control ->
    (P, 2)), mean and smallest per init, and the eNTK's distance from its small-weight limit (P, 2)."""
    texts = {}
    for variant, by_control in shares.items():
        for name, values in by_control.items():
            for i, init in enumerate(INIT_SLUGS):
                texts |= {f"share_{variant}_{name}_{init}": f"{values[:, i].mean():.3f}",
                          f"share_{variant}_{name}_{init}_min": f"{values[:, i].min():.3f}"}
    return texts | {"limit_error_std": f"{limit_error[:, 0].mean():.2f}",
                    "limit_error_large": f"{limit_error[:, 1].mean():.1f}"}


def eta_texts(rows: list[dict]) -> dict[str, str]:
    """The η² of each loading and factor (the rows of :func:`lib.analyses.structure_report.eta_rows`),
    how many of the two eNTK variants' rows are structured (interval above 0) and the largest gap
    between the variants."""
    texts = {f"eta_{r['_name']}_{r['_factor'].replace(' ', '_')}_{init}": f"{r[f'_{init}']:.2f}"
             for r in rows for init in INIT_SLUGS}
    main = [r for r in rows if r["_name"] in ("entk_authors", "entk_principled")]
    by = {(r["_factor"], r["_name"]): r["_std"] for r in main}
    gap = np.nanmax([abs(by[(f, "entk_authors")] - by[(f, "entk_principled")]) for f, name in by
                     if name == "entk_authors"])
    return texts | {"eta_n_structured": f"{sum(r['_lo'] > 0 for r in main)} of {len(main)}",
                    "eta_variant_gap": f"{gap:.3f}"}


def onset_texts(onsets: dict, architecture: str, other: str) -> dict[str, str]:
    """The page's texts of the onsets (architecture -> curve title -> first iteration with mean ARI
    >= 0.5, NaN: never; the swapped architecture ``other`` may be missing: then "never")."""
    texts = {f"onset_{arch}_{name.replace(' ', '_')}": iteration_text(value)
             for arch, by_curve in onsets.items() for name, value in by_curve.items()}
    main, swapped = onsets[architecture], onsets.get(other, dict.fromkeys(structure_report.ONSET_CURVES, float("nan")))
    return texts | {"arch_main": architecture, "onset_main_out": iteration_text(main["task vs output_pool"]),
                    "onset_main_task": iteration_text(main["task vs input_pool"]),
                    "onset_other_out": iteration_text(swapped["task vs output_pool"]),
                    "onset_other_task": iteration_text(swapped["task vs input_pool"])}


def swapped_texts(env: TaskEnvironment, structure: dict, task_labels: np.ndarray, n_pairs: int) -> dict[str, str]:
    """The page's texts of the swapped architecture's t=0 eNTK (:data:`SWAPPED_TEXTS`): the shares of
    its leading vectors that ε and ε·σ' explain, its silhouettes, the networks whose eNTK-derived task
    partition (``task_labels`` (P, 2, tasks)) is the output pools', η² by factor (standard / large)."""
    shares = controls.shares_explained(structure, "entk_authors", ("epsilon", "output_error"))
    silhouette = structure["silhouette/entk_authors"]
    output_pools = partitions.reference_partition(env, "task", "output_pool")[0]
    factors = structure_report.loading_factor_names(env, structure)
    eta = structure_report.variance_explained(env, structure, "entk_authors", n_pairs)
    return {"other_share_epsilon_std": f"{shares['epsilon'][:, 0].mean():.3f}",
            "other_share_output_error_large": f"{shares['output_error'][:, 1].mean():.3f}",
            "other_sil_std": f"{silhouette[:, 0].mean():.2f}", "other_sil_large": f"{silhouette[:, 1].mean():.2f}",
            "other_task_output_pool": f"{sum(partitions.same_partition(l, output_pools) for l in task_labels[:, 0])}"
                                      f"/{n_pairs}",
            "other_eta_by_factor": "; ".join(f"{f} {eta[:, 0, j].mean():.2f} / {eta[:, 1, j].mean():.2f}"
                                             for j, f in enumerate(factors))}


def judge_claims(m: RepresentationMeasures) -> dict[str, claims.Judgement]:
    """The judgement of each of chapter 04's claims but entk-large (:func:`judge_entk_large`), by
    claim name; ``swapped`` is "not tested" when the swapped architecture was not computed."""
    task_ari, input_ari, output_ari = m.ari["task vs input_pool"], m.ari["input vs feature"], m.ari["output vs output_pool"]
    derived_task, derived_input = m.ari["task vs eNTK-derived"], m.ari["input vs eNTK-derived"]
    ratio_in, ratio_out = m.distance_ratios["same input pool"], m.distance_ratios["same output pool"]
    share_eps_std = m.shares["authors"]["epsilon"][:, 0].mean()
    same_control = (m.agreement[("task", "control", "standard")]
                    + m.agreement[("input", "control", "standard")]) / (2 * m.n_networks)
    input_peak, input_end = input_ari[:, 0].mean(axis=0).max(), input_ari[:, 0, -1].mean()
    derived_input_peak, derived_input_end = derived_input[:, 0].mean(axis=0).max(), derived_input[:, 0, -1].mean()
    main = m.onsets[m.architecture]
    order_holds = {arch: rc.output_pools_first(o) for arch, o in m.onsets.items()}
    standard_structured = m.structured(0)[0]
    named = claims.named_conditions
    judged = {
        "mphate-task": claims.judge("mphate-task", value=task_ari[:, 0, -1].mean()),
        "mphate-input": claims.judge("mphate-input", conditions=named("mphate-input", rc.rises_then_decays(
            input_ari[:, 0].mean(axis=0))), ours=f"{input_peak:.2f} / {input_end:.2f}"),
        "mphate-output": claims.judge("mphate-output", value=output_ari[:, 0, -1].mean()),
        "mphate-order": claims.judge("mphate-order", conditions=named("mphate-order", [order_holds[m.architecture]]),
                                     ours=f"{main['task vs output_pool']:.0f} / {main['task vs input_pool']:.0f}"),
        "mphate-large": claims.judge("mphate-large", value=min(ratio_in[:, 1].mean(), ratio_out[:, 1].mean())),
        "mphate-large-output": claims.judge("mphate-large-output", value=output_ari[:, 1, -1].mean()),
        "entk-standard": claims.judge(
            "entk-standard",  # judged under every seed of the shuffled-label null
            seeded=lambda s: {"conditions": named("entk-standard", [m.structured(s)[0] == m.n_networks])},
            ours=f"{standard_structured}/{m.n_networks} beyond the null; η² by feature / by output pool "
                 f"{m.eta['entk_authors/feature']['_std']:.2f} / {m.eta['entk_authors/output pool']['_std']:.2f}",
            qualification=rc.targets_qualification(share_eps_std)),
        "entk-anticipates": claims.judge(
            "entk-anticipates", conditions=named("entk-anticipates", [rc.matched_at_some_point(
                derived_input[:, 0].mean(axis=0), derived_task[:, 0].mean(axis=0))]),
            ours=f"peak {derived_input_peak:.2f} / {derived_task[:, 0].mean(axis=0).max():.2f}; final tasks "
                 f"{derived_task[:, 0, -1].mean():.2f}",
            qualification="; ".join(rc.anticipation_notes(derived_task[:, 0, -1].mean(), same_control))),
        "ari-task": claims.judge("ari-task", value=derived_task[:, 0, -1].mean()),
        "ari-input": claims.judge(
            "ari-input", conditions=named("ari-input", rc.rises_then_decays(derived_input[:, 0].mean(axis=0))),
            ours=f"{derived_input_peak:.2f} / {derived_input_end:.2f}",
            qualification=rc.derived_input_qualification(m.agreement[("input", "control", "standard")], m.n_networks)),
    }
    if m.swapped_shown:
        swapped = m.onsets[m.other]
        judged["swapped"] = claims.judge("swapped", conditions=named(
            "swapped", [order_holds[m.other] and order_holds[m.architecture]]),
            ours=f"{swapped['task vs output_pool']:.0f} / {swapped['task vs input_pool']:.0f}")
    else:  # nothing measured: the registry's criterion is recorded as not tested, with the reason
        judged["swapped"] = claims.not_judged("swapped", "show_swapped_architecture is False")
    return judged


def claim_rows(m: RepresentationMeasures, entk_large: EntkLarge) -> list[dict]:
    """The summary rows of chapter 04's claims (:func:`lib.book.summary.claim_row`), in the order of
    the verdicts page; entk-large (:func:`judge_entk_large`) is shown with its version 1 (the share of
    large-init networks structured beyond the null) and version 2."""
    judged, E, n = judge_claims(m), summary.evidence, m.n_networks
    entk_large_v1 = claims.judge("entk-large", version=1, seeded=lambda s: {"value": m.structured(s)[1] / n})
    task_ari = m.ari["task vs input_pool"]
    ratio_in, ratio_out = m.distance_ratios["same input pool"], m.distance_ratios["same output pool"]
    same_control = (m.agreement[("task", "control", "standard")]
                    + m.agreement[("input", "control", "standard")]) / (2 * n)
    kernel_free = (f"kernel-free control: ε explains {m.shares['authors']['epsilon'][:, 0].mean():.3f} of the "
                   f"standard-init eNTK vectors, ε·σ' {m.shares['authors']['output_error'][:, 1].mean():.3f} of the "
                   f"large-init ones")
    rows = [
        summary.claim_row("M-PHATE, standard init: tasks cluster by input pool (mean final ARI vs input pool)",
                          "four clusters of tasks sharing an input pool", judged["mphate-task"],
                          control=f"large init of the same draw (ARI {task_ari[:, 1, -1].mean():.2f})",
                          evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("M-PHATE, standard init: input units cluster by feature early, then decohere (ARI peak / end)",
                          "three transient clusters by feature position", judged["mphate-input"],
                          control="ARI's chance level 0", evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("M-PHATE, standard init: output units cluster by output pool (mean final ARI)",
                          "three clusters by output pool", judged["mphate-output"], control="ARI's chance level 0",
                          evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("organization by output pool before input pool (first iteration with mean ARI >= 0.5: "
                          "tasks vs output pool / tasks vs input pool)", "output first", judged["mphate-order"],
                          control="the swapped architecture (Fig 20)", evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("M-PHATE, large init: tasks roughly equidistant (distance ratio vs neither, the smaller of "
                          "same input pool / same output pool)", "roughly equidistant", judged["mphate-large"],
                          control=f"standard init of the same draws ({ratio_in[:, 0].mean():.2f} / "
                                  f"{ratio_out[:, 0].mean():.2f}; large {ratio_in[:, 1].mean():.2f} / "
                                  f"{ratio_out[:, 1].mean():.2f})", evidence=E("tab-task-distances", "distance table")),
        summary.claim_row("M-PHATE, large init: output units still cluster by output pool (mean final ARI)",
                          "three clusters", judged["mphate-large-output"], control="ARI's chance level 0",
                          evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("t=0 eNTK, standard init: networks structured beyond a shuffled-label null (authors' variant)",
                          "clustered by feature (input sort) and output pool (task sort)", judged["entk-standard"],
                          control=f"shuffled labels; {kernel_free}", evidence=E("fig-entk-controls", "controls figure")),
        summary.claim_row("t=0 eNTK, standard minus large init, per weight draw: η² of the leading loadings (mean of "
                          "feature position and output pool; authors' variant)", "not clustered (vs clustered at "
                          "standard init)", entk_large.current,
                          control=f"the same weight draw at standard init; ε·σ' alone (no kernel) gives standard − "
                                  f"large {entk_large.control_diff:+.3f}",
                          evidence=E("tab-entk-paired", "paired comparison"),
                          earlier=[entk_large_v1, entk_large.version_2]),
        summary.claim_row("t=0 eNTK anticipates learned structure: eNTK-derived partitions vs the hidden layer, standard "
                          "init (peak ARI input / tasks; final ARI tasks)", "predictive of M-PHATE structure",
                          judged["entk-anticipates"],
                          control=f"ε·σ' alone gives the eNTK's partition in {same_control:.0%} of standard-init networks",
                          evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("tasks: mean final ARI vs the eNTK-derived partition, standard init", "complete match by the end",
                          judged["ari-task"],
                          control=f"the reference input-pool partition (ARI {task_ari[:, 0, -1].mean():.2f}); eNTK-derived "
                                  f"task partition = output pools in {m.agreement[('task', 'output_pool', 'standard')]}/"
                                  f"{n}, = input pools in {m.agreement[('task', 'input_pool', 'standard')]}/{n}",
                          evidence=E("fig-ari", "ARI figure")),
        summary.claim_row("input units: ARI vs the eNTK-derived partition, standard init: peak / end",
                          "perfect match early, then decays", judged["ari-input"],
                          control=f"eNTK-derived = feature partition in {m.agreement[('input', 'feature', 'standard')]}/"
                                  f"{n}", evidence=E("fig-ari", "ARI figure")),
    ]
    if m.swapped_shown:
        rows.append(summary.claim_row(f"{m.other} architecture: tasks reach ARI 0.5 against output pools before input "
                                      "pools (iterations)", "pattern unchanged (output first)", judged["swapped"],
                                      control="the main architecture's order",
                                      evidence=E("fig-ari-swapped", "swapped-architecture ARI")))
    else:
        rows.append(summary.claim_row("swapped architecture", "pattern unchanged", judged["swapped"],
                                      control="the main architecture's order", evidence=E("fig-ari", "ARI figure")))
    return rows
