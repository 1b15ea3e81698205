"""Bad inputs are refused before any work: the runner never writes into the published book except
for ``make book`` (full profile, the book's own parameters), every other user error of its command
line is one line and exit status 2, and chapters 02, 08 and 10 check every parameter in their first
cell (their checkers in lib.book.chapter_parameters called here directly, or that cell executed with the
bad value)."""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from lib.analyses.continuum_sweeps import scale_grid
from lib.book import chapter_parameters as cp
from lib.book import notebook_sources, run_parameters, runner

REAL_EXECUTE = runner.execute
REAL_CHECK_RANGES = run_parameters.check_ranges


@pytest.fixture(autouse=True)
def no_allow_large(monkeypatch):
    monkeypatch.delenv("REPRO_ALLOW_LARGE", raising=False)


# ------------------------------------------------------------------ the runner


class Book(type(Path())):
    """A path that also carries the list of calls of the stub ``execute``."""

    calls: list


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A stand-in for book/executed under tmp_path (the real one is never touched), the quick
    profile's folders under tmp_path, and ``execute`` replaced by a stub recording its calls (the
    notebooks' own checks still run unless a test replaces them too)."""
    executed = Book(tmp_path / "repo" / "book" / "executed")
    executed.mkdir(parents=True)
    (executed / "00_quickstart.ipynb").write_text("published")
    monkeypatch.setattr(runner, "EXECUTED_DIR", executed)
    monkeypatch.setattr(runner, "QUICK_DIR", tmp_path / "quick")
    calls = []

    def fake_execute(name, parameters, output_dir, force=False, profile="full", results=None, allow_large=False):
        calls.append({"name": name, "parameters": parameters, "output_dir": Path(output_dir), "profile": profile,
                      "allow_large": allow_large})
        return Path(output_dir) / f"{name}.ipynb"

    monkeypatch.setattr(runner, "execute", fake_execute)
    executed.calls = calls
    return executed


@pytest.fixture
def no_range_checks(monkeypatch):
    """Skip the notebooks' own checks (a child process) where a test is about the output folder."""
    monkeypatch.setattr(runner, "check_ranges", lambda runs, allow_large=False, timeout=600: None)


def listing(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()} if folder.exists() else None


def refused(argv, capsys, message="refusing to write into the published book"):
    """main(argv) refuses with exit status 2 and one line on stderr containing ``message``."""
    assert runner.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_full_profile_with_a_parameter_and_no_output_dir_is_refused(book, capsys, no_range_checks):
    before = listing(book)
    refused(["--only", "00_quickstart", "-p", "n_iterations=1000"], capsys)
    refused(["--only", "00_quickstart", "01_one_step_entk", "-p", "seed=1"], capsys)
    assert book.calls == [] and listing(book) == before


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_dotdot_into_the_book_is_refused(book, capsys, no_range_checks, profile):
    sneaky = book.parent / ".." / "book" / "executed"
    extra = ["-p", "n_iterations=1000"] if profile == "full" else []
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir", str(sneaky), *extra], capsys)
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir", str(book / "sub" / ".."), *extra], capsys)
    assert book.calls == []


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_symlink_into_the_book_is_refused(book, tmp_path, capsys, no_range_checks, profile):
    link = tmp_path / "innocent"
    link.symlink_to(book, target_is_directory=True)
    extra = ["-p", "n_iterations=1000"] if profile == "full" else []
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir", str(link), *extra], capsys)
    parent_link = tmp_path / "parent"
    parent_link.symlink_to(book.parent, target_is_directory=True)
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir", str(parent_link / "executed"), *extra],
            capsys)
    assert book.calls == []


def test_folders_inside_the_book_are_refused_even_at_the_books_parameters(book, capsys, no_range_checks):
    refused(["--only", "00_quickstart", "--output-dir", str(book / "sweep")], capsys)
    refused(["--only", "00_quickstart", "--grid", "seed=0,1", "--output-dir", str(book / "sweeps")], capsys)
    refused(["--profile", "quick", "--only", "00_quickstart", "--output-dir", str(book / "a" / "b")], capsys)
    assert book.calls == [] and not (book / "sweep").exists() and not (book / "a").exists()


