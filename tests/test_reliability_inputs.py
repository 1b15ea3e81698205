"""Inputs that used to pass and then count, train or report the wrong thing (issue 39): duplicate seeds,
learning rates that float32 cannot hold or that do not lower the loss, an empty training set, errors
naming another parameter than the one passed, dict parameters with keys of mixed types, one hidden
unit in the CPU kernel, resampling plans larger than the machine's memory, and the numerical edges
of the Fisher interval and of the leading vector of a zero matrix."""

from __future__ import annotations

import inspect
import tracemalloc
from types import SimpleNamespace

import jax
import numpy as np
import psutil
import pytest

from lib.analyses import controls, entk_vectors, horizon, within_scale
from lib.analyses.continuum_points import choose_learning_rate
from lib.analyses.rival_continuum import check_fit_seeds
from lib.book import chapter_parameters as cp
from lib.book import parameter_checks, runner
from lib.book.notebook_sources import notebook_parameters
from lib.core import training
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments.horizon_snapshots import snapshot_iterations
from lib.experiments.schedules import check_schedule_parameters


@pytest.fixture(autouse=True)
def no_allow_large(monkeypatch):
    monkeypatch.delenv("REPRO_ALLOW_LARGE", raising=False)


@pytest.fixture
def sixteen_gib(monkeypatch):
    """The machine's available memory, as psutil reports it, fixed at 16 GiB."""
    monkeypatch.setattr(psutil, "virtual_memory", lambda: SimpleNamespace(available=16 * 2**30))


def check(name: str, allow_large: bool = False, profile: str = "full", **changes):
    """Chapter ``name``'s checker on the book's parameters (of ``profile``) with ``changes``."""
    parameters = {**notebook_parameters(name), **runner.PROFILES[profile].get(name, {}), **changes}
    if allow_large:
        with cp.large_runs(True):
            return cp.check_chapter(name, parameters, allow_large=True)
    return cp.check_chapter(name, parameters)


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- duplicate seeds ------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, message", [
    (dict(tp_test_seeds=[11, 11, 11]), r"tp_test_seeds must hold distinct seeds .* \(repeated: \[11\]\)"),
    (dict(tp_fit_seeds=[10, 10]), r"tp_fit_seeds must hold distinct seeds .* \(repeated: \[10\]\)"),
])
def test_a_repeated_two_point_seed_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        check("13_rival_theories", **changes)


# --- learning rates -------------------------------------------------------------------------------
@pytest.mark.parametrize("rate", [1e-300, 1e-40])
def test_candidate_rates_that_are_zero_in_float32_are_refused(rate):
    with pytest.raises(ValueError, match=r"lr_candidates\[1\] must be in \[1\.175e-38, 3\.403e\+38\], the normal "):
        check("10_rich_lazy_continuum", lr_candidates=[0.01, rate])


def small_problem(n_hidden: int = 3, n_train: int = 30):
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, n_hidden)
    data, _ = env.make_data(0, n_train, 30, "iid", multitask=False, stream=0)
    return net, net.init(jax.random.PRNGKey(0)), {"x_train": data.x, "y_train": data.y}


@pytest.mark.parametrize("rate", [1e39, 1e-300])
def test_train_refuses_a_rate_float32_cannot_hold(rate):
    net, params, data = small_problem()
    with pytest.raises(ValueError, match=r"learning_rate must be in \[1\.175e-38, 3\.403e\+38\]"):
        training.train(net, params, data, rate, 10, 2)


def test_train_many_refuses_a_rate_that_is_zero_in_float32():
    net, params, data = small_problem()
    batched = jax.tree.map(lambda a: np.stack([a, a]), (params, data))
    with pytest.raises(ValueError, match=r"learning_rates must be a 1-D array of numbers in \[1\.175e-38"):
        training.train_many(net, *batched, np.array([0.01, 1e-300]), 10, 2)


