"""Every chapter's parameters are checked by one checker (lib.book.chapter_parameters): the book's and the
quick profile's parameters pass, one bad value per chapter stops with a message naming the parameter
and its allowed values, each notebook's check cell calls its checker once, and the runner refuses the
bad value before any notebook starts."""

from __future__ import annotations

import ast

import pytest

from lib.book import chapter_parameters as cp
from lib.book import notebook_sources, run_parameters, runner
from lib.core.tasks import ARCHITECTURES, TaskEnvironment, environment_key

BAD = {
    "00_quickstart": (dict(entk_variant="rows"),
                      r"entk_variant must be one of \['principled', 'authors'\], got 'rows'"),
    "01_one_step_entk": (dict(n_learning_rates=2), r"n_learning_rates must be an integer >= 3, got 2"),
    "02_smg_validation": (dict(analysis_times=[770, 190]), r"analysis_times must be two recorded iterations"),
    "03_epntk": (dict(n_halvings=1), r"n_halvings must be an integer >= 2, got 1"),
    "04_multitask_representations": (dict(architecture="5x5"),
                                     r"architecture must be one of \['4x3', '3x4'\], got '5x5'"),
    "05_multitask_performance": (dict(large_scaling="none"),
                                 r"large_scaling must be one of \['both_layers', 'layer1_only'\], got 'none'"),
    "06_correlation_analysis": (dict(compare_choices="yes"), r"compare_choices must be one of \[True, False\]"),
    "07_reproduction_summary": (dict(chapters=["99_missing"]),
                                r"chapters must be None \(every chapter that judges claims\) or a non-empty list of notebook names from "
                                r"\[.*got \['99_missing'\]"),
    "08_entk_over_training": (dict(index_set="rows"),
                              r"index_set must be one of \['principled', 'authors'\], got 'rows'"),
    "09_your_own_network": (dict(cnn_channels=0), r"cnn_channels must be an integer >= 1, got 0"),
    "10_rich_lazy_continuum": (dict(g_min=20.0, g_max=0.1), r"g_min < g_max, got 20\.0, 0\.1"),
    "11_explorer": (dict(architecture="5x5"), r"architecture must be one of \['4x3', '3x4'\], got '5x5'"),
    "12_prediction_horizon": (dict(fractions=[0.01, 0.1, 0.5]), r"fractions must start at 0 \(t=0\)"),
    "13_rival_theories": (dict(tp_fit_seeds=[0, 1]), r"tp_fit_seeds and tp_test_seeds must be non-empty, disjoint and >= 10"),
}


@pytest.fixture(autouse=True)
def no_allow_large(monkeypatch):
    monkeypatch.delenv("REPRO_ALLOW_LARGE", raising=False)


def parameters(name: str, profile: str = "full", **changes) -> dict:
    """The notebook's parameters under ``profile``, with ``changes``."""
    return {**notebook_sources.notebook_parameters(name), **runner.PROFILES[profile].get(name, {}), **changes}


def test_every_notebook_has_one_checker():
    assert sorted(cp.CHECKERS) == sorted(notebook_sources.NOTEBOOKS) == sorted(BAD)


@pytest.mark.parametrize("name", notebook_sources.NOTEBOOKS)
def test_each_check_cell_checks_its_own_chapter_once(name):
    """A chapter's check cell calls ``check_chapter`` once, with its own name and its ``globals()`` (so
    no parameter is restated there), and calls no checker directly."""
    tree = ast.parse(notebook_sources.check_cell_source(name))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    assert [ast.unparse(c) for c in calls if c.func.id == "check_chapter"] == [f"check_chapter('{name}', globals())"]
    checkers = {checker.__name__ for checker in cp.CHECKERS.values()}
    assert not [c.func.id for c in calls if c.func.id in checkers]


@pytest.mark.parametrize("profile", ["full", "quick"])
@pytest.mark.parametrize("name", sorted(cp.CHECKERS))
def test_the_book_and_quick_parameters_pass(name, profile):
    cp.check_chapter(name, parameters(name, profile))


@pytest.mark.parametrize("name", sorted(BAD))
def test_one_bad_value_per_chapter_names_itself(name):
    changes, message = BAD[name]
    with pytest.raises(ValueError, match=message):
        cp.check_chapter(name, parameters(name, **changes))