def test_the_real_book_folder_is_refused_before_anything_is_written(capsys, monkeypatch, tmp_path):
    """Against the real book/executed: the refusal comes before any notebook runs or any folder is made."""
    calls = []
    monkeypatch.setattr(runner, "execute", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(runner, "check_ranges", lambda *a, **k: calls.append("checks"))
    before = listing(runner.EXECUTED_DIR)
    sneaky = runner.REPO_ROOT / "book" / "_no_such_folder" / ".." / "executed"
    refused(["--profile", "quick", "--only", "00_quickstart", "--output-dir", str(sneaky)], capsys)
    refused(["--only", "00_quickstart", "-p", "seed=3"], capsys)
    link = tmp_path / "to_book"
    link.symlink_to(runner.EXECUTED_DIR, target_is_directory=True)
    if runner.EXECUTED_DIR.exists():
        refused(["--profile", "quick", "--only", "00_quickstart", "--output-dir", str(link)], capsys)
    else:  # a dangling link: refused as unusable, still before anything runs
        refused(["--profile", "quick", "--only", "00_quickstart", "--output-dir", str(link)], capsys,
                message="symbolic link")
    assert calls == [] and listing(runner.EXECUTED_DIR) == before
    assert not (runner.REPO_ROOT / "book" / "_no_such_folder").exists()


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_the_notebook_sources_folder_is_refused(book, capsys, no_range_checks, profile):
    """Executed notebooks written to notebooks/ would replace the paired sources notebooks/*.ipynb."""
    before = listing(notebook_sources.NOTEBOOK_DIR)
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir", str(notebook_sources.NOTEBOOK_DIR)],
            capsys, "would replace the paired sources")
    refused(["--profile", profile, "--only", "00_quickstart", "--output-dir",
             str(notebook_sources.NOTEBOOK_DIR / ".." / "notebooks")], capsys, "would replace the paired sources")
    assert book.calls == [] and listing(notebook_sources.NOTEBOOK_DIR) == before


def test_execute_itself_refuses_the_book_with_other_parameters(book):
    before = listing(book)
    with pytest.raises(notebook_sources.ParameterError, match="refusing to write into the published book"):
        REAL_EXECUTE("00_quickstart", {"seed": 1}, book)
    with pytest.raises(notebook_sources.ParameterError, match="quick profile"):
        REAL_EXECUTE("00_quickstart", {}, book.parent / ".." / "book" / "executed", profile="quick")
    assert listing(book) == before


def test_make_book_still_writes_the_book(book, no_range_checks, capsys):
    """``make book`` = ``--profile full`` without overrides: every notebook, into book/executed."""
    assert runner.main(["--profile", "full"]) == 0
    assert [c["name"] for c in book.calls] == list(notebook_sources.NOTEBOOKS)
    assert all(c["output_dir"].resolve() == book.resolve() and c["parameters"] == {} and c["profile"] == "full"
               for c in book.calls)
    book.calls.clear()
    assert runner.main(["--only", "03_epntk", "--force", "--output-dir", str(book.parent / ".." / "book" / "executed")]) == 0
    assert [c["name"] for c in book.calls] == ["03_epntk"]


def test_other_folders_take_any_parameters(book, tmp_path, no_range_checks):
    out = tmp_path / "elsewhere"
    assert runner.main(["--only", "00_quickstart", "-p", "n_iterations=1000", "--output-dir", str(out)]) == 0
    assert book.calls[0]["output_dir"] == out.absolute() and book.calls[0]["parameters"] == {"n_iterations": 1000}
    assert runner.main(["--profile", "quick", "--only", "00_quickstart", "--grid", "seed=0,1",
                        "--output-dir", str(out)]) == 0
    assert [c["output_dir"].parent for c in book.calls[1:]] == [out.resolve()] * 2