def test_train_refuses_an_empty_training_set():
    net, params, data = small_problem()
    empty = {k: v[:0] for k, v in data.items()}
    with pytest.raises(ValueError, match=r"data\['x_train'\] must hold at least one training pattern.*got \(0, 24\)"):
        training.train(net, params, empty, 0.01, 10, 2)


def test_a_rate_whose_loss_did_not_fall_is_never_chosen():
    # the held-out networks' median loss at iteration 0 and at the end: 1e30 saturates the sigmoids at the first
    # step (the loss jumps to 3.97 and stays), 1e-30 moves no float32 weight
    initial = [np.array([0.89, 0.89, 0.89])] * 3
    final = [np.array([0.34, 0.37, 0.31]), np.array([3.97, 4.65, 2.33]), np.array([0.89, 0.89, 0.89])]
    assert choose_learning_rate([0.1, 1e30, 1e-30], final, initial) == 0.1
    with pytest.raises(ValueError, match=r"lr_candidates: no candidate learning rate lowered the median training loss"
                                         r".*1e\+30: 0\.89 -> 3\.97, 1e-30: 0\.89 -> 0\.89"):
        choose_learning_rate([1e30, 1e-30], final[1:], initial[1:])


# --- errors name the parameter the user passed ----------------------------------------------------
@pytest.mark.parametrize("name, changes, message", [
    ("10_rich_lazy_continuum", dict(robustness_iterations={"ET": 50, "LR": 1000}),
     r"^robustness_iterations\['ET'\] must be an integer >= 100"),
    ("10_rich_lazy_continuum", dict(robustness_iterations=[1000, 1000]), r"^robustness_iterations must be a dict"),
    ("12_prediction_horizon", dict(pair_first_seeds={"ET": -1, "LR": 100}), r"^pair_first_seeds\['ET'\] must be"),
    ("12_prediction_horizon", dict(pair_first_seeds={"ET": 7, "LR": 7}),
     r"^pair_first_seeds must give disjoint seed ranges"),
    ("12_prediction_horizon", dict(pair_first_seeds={"ET": 2**32 - 3, "LR": 0}),
     r"^pair_first_seeds\['ET'\] \+ pair_n_pairs - 1 must be"),
    ("12_prediction_horizon", dict(pair_iterations={"ET": 150, "LR": 1000}),
     r"^pair_iterations\['ET'\] must be a multiple of 100"),
    ("12_prediction_horizon", dict(pair_fractions=[0.0, 0.0001, 0.5]),
     r"^pair_fractions must give strictly increasing iterations"),
    ("12_prediction_horizon", dict(finetune_fractions=[0.0, 0.00001, 0.5]),
     r"^finetune_fractions must give strictly increasing iterations"),
    ("13_rival_theories", dict(continuum_fit_seeds=[1001, 1001]), r"^continuum_fit_seeds must be distinct seeds"),
    ("13_rival_theories", dict(continuum_fit_seeds="x"), r"^continuum_fit_seeds must be an integer"),
    ("05_multitask_performance", dict(n_verdict_pairs=300), r"^n_verdict_pairs must be an integer in \[2, 200\]"),
])
def test_an_error_names_the_chapters_own_parameter(name, changes, message):
    with pytest.raises(ValueError, match=message) as error:
        check(name, **changes)
    one_line(error)