def test_the_runner_refuses_a_bad_value_before_any_notebook_runs(tmp_path):
    runs = [("00_quickstart", {}, tmp_path), ("04_multitask_representations", {"architecture": "5x5"}, tmp_path)]
    with pytest.raises(notebook_sources.ParameterError,
                       match=r"04_multitask_representations: architecture must be one of"):
        run_parameters.check_ranges(runs)


def test_the_kernel_dynamics_plan_names_its_fields():
    plan = cp.check_chapter("08_entk_over_training", parameters("08_entk_over_training", "quick"))
    for schedule, entry in plan.items():
        assert isinstance(entry, cp.KernelDynamicsPlan)
        assert entry.check_phases[-1][0] == entry.check_iterations <= entry.n_iterations
        assert entry.check_snapshots >= 2 and len(entry.seeds) == runner.PROFILES["quick"]["08_entk_over_training"][
            "n_pairs"]


def test_architectures_and_the_environment_key():
    assert ARCHITECTURES == {"4x3": (4, 3, 3), "3x4": (3, 4, 3)}
    for shape in ARCHITECTURES.values():
        assert environment_key(TaskEnvironment(*shape)) == list(shape)


@pytest.mark.parametrize("kwargs, message", [
    (dict(analysis_times=[190, 775]), "analysis_times must be two recorded iterations"),
    (dict(analysis_times=[190]), "analysis_times must be two recorded iterations"),
    (dict(n_iterations=2505), "n_iterations must be a multiple of record_every"),
    (dict(learning_rate=0), "learning_rate must be a positive"),
    (dict(seed=-2), "seed must be an integer >= 0"),
])
def test_smg_parameters_are_checked(kwargs, message):
    params = dict(seed=0, learning_rate=0.2, n_iterations=2500, record_every=10, analysis_times=[190, 770]) | kwargs
    with pytest.raises(ValueError, match=message):
        cp.check_smg_parameters(**params)


# the converged continuum's parameters: one checker (parameter_checks.check_converged_continuum) for
# chapters 12 and 13, whose messages name each notebook's own parameter
SHARED = [
    ("n_train", "converged_n_train", 10, r" must be an integer >= 24, got 10"),
    ("n_hidden", "converged_n_hidden", 0, r" must be an integer >= 1, got 0"),
    ("converged_seeds", "converged_seeds", 3, r" must be an integer >= 4"),
    ("first_block", "first_block", 0, r" must be an integer >= 1"),
    ("lr_choice_iterations", "lr_choice_iterations", 5, r" must be an integer >= 10, got 5"),
    ("n_lr_seeds", "n_lr_seeds", 0, r" must be an integer >= 1, got 0"),
    ("converged_only", "converged_only", "yes", r" must be one of \[True, False\], got 'yes'"),
    ("lr_candidates", "lr_candidates", [0.1, -1.0], r"\[1\] must be a finite number in \(0, "),
    ("converged_scales", "converged_scales", [1.0], r" must be a list of at least 2 distinct numbers"),
]


@pytest.mark.parametrize("name_12, name_13, value, message", SHARED)
def test_a_shared_converged_continuum_parameter_is_named_as_each_chapter_calls_it(name_12, name_13, value, message):
    for chapter, name in (("12_prediction_horizon", name_12), ("13_rival_theories", name_13)):
        with pytest.raises(ValueError, match=rf"^{name}{message}"):  # anchored: the notebook's own name
            cp.check_chapter(chapter, parameters(chapter, "quick", **{name: value}))


@pytest.mark.parametrize("chapter", ["10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories"])
def test_the_converged_iterations_are_checked_alike_in_the_three_chapters(chapter):
    iterations = dict(parameters(chapter)["converged_iterations"], finetune=105)  # not a multiple of 10
    with pytest.raises(ValueError, match=r"converged_iterations\['finetune'\] must be a multiple of 10"):
        cp.check_chapter(chapter, parameters(chapter, converged_iterations=iterations))


def test_check_chapter_names_an_unknown_chapter_and_a_missing_parameter():
    with pytest.raises(ValueError, match=r"no chapter '99_nope'; the chapters are \[.*'00_quickstart'"):
        cp.check_chapter("99_nope", {})
    given = {k: v for k, v in parameters("00_quickstart").items() if k != "n_hidden"}
    with pytest.raises(ValueError, match=r"00_quickstart: parameters \['n_hidden'\] are not set"):
        cp.check_chapter("00_quickstart", given)