@pytest.mark.parametrize("make_argv, message", [
    (lambda tmp: ["--output-dir", ""], "--output-dir must name a folder"),
    (lambda tmp: ["--output-dir", "  "], "--output-dir must name a folder"),
    (lambda tmp: ["--output-dir", str(tmp / "a_file")], "is an existing file"),
    (lambda tmp: ["--output-dir", str(tmp / "a_file" / "sub")], "which is an existing file"),
    (lambda tmp: ["--output-dir", str(tmp / "dangling")], "dangling or looping symbolic link"),
    (lambda tmp: ["--output-dir", str(tmp / "loop" / "x")], "dangling or looping symbolic link"),
    (lambda tmp: ["--output-dir"], "expected one argument"),
    (lambda tmp: ["--profile", "paper"], "invalid choice: 'paper'"),
    (lambda tmp: ["--only", "11_nothing"], "invalid choice: '11_nothing'"),
    (lambda tmp: ["--no-such-option"], "unrecognized arguments: --no-such-option"),
    (lambda tmp: ["-p"], "expected one argument"),
    (lambda tmp: ["-p", "seed"], "parameters are given as name=value"),
    (lambda tmp: ["-p", "seed=[1", "--output-dir", str(tmp / "o")], "not a Python literal"),
    (lambda tmp: ["-p", "colour=1", "--output-dir", str(tmp / "o")], "has no parameter colour"),
    (lambda tmp: ["-p", "seed=0.5", "--output-dir", str(tmp / "o")], "seed must be an integer"),
    (lambda tmp: ["--grid", "seed=", "--output-dir", str(tmp / "o")], "a grid is given as name=value1"),
    (lambda tmp: ["--grid-spec", "seed='0", "--output-dir", str(tmp / "o")], "not a valid list"),
    (lambda tmp: ["--grid", "seed=0,1"], "a grid needs an --output-dir of its own"),
])
def test_other_user_errors_are_one_line_and_exit_status_2(book, tmp_path, capsys, no_range_checks, make_argv,
                                                           message):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    refused(["--only", "00_quickstart", *make_argv(tmp_path)], capsys, message)
    assert book.calls == [] and not (tmp_path / "o").exists() and not (tmp_path / "nowhere").exists()


def test_an_empty_results_folder_variable_is_a_user_error(book, tmp_path, capsys, no_range_checks, monkeypatch):
    monkeypatch.setenv("REPRO_RESULTS_DIR", "")
    refused(["--only", "00_quickstart", "--output-dir", str(tmp_path / "o")], capsys, "REPRO_RESULTS_DIR")
    assert book.calls == []


def test_help_exits_0(capsys):
    assert runner.main(["--help"]) == 0
    assert "--output-dir" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--only", "02_smg_validation", "-p", "analysis_times=[770, 190]"], "analysis_times must be two recorded"),
    (["--only", "08_entk_over_training", "-p", "n_halvings=30"], "n_halvings must be an integer in [2, 10]"),
    (["--only", "10_rich_lazy_continuum", "-p", "g_min=1.00001", "-p", "g_max=1.00002"], "give 1 distinct init scales"),
    (["--only", "00_quickstart", "--grid", "seed=0,-1"], "seed must be an integer >= 0"),
])
def test_range_errors_stop_the_runner_before_any_kernel(book, tmp_path, capsys, argv, message):
    refused([*argv, "--output-dir", str(tmp_path / "o")], capsys, message)
    assert book.calls == []


def test_allow_large_reaches_the_notebooks_checks(book, tmp_path, capsys):
    argv = ["--only", "08_entk_over_training", "-p", "n_halvings=12", "--output-dir", str(tmp_path / "o")]
    refused(argv, capsys, "--allow-large")
    assert runner.main([*argv, "--allow-large"]) == 0  # the stub runs instead of a day-long notebook
    assert book.calls[0]["allow_large"] is True and "REPRO_ALLOW_LARGE" not in os.environ


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_every_notebooks_checks_pass_at_the_book_and_quick_parameters(profile):
    runs = [(name, run_parameters.check_parameters(name, dict(runner.PROFILES[profile].get(name, {}))), None)
            for name in notebook_sources.NOTEBOOKS]
    REAL_CHECK_RANGES(runs)


# ------------------------------------------------------------------ the helpers of lib.core.validation


def test_validation_helpers_reject_what_the_chapters_rely_on(monkeypatch):
    from lib.core import validation as v

    for bad in ([math.inf], [math.nan], [1.0, math.inf]):
        with pytest.raises(ValueError, match=r"values\[\d\] must be a finite number"):
            v.check_number_list("values", bad, 0.0, math.inf)
    assert v.check_number_list("values", [1, 2.5], 0.0, math.inf) == [1.0, 2.5]
    with pytest.raises(ValueError, match=r"values must be .* in increasing order, got \[2\.0, 1\.0\]"):
        v.check_number_list("values", [2.0, 1.0], 0.0, 10.0, increasing=True)
    with pytest.raises(ValueError, match=r"allow_large must be True, False or None.*got 'yes'"):
        v.allow_large_runs("yes")
    monkeypatch.setenv("REPRO_ALLOW_LARGE", "1")
    with v.large_runs(False):
        assert not v.large_runs_allowed()
    assert v.large_runs_allowed() and os.environ["REPRO_ALLOW_LARGE"] == "1"
    monkeypatch.delenv("REPRO_ALLOW_LARGE")
    with v.large_runs(True):
        assert v.check_size("n", 10**9, minimum=1, sane_maximum=10) == 10**9
    assert "REPRO_ALLOW_LARGE" not in os.environ
    with pytest.raises(ValueError, match=r"n must be an integer >= 1 and <= 20, got 30"):
        v.check_size("n", 30, minimum=1, sane_maximum=10, maximum=20, allow_large=True)