def test_the_shared_checks_name_the_callers_parameters():
    with pytest.raises(ValueError, match=r"^pair_n_pairs must be an integer in \[2, 200\]"):
        check_schedule_parameters(300, {"ET": 0, "LR": 100}, {"ET": 1000, "LR": 1000}, "pair_n_pairs")
    with pytest.raises(ValueError, match=r"^pair_iterations\['LR'\] must be a multiple of 100"):
        check_schedule_parameters(4, {"ET": 0, "LR": 100}, {"ET": 1000, "LR": 150}, iterations_name="pair_iterations")
    with pytest.raises(ValueError, match=r"^pair_fractions must be a non-empty 1-D list"):
        snapshot_iterations([0.0, 2.0], 100, fractions_name="pair_fractions")
    with pytest.raises(ValueError, match=r"^continuum_fit_seeds must be distinct seeds below 100000 .*outside the "
                                         r"analysed seeds 0\.\.29 \(converged_seeds = 30\), got \[5\]"):
        check_fit_seeds([5], 30, fit_seeds_name="continuum_fit_seeds", n_analysed_name="converged_seeds")
    with pytest.raises(ValueError, match=r"outside the analysed seeds 1000\.\.1029"):
        check_fit_seeds([1005], 30, first_analysed=1000)
    assert check_fit_seeds([5], 30, first_analysed=1000) == (5,)  # a fresh block frees the book's seeds
    with pytest.raises(ValueError, match=r"^converged_seeds must be an integer >= 1"):
        check_fit_seeds([5], 0, n_analysed_name="converged_seeds")


@pytest.mark.parametrize("parameter", ["first_seeds", "iterations"])
def test_schedule_parameters_with_keys_of_mixed_types_are_a_one_line_error(parameter):
    parameters = {"first_seeds": {"ET": 0, "LR": 100}, "iterations": {"ET": 1000, "LR": 1000},
                  parameter: {1: 0, "a": 0}}
    with pytest.raises(ValueError, match=rf"^{parameter} must be a dict with keys \['ET', 'LR'\]") as error:
        check_schedule_parameters(4, **parameters)
    one_line(error)


@pytest.mark.parametrize("name, parameter", [
    ("05_multitask_performance", "first_seeds"), ("06_correlation_analysis", "iterations"),
    ("08_entk_over_training", "node_every"), ("08_entk_over_training", "check_iterations"),
    ("10_rich_lazy_continuum", "iterations"), ("10_rich_lazy_continuum", "robustness_iterations"),
    ("12_prediction_horizon", "converged_iterations"), ("12_prediction_horizon", "pair_iterations"),
])
def test_a_dict_with_keys_of_mixed_types_is_a_one_line_error(name, parameter):
    with pytest.raises(ValueError, match=rf"^{parameter} must be a dict with (the )?keys") as error:
        check(name, **{parameter: {1: 1000, "a": 1000}})
    one_line(error)


# --- one hidden unit in the CPU kernel ------------------------------------------------------------
def test_one_hidden_unit_trains_with_the_numba_engine_as_with_the_reference():
    net, params, data = small_problem(n_hidden=1)
    before = jax.tree.map(np.array, params)
    fast = training.train(net, params, data, 0.01, 10, 2, engine="numba")
    reference = training.train(net, params, data, 0.01, 10, 2, engine="reference")
    np.testing.assert_allclose(fast[1]["loss_train"], reference[1]["loss_train"], rtol=1e-5)
    jax.tree.map(np.testing.assert_array_equal, jax.tree.map(np.asarray, params), before)  # trained on a copy


# --- memory of resampling plans -------------------------------------------------------------------
@pytest.mark.parametrize("name, changes, message", [
    ("10_rich_lazy_continuum", dict(n_permutations=10**9), r"^n_resamples and n_permutations: .* fit in the 16 GiB"),
    ("10_rich_lazy_continuum", dict(n_resamples=10**9), r"^n_resamples and n_permutations: .* fit in the 16 GiB"),
    ("06_correlation_analysis", dict(n_resamples=10**9), r"^n_resamples x the 200 networks .* must fit in the 16 GiB"),
    ("05_multitask_performance", dict(n_verdict_pairs=10**9), r"^n_verdict_pairs: the plan's seeds, .* 16 GiB"),
    ("04_multitask_representations", dict(n_permutations=10**9),
     r"^n_permutations: the shuffled-label null .* 16 GiB .*, got about 1\.21e\+04 GiB"),
    ("12_prediction_horizon", dict(n_resamples=10**9),
     r"^n_resamples: the bootstrap of the earliest fraction, .* 16 GiB .*, got about 142 GiB"),
])
def test_resampling_larger_than_the_memory_is_refused_even_when_allowed(sixteen_gib, name, changes, message):
    with pytest.raises(ValueError, match=message) as error:
        check(name, allow_large=True, **changes)
    assert "no --allow-large lifts this" in one_line(error)


