"""Chapter 08's tables (the eNTK over training): the checks of the ePNTK and what the runs record,
as the frames the chapter shows, and its summary records.

Book layer. The chapter reads the cached runs of :mod:`lib.experiments.kernel_dynamics` (``runs``:
schedule -> :func:`~lib.experiments.kernel_dynamics.run_kernel_dynamics`), their validation runs
(``checks``: schedule -> :func:`~lib.experiments.kernel_dynamics.validation_runs`) and the
convergence runs (``convergence``: schedule -> :func:`~lib.experiments.kernel_dynamics.epntk_convergence`);
these functions turn them into the tables it shows and the numbers it glues. Its sentences come
from :mod:`lib.book.entk_findings`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import attribution, claims
from ..analyses import kernel_analysis as ka
from ..analyses.entk_vectors import loglog_slope
from ..core.models import INITS
from . import entk_findings as findings
from . import summary

# the three sums of a validation run, by the key of its reconstruction errors
VARIANTS = {"euler": "eNTK sum (paper), every step", "step": "step-integrated, every step",
            "step_quadrature": "step-integrated, quadrature"}
FIRST_ORDER_RANGE = (0.8, 1.2)  # an order of convergence in the learning rate that is first order (forward Euler)
RECONSTRUCTION_COLUMNS = ("max error, training inputs", "max error, test inputs")
DESCRIPTIVE = "descriptive, no registry claim: mean over pairs (95% t-interval)"
PAIRED = "descriptive, no registry claim: paired mean over pairs (95% t-interval)"


def bulk_label(path_kernel: str) -> str:
    """The reconstruction table's label of the book's runs (all pairs) under the time quadrature."""
    return "bulk runs (all pairs): " + VARIANTS["step" if path_kernel == "step" else "euler"].split(",")[0] \
        + ", quadrature"


def reconstruction_table(checks: dict, runs: dict, path_kernel: str) -> pd.DataFrame:
    """One row per schedule, init and ePNTK sum: the largest relative reconstruction error of
    y(t) - y(0) on training and on test inputs over the snapshots, and the error at the end on test
    inputs. The validation runs' three sums (first pair), then the book's runs (every pair: largest
    error over pairs, mean error at the end)."""
    rows = []
    for name, check in checks.items():
        for variant, label in VARIANTS.items():
            errors = check[f"reconstruction_error/{variant}"]  # (2 inits, S, 2 sets)
            for i, init in enumerate(INITS):
                rows.append({"schedule": name, "init": init, "ePNTK": label,
                             RECONSTRUCTION_COLUMNS[0]: np.nanmax(errors[i, :, 0]),
                             RECONSTRUCTION_COLUMNS[1]: np.nanmax(errors[i, :, 1]),
                             "error at the end, test inputs": errors[i, -1, 1]})
        errors = runs[name]["reconstruction_error"]  # (P, 2 inits, S, 2 sets)
        for i, init in enumerate(INITS):
            rows.append({"schedule": name, "init": init, "ePNTK": bulk_label(path_kernel),
                         RECONSTRUCTION_COLUMNS[0]: np.nanmax(errors[:, i, :, 0]),
                         RECONSTRUCTION_COLUMNS[1]: np.nanmax(errors[:, i, :, 1]),
                         "error at the end, test inputs": np.nanmean(errors[:, i, -1, 1])})
    return pd.DataFrame(rows)


def reconstruction_shown(reconstruction: pd.DataFrame) -> pd.DataFrame:
    """:func:`reconstruction_table` as the page shows it: the errors in scientific notation."""
    return reconstruction.assign(**{c: reconstruction[c].map("{:.2e}".format) for c in reconstruction.columns[3:]})


def largest_reconstruction_error(reconstruction: pd.DataFrame, which: str) -> float:
    """The largest error on either kind of input of the rows of one sum: ``which`` is a key of
    :data:`VARIANTS` or ``"bulk"`` (the book's runs)."""
    rows = reconstruction.ePNTK.str.startswith("bulk") if which == "bulk" else reconstruction.ePNTK == VARIANTS[which]
    return float(reconstruction.loc[rows, list(RECONSTRUCTION_COLUMNS)].to_numpy().max())


class FirstOrderErrors(NamedTuple):
    """The paper's every-step eNTK sum in the validation runs: its largest relative error over the
    snapshots and both kinds of inputs (``largest``), the (schedule, init) where it occurs
    (``worst``), each (schedule, init)'s largest (``each``), the iteration of the worst case's
    largest error (``where``) and the worst case's error at the end (``end``)."""

    largest: float
    worst: tuple[str, str]
    each: dict
    where: int
    end: float

    def each_text(self) -> str:
        return "; ".join(f"{name} {init} {value:.0%}" for (name, init), value in self.each.items())


def first_order_errors(checks: dict) -> FirstOrderErrors:
    """:class:`FirstOrderErrors` of the validation runs ``checks``. At t=0 the outputs have not
    changed yet, so the relative error is 0/0 (NaN) on both input sets and that snapshot is
    skipped (``np.fmax`` ignores a NaN of one set)."""
    errors = lambda key: checks[key[0]]["reconstruction_error/euler"][INITS.index(key[1])]  # (S, 2 sets)
    largest, worst, each = attribution.largest_error({(name, init): errors((name, init)) for name in checks
                                                      for init in INITS})
    where = int(checks[worst[0]]["iterations"][np.nanargmax(np.fmax.reduce(errors(worst), axis=-1))])
    return FirstOrderErrors(largest, worst, each, where, float(errors(worst)[-1].max()))


def convergence_table(convergence: dict) -> tuple[pd.DataFrame, dict]:
    """(one row per schedule, init and kind of input: the reconstruction error of the paper's sum at
    the schedule's learning rate and each halving, and the order of the last halving; (schedule,
    init, inputs) -> (order over every halving, order of the last))."""
    rows, slopes = [], {}
    for name, conv in convergence.items():
        for i, init in enumerate(INITS):
            rates = conv["learning_rate"][i]  # the init's learning rate, then its halvings
            for s, set_name in enumerate(("training", "test")):
                errors = conv["reconstruction_error"][i, :, s]
                slopes[(name, init, set_name)] = (loglog_slope(rates, errors), loglog_slope(rates[-2:], errors[-2:]))
                rows.append({"run": f"{name}, {init}, {set_name} inputs", "η₀": rates[0],
                             **{("error at η₀" if k == 0 else f"at η₀/{rates[0] / lr:.0f}"): e
                                for k, (lr, e) in enumerate(zip(rates, errors))},
                             "order (last halving)": slopes[(name, init, set_name)][1]})
    return pd.DataFrame(rows).set_index("run"), slopes


def is_first_order(orders: np.ndarray) -> bool:
    """Whether every order of convergence lies inside :data:`FIRST_ORDER_RANGE` (open interval)."""
    low, high = FIRST_ORDER_RANGE
    orders = np.asarray(orders, float)
    return bool(orders.size and (orders > low).all() and (orders < high).all())


def quadrature_table(checks: dict) -> pd.DataFrame:
    """One row per schedule and init: how far the time quadrature moves the step-integrated ePNTK,
    its sharing shares and alignments from the every-step sum, and how far the paper's sum lies
    from the step-integrated one (relative Frobenius distances, largest over the snapshots)."""
    return pd.DataFrame([{"schedule": name, "init": init,
                          "|P_quadrature - P_every step| / |P_every step|": check["path_difference/step_quadrature"][i],
                          "largest difference of a share of |change|": check["sharing_abs_difference"][i],
                          "largest difference of a signed share": check["sharing_signed_difference"][i],
                          "largest difference of an alignment": check["alignment_difference"][i],
                          "|P_paper - P_step| / |P_step|": check["path_difference/euler"][i]}
                         for name, check in checks.items() for i, init in enumerate(INITS)])


def quadrature_texts(quadrature: pd.DataFrame) -> dict[str, str]:
    """glue name -> text: the largest distances of :func:`quadrature_table` (the quadrature's ePNTK, its
    shares of the change, and the paper's sum from the step-integrated one)."""
    return {"kd_quadrature_path_max": f"{quadrature.iloc[:, 2].max():.2%}",
            "kd_quadrature_share_max": f"{quadrature.iloc[:, 3].max():.3f}",
            "kd_euler_vs_step_max": f"{quadrature.iloc[:, -1].max():.1%}"}


def sharing_table(runs: dict) -> pd.DataFrame:
    """:func:`lib.analyses.attribution.attribution_table` on the test inputs, with each category's
    per-pattern ratio of ``|contribution|`` (its share of ``sum |C|`` over its share of the pairs)."""
    sharing = attribution.attribution_table(runs, "authors")
    sharing["per-pattern ratio of |contribution|"] = (sharing["_abs"] / sharing["_fraction"]).map("{:.2f}".format)
    return sharing


def contrast_table(agreement: dict) -> pd.DataFrame:
    """:func:`lib.analyses.attribution.representation_contrasts` of ``agreement`` (schedule ->
    :func:`lib.analyses.kernel_analysis.representation_agreement`), metrics named in words."""
    contrasts = attribution.representation_contrasts(agreement)
    contrasts["metric"] = contrasts["metric"].map(findings.METRIC_NAMES)
    return contrasts


def representation_table(agreement: dict) -> pd.DataFrame:
    """One row per schedule, init and predictor of the trained hidden layer's task similarity
    (:data:`lib.analyses.kernel_analysis.REPRESENTATION_PREDICTORS`): RSA and ARIs as mean +- sd
    over pairs, and the mean RSA (``_rsa``); ``agreement``: schedule ->
    :func:`lib.analyses.kernel_analysis.representation_agreement`."""
    rows = [{"schedule": name, "init": init, "predictor": predictor,
             **{findings.METRIC_NAMES[m]: ka.mean_sd(values[f"{m}/{predictor}"][:, i]) for m in findings.METRIC_NAMES},
             "_rsa": np.nanmean(values[f"rsa/{predictor}"][:, i])}
            for name, values in agreement.items() for i, init in enumerate(INITS)
            for predictor in ka.REPRESENTATION_PREDICTORS]
    return pd.DataFrame(rows)


def summary_rows(runs: dict, validation, judgement, last_orders: np.ndarray, shared: pd.DataFrame,
                 cancelled: pd.DataFrame, contrast_of: pd.DataFrame) -> list[dict]:
    """The chapter's summary records: the paper's first-order ePNTK on the multitask network (its
    registry claim, ``judgement``), the order of convergence (``last_orders``) and the quadrature's
    largest error (checks), and per schedule the descriptive attribution and representation numbers
    (mean or paired mean over pairs with 95% t-intervals). ``validation``: the validation runs'
    ``first_order`` (:class:`FirstOrderErrors`), ``check_length`` (schedule -> iterations),
    ``worst_step`` and ``bulk_worst`` (:class:`lib.book.entk_chapter.Validation`); ``shared``,
    ``cancelled``, ``contrast_of``: the indexed tables of :mod:`lib.book.entk_findings`."""
    first_order, check_length = validation.first_order, validation.check_length
    worst_step, bulk_worst = validation.worst_step, validation.bulk_worst
    rows = [
        summary.claim_row(
            f"paper's first-order ePNTK (every-step eNTK sum), multitask network: largest relative error in "
            f"reconstructing y(t) - y(0) (first pair, first {' / '.join(str(n) for n in check_length.values())} "
            f"iterations of ET / LR, training and test inputs; per schedule and init: {first_order.each_text()})",
            "'extremely compute and memory intensive' (not computed; App A.3's attribution applied to Sec 4)",
            judgement, control=f"the step-integrated ePNTK of the same runs (error at most {worst_step:.0e})",
            evidence=summary.evidence("fig-kd-reconstruction", "reconstruction errors")),
        summary.row("ePNTK reconstruction: order of convergence in the learning rate (last halving)", "-",
                    f"{last_orders.min():.2f} to {last_orders.max():.2f}", is_first_order(last_orders),
                    f"first order (forward Euler): every order in [{FIRST_ORDER_RANGE[0]}, {FIRST_ORDER_RANGE[1]}]"),
        summary.row("step-integrated ePNTK with time quadrature: largest reconstruction error over all runs", "-",
                    f"{bulk_worst:.2%}", None, "new"),
    ]
    for name in runs:
        other = {kind: [tuple(shared.loc[(name, init, attribution.OTHER_TASKS),
                                         [f"_{kind}", f"_{kind}_low", f"_{kind}_high"]]) for init in INITS]
                 for kind in ("signed", "abs")}
        rows += [
            _interval_row(f"signed share of the learned change of test outputs from other tasks' patterns, {name} "
                          "(standard / large init)", other["signed"], "+.2f", DESCRIPTIVE),
            _interval_row(f"share of sum |contribution| to the learned change of test outputs from other tasks' "
                          f"patterns, {name} (standard / large init)", other["abs"], ".2f", DESCRIPTIVE),
            summary.row(f"cancellation factor sum |C| / |dy| by category, {name}: median over networks "
                        "(standard / large)", "-",
                        " / ".join(f"{cancelled.loc[(name, init, 'by category'), '_median']:.1f}" for init in INITS),
                        None, "descriptive: 1 = no cancellation"),
        ]
        same_task = [findings.same_task_difference(runs[name][key][:, :, -1, 1, 0])
                     for key in ("sharing_abs", "sharing_signed")]
        rows.append(_interval_row(f"same task's share of the learned change of test outputs, large minus standard "
                                  f"init, {name} (by magnitude / signed)", same_task, "+.2f", PAIRED,
                                  paper="large init separated, standard shared (Sec 4)"))
        for init in INITS:
            kernel_minus_t0 = [findings.contrast(contrast_of, name, init, m, findings.EPNTK, findings.ENTK0)
                               for m in findings.METRIC_NAMES]
            rows.append(_interval_row(f"agreement with the trained hidden layer, final ePNTK minus t=0 eNTK, {name}, "
                                      f"{init} init (RSA / ARI 3 clusters / ARI 4 clusters)", kernel_minus_t0, "+.2f",
                                      PAIRED))
        control_minus = [findings.negated(findings.contrast(contrast_of, name, "large", "rsa", kernel, findings.CONTROL))
                         for kernel in (findings.EPNTK, findings.ENTK0)]
        rows.append(_interval_row(f"agreement with the trained hidden layer (RSA), untrained hidden layer minus final "
                                  f"ePNTK / minus t=0 eNTK, {name}, large init", control_minus, "+.2f", PAIRED))
    return rows


def _interval_row(quantity: str, intervals: list, fmt: str, criterion: str, paper: str = "-") -> dict:
    """A descriptive summary row (:func:`lib.book.summary.row`, nothing to agree with) of several
    intervals (mean, low, high), their means and intervals joined by " / "."""
    ours, interval = findings.interval_pair(intervals, fmt)
    return summary.row(quantity, paper, ours, None, criterion, interval)


def reconstruction_texts(reconstruction: pd.DataFrame, first_order: FirstOrderErrors,
                         check_length: dict[str, int]) -> dict[str, str]:
    """The page's texts of the validation runs: each (sum, schedule, init)'s largest error on the test
    inputs, the largest errors of the step-integrated sum and of the book's bulk runs, the paper's
    every-step sum (:class:`FirstOrderErrors`) against its criterion, and each run's length
    (``check_length``: schedule -> iterations)."""
    by = reconstruction.set_index(["schedule", "init", "ePNTK"])
    texts = {f"kd_recon_{variant}_{name}_{init}": f"{by.loc[(name, init, label), 'max error, test inputs']:.2%}"
             for name in check_length for init in INITS for variant, label in VARIANTS.items()}
    return texts | {
        "kd_recon_step_worst": f"{largest_reconstruction_error(reconstruction, 'step'):.1e}",
        "kd_recon_bulk_worst": f"{largest_reconstruction_error(reconstruction, 'bulk'):.2%}",
        "ch08_first_order_max_error": f"{first_order.largest:.0%}",
        "ch08_first_order_worst": f"{first_order.worst[0]}, {first_order.worst[1]} init",
        "kd_first_order_each": first_order.each_text(), "kd_first_order_where": f"{first_order.where}",
        "kd_first_order_end": f"{first_order.end:.0%}",
        "kd_first_order_criterion": claims.criterion("epntk-multitask").text,
        "kd_check_length": " and ".join(f"{n} ({name})" for name, n in check_length.items())}


def order_texts(slopes: dict) -> dict[str, str]:
    """The page's texts of :func:`convergence_table`'s slopes ((schedule, init, inputs) -> (order over
    every halving, order of the last)): the range of the last orders and each order over every halving."""
    last = np.array([s_last for _, s_last in slopes.values()])
    return {"kd_order_min": f"{last.min():.2f}", "kd_order_max": f"{last.max():.2f}",
            **{f"kd_order_{name}_{init}_{inputs}": f"{s_all:.2f}" for (name, init, inputs), (s_all, _) in slopes.items()}}


def judge_first_order(first_order: FirstOrderErrors) -> claims.Judgement:
    """Claim ``epntk-multitask`` on the largest relative error of the paper's every-step eNTK sum."""
    return claims.judge("epntk-multitask", value=first_order.largest)


def first_order_findings(judgement: claims.Judgement, last_orders: np.ndarray, worst_step: float,
                         bulk_worst: float) -> dict[str, str]:
    """The "What we found" texts of the ePNTK checks: whether the error's order of convergence in the
    learning rate (``last_orders``) is first order, the claim's criterion and verdict, the largest
    errors of the step-integrated sum and of the book's runs, and the window thresholds."""
    return {"kd_find_order_reading": ("the first order of a forward-Euler sum: the error is the sum's, at the paper's "
                                      "learning rates" if is_first_order(last_orders) else
                                      "not yet the first order expected of a forward-Euler sum"),
            "kd_find_criterion": judgement.criterion, "kd_find_verdict": judgement.verdict,
            "kd_find_step_worst": f"{worst_step:.0e}", "kd_find_bulk_worst": f"{bulk_worst:.1%}",
            "kd_find_threshold_low": f"{attribution.THRESHOLDS[0]:g}",
            "kd_find_threshold_high": f"{attribution.THRESHOLDS[-1]:g}"}