# ------------------------------------------------------------------ chapter 02 (and 03): SMG


SMG = dict(seed=0, learning_rate=0.2, n_iterations=2500, record_every=10, analysis_times=[190, 770], n_sweep_seeds=20)


def smg_profiles():
    for chapter in ("02_smg_validation", "03_epntk"):
        for profile in ("full", "quick"):
            params = {**notebook_sources.notebook_parameters(chapter), **runner.PROFILES[profile].get(chapter, {})}
            yield chapter, profile, params


@pytest.mark.parametrize("chapter, profile, params", list(smg_profiles()), ids=lambda v: v if isinstance(v, str) else "")
def test_smg_checks_pass_at_the_book_and_quick_parameters(chapter, profile, params):
    keys = ["seed", "learning_rate", "n_iterations", "record_every", "analysis_times"]
    sweep = {"n_sweep_seeds": params["n_sweep_seeds"]} if "n_sweep_seeds" in params else {}
    cp.check_smg_parameters(**{k: params[k] for k in keys}, **sweep)


@pytest.mark.parametrize("changes, message", [
    (dict(analysis_times=[770, 190]), r"analysis_times must be two recorded iterations \[t1, t2\] with t1 < t2.*"
                                      r"got \[770, 190\]"),
    (dict(analysis_times=[190, 190]), r"t1 < t2.*got \[190, 190\]"),
    (dict(analysis_times=(770, 190)), r"t1 < t2.*got \(770, 190\)"),
    (dict(analysis_times=[195, 770]), r"multiples of record_every = 10 in 10\.\.2500\), got \[195, 770\]"),
    (dict(analysis_times=[190, 2510]), r"in 10\.\.2500\), got \[190, 2510\]"),
    (dict(analysis_times=[0, 770]), r"in 10\.\.2500\), got \[0, 770\]"),
    (dict(analysis_times=[-10, 770]), r"got \[-10, 770\]"),
    (dict(analysis_times=[190.0, 770]), r"integers.*got \[190\.0, 770\]"),
    (dict(analysis_times=[True, 770], record_every=1), r"integers.*got \[True, 770\]"),
    (dict(analysis_times=[190, 770, 1000]), r"two recorded iterations.*got \[190, 770, 1000\]"),
    (dict(analysis_times="190,770"), r"two recorded iterations.*got '190,770'"),
    (dict(analysis_times=[770, 190], n_iterations=800, record_every=1), r"t1 < t2.*record_every = 1 in 1\.\.800"),
    (dict(learning_rate=7.0), r"learning_rate must be in \(0, 6\.94\).*got 7\.0"),
    (dict(learning_rate=1e6), r"learning_rate must be in \(0, 6\.94\)"),
    (dict(learning_rate=math.inf), r"learning_rate must be a positive finite number"),
    (dict(learning_rate=math.nan), r"learning_rate must be a positive finite number"),
    (dict(learning_rate=-0.2), r"learning_rate must be a positive finite number"),
    (dict(record_every=0), r"record_every must be an integer >= 1, got 0"),
    (dict(record_every=2.5), r"record_every must be an integer, got 2\.5"),
    (dict(n_iterations=2505), r"n_iterations must be a multiple of record_every \(10\), got 2505"),
    (dict(n_iterations=5, record_every=10, analysis_times=[5, 5]), r"n_iterations must be an integer >= 10, got 5"),
    (dict(n_iterations=2499, record_every=7, analysis_times=[189, 770]),
     r"n_iterations must be a multiple of 10 \(the half-time sweep records every 10 iterations\), got 2499"),
    (dict(n_iterations=200_000), r"n_iterations must be an integer in \[10, 100000\].*--allow-large"),
    (dict(n_iterations=20_000, record_every=1), r"n_iterations / record_every.*must be <= 10000.*got 20000"),
    (dict(n_sweep_seeds=0), r"n_sweep_seeds must be an integer >= 1, got 0"),
    (dict(n_sweep_seeds=501), r"n_sweep_seeds must be an integer in \[1, 500\].*got 501"),
    (dict(seed=2**32), r"seed must be an integer >= 0 and <= 4294967295"),
    (dict(seed=-1), r"seed must be an integer >= 0"),
])
def test_smg_bad_parameters_name_themselves(changes, message):
    with pytest.raises(ValueError, match=message):
        cp.check_smg_parameters(**{**SMG, **changes})