@pytest.mark.parametrize("profile", ["full", "quick"])
@pytest.mark.parametrize("name", ["04_multitask_representations", "06_correlation_analysis",
                                  "10_rich_lazy_continuum", "12_prediction_horizon"])
def test_the_books_resampling_plans_fit_in_the_memory(sixteen_gib, name, profile):
    check(name, profile=profile)


def traced_peak(function, *args) -> int:
    """The most bytes that ``function(*args)`` held at once, as tracemalloc (which sees NumPy's arrays) counts."""
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_resampling_byte_counts_are_the_arrays_the_code_allocates():
    rng = np.random.default_rng(0)
    for n_patterns, n_groups, n_columns in ((500, 12, 9), (500, 40, 9), (200, 4, 3)):  # either moment the larger
        labels = rng.integers(0, n_groups, n_patterns)
        peak = traced_peak(controls.eta_squared_permutation, rng.normal(size=(n_patterns, n_columns)), labels, 300)
        assert 0.95 < peak / parameter_checks.shuffle_null_bytes(n_patterns, n_groups, 300, n_columns) < 1.1
    values, groups = rng.normal(size=(9, 3, 8)), np.repeat([0, 1], 4)
    peak = traced_peak(horizon.earliest_fraction_interval, values, rng.normal(size=8), groups, [0.0, 0.1, 0.2], 0.5,
                       4000)
    assert 0.95 < peak / parameter_checks.bootstrap_interval_bytes(9, 4000) < 1.1
    assert parameter_checks.STRUCTURE_PATTERNS == inspect.signature(
        controls.run_initial_structure).parameters["n_train"].default


# --- numerical edges ------------------------------------------------------------------------------
def test_fisher_interval_of_three_pairs_is_the_whole_range():
    assert within_scale.fisher_interval(0.5, 3) == (-1.0, 1.0)
    assert within_scale.fisher_interval(-0.2, 2) == (-1.0, 1.0)


@pytest.mark.parametrize("r", [1.0, -1.0])
def test_fisher_interval_of_a_perfect_correlation_contains_it(r):
    lo, hi = within_scale.fisher_interval(r, 10)
    assert lo <= r <= hi


def test_leading_vector_of_a_zero_matrix_is_refused():
    with pytest.raises(ValueError, match=r"^matrix must have a nonzero entry \(a zero matrix has no leading vector\)"):
        entk_vectors.leading_vector(np.zeros((4, 4)))
    entk = np.ones((3, 4, 4))
    entk[1] = 0.0
    with pytest.raises(ValueError, match=r"^entk\[k\] must have a nonzero entry for every output k.*k in \[1\]"):
        entk_vectors.leading_vectors(entk)


def test_quickstart_iterations_must_be_a_multiple_of_100_as_its_table_says():
    """Chapter 00's parameter table promises a multiple of 100; 150 passed the check and failed in the run."""
    from lib.book.chapter_parameters import check_quickstart

    with pytest.raises(ValueError, match=r"n_iterations must be a multiple of 100 .* got 150"):
        check_quickstart(0, "ET", 150, 200, "principled")
    check_quickstart(0, "ET", 200, 200, "principled")


def test_the_runner_refuses_a_dict_parameter_with_mixed_key_types_in_one_line(tmp_path):
    """The runner's pre-flight once serialised parameters with sorted JSON keys and crashed on
    {'single': 100, 1: 5} with a 21-line TypeError before the chapter's check could refuse it."""
    from lib.book.notebook_sources import ParameterError
    from lib.book.run_parameters import check_ranges

    with pytest.raises(ParameterError, match=r"10_rich_lazy_continuum: iterations must be a dict with the keys"):
        check_ranges([("10_rich_lazy_continuum", {"iterations": {"single": 100, 1: 5}}, tmp_path)])