def test_smg_large_runs_need_allow_large():
    long = {**SMG, "n_iterations": 200_000, "record_every": 100, "analysis_times": [200, 800]}
    with pytest.raises(ValueError, match=r"n_iterations must be an integer in \[100, 100000\].*got 200000"):
        cp.check_smg_parameters(**long)
    cp.check_smg_parameters(**long, allow_large=True)
    big = {**SMG, "n_iterations": 20_000, "record_every": 1, "n_sweep_seeds": 600}
    with pytest.raises(ValueError, match="allow_large=True"):
        cp.check_smg_parameters(**big)
    cp.check_smg_parameters(**big, allow_large=True)
    with pytest.raises(ValueError, match="learning_rate"):  # not a size: no confirmation lifts it
        cp.check_smg_parameters(**{**big, "learning_rate": 10.0}, allow_large=True)


# ------------------------------------------------------------------ chapter 08: the eNTK over training


KD_NAMES = ["architecture", "n_pairs", "first_seeds", "iterations", "n_snapshots", "node_every",
            "path_kernel", "n_points", "n_rows", "check_rows", "check_iterations", "n_halvings",
            "convergence_iterations", "window_threshold", "index_set"]


def kd_check(profile="full", allow_large=None, **changes):
    params = {**notebook_sources.notebook_parameters("08_entk_over_training"),
              **runner.PROFILES[profile].get("08_entk_over_training", {}), **changes}
    return cp.check_entk_over_training(*(params[k] for k in KD_NAMES), allow_large=allow_large)


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_kernel_dynamics_checks_pass_at_the_book_and_quick_parameters(profile):
    plan = kd_check(profile)
    assert sorted(plan) == ["ET", "LR"]


@pytest.mark.parametrize("changes, message", [
    (dict(n_halvings=1), r"n_halvings must be an integer >= 2 and <= 31, got 1"),
    (dict(n_halvings=11), r"n_halvings must be an integer in \[2, 10\].*got 11.*--allow-large"),
    (dict(n_halvings=64), r"n_halvings must be an integer >= 2 and <= 31, got 64"),
    (dict(n_halvings=6.0), r"n_halvings must be an integer, got 6\.0"),
    (dict(n_halvings=True), r"n_halvings must be an integer, got True"),
    (dict(convergence_iterations=0), r"convergence_iterations must be an integer >= 1, got 0"),
    (dict(convergence_iterations=10_001), r"convergence_iterations must be an integer in \[1, 10000\]"),
    (dict(convergence_iterations=10**12), r"convergence_iterations must be an integer in \[1, 10000\]"),
    (dict(convergence_iterations=5000, n_halvings=6),
     r"convergence_iterations x \(2\*\*n_halvings - 1\).*must be <= 100000.*got 315000"),
    (dict(convergence_iterations=2000, n_halvings=10), r"must be <= 100000.*got 2\.046e\+06"),
    (dict(n_points=0), r"n_points must be an integer >= 1 and <= 256, got 0"),
    (dict(n_points=33), r"n_points must be an integer in \[1, 32\].*got 33"),
    (dict(n_points=10**6), r"n_points must be an integer >= 1 and <= 256"),
    (dict(n_rows=47), r"n_rows must be an integer >= 48 and <= 1000, got 47"),
    (dict(n_rows=1001), r"n_rows must be an integer >= 48 and <= 1000, got 1001"),
    (dict(n_rows=100), r"n_rows = 100 is too few kernel rows.*\('ET', 0, 'principled'\)"),
    (dict(n_rows=200.0), r"n_rows must be an integer, got 200\.0"),
    (dict(check_rows=1), r"check_rows must be an integer >= 2 and <= 1000, got 1"),
    (dict(check_rows=5000), r"check_rows must be an integer >= 2 and <= 1000, got 5000"),
    (dict(n_snapshots=2), r"n_snapshots must be an integer >= 3, got 2"),
    (dict(n_snapshots=2001, iterations={"ET": 10000, "LR": 2000}),
     r"n_snapshots must be an integer in \[3, 1001\].*got 2001"),
    (dict(n_rows=None, node_every={"ET": [[10000, 1]], "LR": [[2500, 1]]}),
     r"the kernel work of the ePNTK runs.*must be <= 5e\+08.*got 1\.0"),
    (dict(n_pairs=1), r"n_pairs must be an integer >= 2, got 1"),
    (dict(n_pairs=201), r"n_pairs must be an integer in \[2, 200\]"),
    (dict(iterations={"ET": 200_000, "LR": 2500}), r"iterations\['ET'\] must be an integer in \[100, 100000\]"),
    (dict(window_threshold=1.0), r"window_threshold must be in \(0, 1\), got 1\.0"),
    (dict(index_set="rows"), r"index_set must be one of \['principled', 'authors'\], got 'rows'"),
    (dict(node_every={"ET": [[200, 1]], "LR": [[2500, 25]]}), r"node_every\['ET'\]: node_every must be"),
    (dict(check_iterations={"ET": 300, "LR": 1000}), r"check_iterations\['ET'\] must be a multiple"),
    (dict(architecture="5x5"), r"architecture must be one of \['4x3', '3x4'\], got '5x5'"),
])
def test_kernel_dynamics_bad_parameters_name_themselves(changes, message):
    with pytest.raises(ValueError, match=message):
        kd_check(**changes)


def test_kernel_dynamics_large_runs_need_allow_large(monkeypatch):
    large = dict(n_halvings=12, convergence_iterations=20, n_points=64, n_snapshots=1251,
                 iterations={"ET": 10000, "LR": 2500}, node_every={"ET": [[10000, 8]], "LR": [[2500, 2]]})
    with pytest.raises(ValueError, match="allow_large=True"):
        kd_check(**large)
    kd_check(**large, allow_large=True)
    monkeypatch.setenv("REPRO_ALLOW_LARGE", "1")  # the runner's --allow-large
    kd_check(**large)
    kd_check(n_pairs=250, first_seeds={"ET": 0, "LR": 1000})
    with pytest.raises(ValueError, match="n_pairs must be an integer in"):  # explicit False wins over the environment
        kd_check(n_pairs=250, first_seeds={"ET": 0, "LR": 1000}, allow_large=False)
    assert os.environ["REPRO_ALLOW_LARGE"] == "1"
    with pytest.raises(ValueError, match=r"int32.*got 1099511627776"):  # no confirmation lifts a hard limit
        kd_check(n_halvings=31, convergence_iterations=1024)
    with pytest.raises(ValueError, match=r"n_points must be an integer >= 1 and <= 256"):
        kd_check(n_points=257)


# ------------------------------------------------------------------ chapter 10: the rich-lazy continuum


def continuum_check(profile="full", **changes):
    """Execute chapter 10's first cell after its parameters (its checks) with ``changes``."""
    namespace = {**notebook_sources.notebook_parameters("10_rich_lazy_continuum"),
                 **runner.PROFILES[profile].get("10_rich_lazy_continuum", {}), **changes}
    exec(notebook_sources.check_cell_source("10_rich_lazy_continuum"), namespace)
    return namespace


@pytest.mark.parametrize("profile", ["full", "quick"])
def test_continuum_checks_pass_at_the_book_and_quick_parameters(profile):
    namespace = continuum_check(profile)
    grid = scale_grid(namespace["g_min"], namespace["g_max"], namespace["n_scales"])
    assert len(grid) == namespace["n_scales"] and {1.0, 10.0} <= set(grid)


@pytest.mark.parametrize("changes, message", [
    (dict(g_min=1.00001, g_max=1.00002), r"give 1 distinct init scales \[1\.0\].*not 10"),
    (dict(g_min=0.1, g_max=0.1005), r"give \d distinct init scales.*not 10"),
    (dict(g_min=1e-10, g_max=1e300), r"g_min must be a number in \[0\.0001, 1e\+06\], got 1e-10"),
    (dict(g_min=0.1, g_max=1e300), r"g_max must be a number in \[0\.0001, 1e\+06\], got 1e\+300"),
    (dict(g_min=1e-5), r"g_min must be a number in \[0\.0001, 1e\+06\], got 1e-05"),
    (dict(g_max=math.inf), r"g_max must be a positive finite number"),
    (dict(g_min=math.nan), r"g_min must be a positive finite number"),
    (dict(g_min=0.0), r"g_min must be a positive finite number"),
    (dict(g_min=-1.0), r"g_min must be a positive finite number"),
    (dict(g_min=20.0, g_max=20.0), r"g_min < g_max, got 20\.0, 20\.0"),
    (dict(g_min=20.0, g_max=0.1), r"g_min < g_max, got 20\.0, 0\.1"),
    (dict(g_min=0.0001, g_max=1000.0, n_scales=3), r"cannot hold both anchors 1 and 10.*missing \[1\.0\]"),
    (dict(n_scales=2), r"n_scales must be an integer >= 3, got 2"),
    (dict(n_scales=41), r"n_scales must be an integer in \[3, 40\].*got 41"),
    (dict(n_scales=10.0), r"n_scales must be an integer, got 10\.0"),
    (dict(hidden_scales=[]), r"hidden_scales must be a list of at least 1 distinct numbers"),
    (dict(hidden_scales=[3.0, 3.0]), r"hidden_scales must be a list.*repeated: \[3\.0\]"),
    (dict(hidden_scales=[3, 3.0]), r"hidden_scales must be a list.*repeated: \[3\.0\]"),
    (dict(hidden_scales=[0.0]), r"hidden_scales\[0\] must be a finite number in \[0\.0001, 1e\+06\], got 0\.0"),
    (dict(hidden_scales=[1.0, -3.0]), r"hidden_scales\[1\] must be a finite number.*got -3\.0"),
    (dict(hidden_scales=[math.nan]), r"hidden_scales\[0\] must be a finite number.*got nan"),
    (dict(hidden_scales=[math.inf]), r"hidden_scales\[0\] must be a finite number.*got inf"),
    (dict(hidden_scales=[1e7]), r"hidden_scales\[0\] must be a finite number.*got 10000000\.0"),
    (dict(hidden_scales=[True]), r"hidden_scales\[0\] must be a finite number.*got True"),
    (dict(hidden_scales="3.0"), r"hidden_scales must be a list.*got '3\.0'"),
    (dict(lr_candidates=[]), r"lr_candidates must be a list of at least 1 distinct numbers in \(0"),
    (dict(lr_candidates=[0.01, 0.01]), r"lr_candidates must be a list.*repeated: \[0\.01\]"),
    (dict(lr_candidates=[0.0]), r"lr_candidates\[0\] must be a finite number in \(0, 3\.40282e\+38\], got 0\.0"),
    (dict(lr_candidates=[0.1, -0.1]), r"lr_candidates\[1\] must be a finite number"),
    (dict(lr_candidates=[math.inf]), r"lr_candidates\[0\] must be a finite number.*got inf"),
    (dict(lr_candidates=[1e39]), r"lr_candidates\[0\] must be a finite number.*got 1e\+39"),
    (dict(n_seeds=2), r"n_seeds must be an integer >= 3, got 2"),
    (dict(n_seeds=201), r"n_seeds must be an integer in \[3, 200\].*got 201"),
    (dict(n_lr_seeds=0), r"n_lr_seeds must be an integer >= 1, got 0"),
    (dict(n_lr_seeds=51), r"n_lr_seeds must be an integer in \[1, 50\]"),
    (dict(iterations={"single": 500, "finetune": 200, "route": 200}), r"iterations must be a dict with the keys"),
    (dict(iterations=[500, 200, 200, 500]), r"iterations must be a dict with the keys"),
    (dict(iterations={"single": 505, "finetune": 200, "route": 200, "lr_choice": 500}),
     r"iterations\['single'\] must be a multiple of 10.*got 505"),
    (dict(iterations={"single": 0, "finetune": 200, "route": 200, "lr_choice": 500}),
     r"iterations\['single'\] must be an integer >= 10, got 0"),
    (dict(iterations={"single": 500, "finetune": 200, "route": 200, "lr_choice": 200_000}),
     r"iterations\['lr_choice'\] must be an integer in \[10, 100000\]"),
    (dict(n_train=23), r"n_train must be an integer >= 24, got 23"),
    (dict(n_hidden=0), r"n_hidden must be an integer >= 1, got 0"),
    (dict(n_hidden=2001), r"n_hidden must be an integer in \[1, 2000\]"),
    (dict(n_resamples=99), r"n_resamples must be an integer >= 100, got 99"),
    (dict(n_resamples=1_000_000), r"n_resamples x the networks of the largest bootstrap.*must be <= 2e\+07"),
    (dict(block_pairs=0), r"block_pairs must be an integer >= 1, got 0"),
    (dict(n_pairs=1), r"n_pairs must be an integer >= 2, got 1"),
    (dict(robustness_iterations={"ET": 10050, "LR": 2500}), r"iterations\['ET'\] must be a multiple of 100"),
    (dict(first_seeds={"ET": 0, "LR": 10}), r"first_seeds must give disjoint seed ranges"),
    (dict(iterations={"single": 10000, "finetune": 10000, "route": 2000, "lr_choice": 2500}),
     r"the continuum's training work.*must be <= 5e\+11.*got 7\.1\d*e\+11"),
    (dict(n_seeds=200, n_scales=20), r"the continuum's training work.*must be <= 5e\+11.*got 7\.6\d*e\+11"),
])
def test_continuum_bad_parameters_name_themselves(changes, message):
    with pytest.raises(ValueError, match=message):
        continuum_check(**changes)


def test_continuum_large_runs_need_allow_large(monkeypatch):
    cluster = dict(n_scales=16, hidden_scales=[0.3, 1.0, 3.0, 5.0, 10.0, 20.0], n_seeds=30, n_lr_seeds=5,
                   iterations={"single": 10000, "finetune": 10000, "route": 2000, "lr_choice": 2500}, n_train=500,
                   n_pairs=100, robustness_iterations={"ET": 10000, "LR": 2500})  # the chapter's cluster profile
    with pytest.raises(ValueError, match="--allow-large"):
        continuum_check(**cluster)
    monkeypatch.setenv("REPRO_ALLOW_LARGE", "1")
    namespace = continuum_check(**cluster)
    assert len(scale_grid(namespace["g_min"], namespace["g_max"], namespace["n_scales"])) == 16
    continuum_check(n_resamples=1_000_000)
    with pytest.raises(ValueError, match=r"n_seeds must be an integer >= 3 and <= 100000"):
        continuum_check(n_seeds=100_001)  # the held-out networks start at seed 100 000: never overlap
    with pytest.raises(ValueError, match=r"give \d distinct init scales"):  # no confirmation lifts a collapse
        continuum_check(g_min=1.00001, g_max=1.00002)


def test_the_checks_child_imports_none_of_the_heavy_analysis_packages():
    """The runner's parameter check (one child process per runner call, before any kernel) executes
    every chapter's check cell; those import lib.book.chapter_parameters and through it most of lib.
    Its cost is its imports: scikit-learn, scipy.stats, scipy.integrate, pandas and matplotlib are
    imported by the functions that use them, not by the modules a check reaches."""
    heavy = ("sklearn", "scipy.stats", "scipy.integrate", "scipy.optimize", "pandas", "matplotlib")
    runs = [(name, dict(runner.PROFILES["quick"].get(name, {})), None) for name in notebook_sources.NOTEBOOKS]
    code = run_parameters.CHECK_CHILD + f"; import sys; print('imported:', [m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(run_parameters.check_jobs(runs)),
                          capture_output=True, text=False, cwd=run_parameters.REPO_ROOT, check=True)
    out = done.stdout.decode()
    assert run_parameters._RANGE_ERROR not in out, out
    assert "imported: []" in out, out


def test_the_kernel_is_compiled_first_only_when_chapters_run_side_by_side(book, tmp_path, no_range_checks,
                                                                           monkeypatch):
    events = []
    monkeypatch.setattr(runner, "compile_kernel_first", lambda: events.append("compile"))
    monkeypatch.setattr(runner, "run_all", lambda runs, run_one, jobs, report, alone: events.append(("run", jobs))
                        or ([], []))
    both = ["--only", "00_quickstart", "01_one_step_entk", "--output-dir", str(tmp_path / "out")]
    assert runner.main([*both, "--jobs", "2"]) == 0
    assert events == ["compile", ("run", 2)]
    events.clear()
    assert runner.main([*both, "--jobs", "1"]) == 0
    assert events == [("run", 1)]


def test_a_failed_or_hung_first_compile_is_reported_and_the_build_goes_on(monkeypatch, capsys):
    monkeypatch.setattr(runner, "COMPILE_KERNEL", "import sys; sys.exit('no compiler here')")
    runner.compile_kernel_first()
    assert "could not compile the training kernel first (each chapter compiles it): no compiler here" \
        in capsys.readouterr().out
    monkeypatch.setattr(runner, "COMPILE_KERNEL", "import time; time.sleep(30)")
    monkeypatch.setattr(runner, "COMPILE_TIMEOUT_S", 1)
    runner.compile_kernel_first()
    assert "compiling the training kernel first took over 1 s; each chapter compiles it" in capsys.readouterr().out
