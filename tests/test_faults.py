"""Fault tests: each one reproduces a way the book could publish wrong numbers or lose work, and
checks that it now ends in a clear error or a correct result instead.

Grouped as in the trust issue: code-aware cache keys, profiles, strict parameters, atomic and
locked writes, determinism, regression checks that name their cause.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from lib.core import cache_entry, results
from lib.book import notebook_sources, run_parameters, runner
from lib.book import summary
from lib.core.validation import check_seed, check_seeds, check_size

REPO = Path(__file__).resolve().parents[1]


def run_python(code: str, cwd: Path, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (the repository on its path), returning the finished process."""
    full_env = {**os.environ, "PYTHONPATH": str(cwd), **(env or {})}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout)


def copy_of_code(tmp_path: Path) -> Path:
    """A copy of ``lib/`` and ``requirements.txt``: a repository whose code a test may edit."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "requirements.txt", root / "requirements.txt")
    return root


COUNTING_COMPUTE = """
    import numpy as np
    from pathlib import Path
    from lib.core import results
    from lib.experiments import schedules
    def compute():
        with open(Path({counter!r}), "a") as f:
            f.write("computed\\n")
        return {{"lr": np.array(schedules.SCHEDULES["ET"].learning_rate("standard"))}}
    out = results.cached("demo", {{"seed": 0}}, compute)
    print(float(out["lr"]))
"""


# ------------------------------------------------------------------ 1. code-aware results


def test_changing_a_constant_in_lib_recomputes_into_a_new_entry(tmp_path):
    """Stale cache after a code change: the old code's entry is neither served nor overwritten."""
    root, counter = copy_of_code(tmp_path), tmp_path / "counter.txt"
    env = {"REPRO_RESULTS_DIR": str(tmp_path / "results")}
    code = COUNTING_COMPUTE.format(counter=str(counter))
    first = run_python(code, root, env)
    assert first.returncode == 0, first.stderr
    assert run_python(code, root, env).stdout == first.stdout  # same code: served from the cache
    assert counter.read_text().count("computed") == 1
    old_entry = next(p for p in (tmp_path / "results" / "demo").iterdir() if p.is_dir())
    old_bytes = (old_entry / "arrays.npz").read_bytes()

    schedules = root / "lib" / "experiments" / "schedules.py"
    source = schedules.read_text()
    assert 'Schedule("ET", lr_standard=0.01' in source
    schedules.write_text(source.replace('Schedule("ET", lr_standard=0.01', 'Schedule("ET", lr_standard=0.02'))
    second = run_python(code, root, env)
    assert second.returncode == 0, second.stderr
    assert counter.read_text().count("computed") == 2  # recomputed under the new code
    assert second.stdout != first.stdout
    entries = sorted((tmp_path / "results" / "demo").glob("*/meta.json"))
    assert len(entries) == 2 and (old_entry / "arrays.npz").read_bytes() == old_bytes  # old one untouched

    pruned = run_python("from lib.core import results; print(len(results.prune()))", root, env)
    assert pruned.stdout.strip() == "1" and not old_entry.exists()
    assert len(list((tmp_path / "results" / "demo").glob("*/meta.json"))) == 1


def test_code_digest_covers_every_lib_file_and_the_requirements(tmp_path):
    root = copy_of_code(tmp_path)
    files = [root / "lib" / "book" / "plot_style.py", root / "requirements.txt"]
    before = results.digest_files(files, root)
    files[1].write_text(files[1].read_text() + "\n# edit")
    assert results.digest_files(files, root) != before
    assert {p.name for p in results.code_files()} >= {"results.py", "schedules.py", "plot_style.py",
                                                       "requirements.txt"}


def test_runner_execution_key_covers_code_profile_and_the_records_it_reads(tmp_path):
    params = {}
    key = runner.execution_key("07_reproduction_summary", params, "full", tmp_path)
    (tmp_path / "05_multitask_performance.json").write_text('{"rows": []}')
    key_with_record = runner.execution_key("07_reproduction_summary", params, "full", tmp_path)
    assert key_with_record != key
    (tmp_path / "05_multitask_performance.json").write_text('{"rows": [1]}')
    assert runner.execution_key("07_reproduction_summary", params, "full", tmp_path) != key_with_record
    assert runner.execution_key("07_reproduction_summary", params, "quick", tmp_path) != \
        runner.execution_key("07_reproduction_summary", params, "full", tmp_path)


# ------------------------------------------------------------------ 2. profiles never share outputs


def test_quick_profile_writes_nothing_into_the_published_book():
    quick, full = runner.profile_layout("quick"), runner.profile_layout("full")
    assert quick.executed != full.executed and quick.results != full.results
    for folder in (quick.executed, quick.summary, quick.results):
        assert (REPO / "_build" / "quick") in folder.parents
    assert runner.main(["--profile", "quick", "--output-dir", str(runner.EXECUTED_DIR)]) == 2


def test_summary_page_refuses_to_mix_profiles(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_SUMMARY_DIR", str(tmp_path))
    row = summary.row("q", 1, 1, True, "c")
    for chapter, profile in (("01_one_step_entk", "full"), ("03_epntk", "quick")):
        monkeypatch.setenv("REPRO_PROFILE", profile)
        summary.record(chapter, {}, [row])
    with pytest.raises(ValueError, match="different profiles"):
        summary.load(["01_one_step_entk", "03_epntk"])
    rows, _, profile = summary.load(["01_one_step_entk"])
    assert profile == "full" and rows[0]["quantity"] == "q"


# ------------------------------------------------------------------ 3. strict parameters


@pytest.mark.parametrize("argv, message", [
    (["-p", "n_pair=2"], "has no parameter n_pair; allowed: n_pairs, n_verdict_pairs, first_seeds, iterations"),
    (["-p", "n_pairs={1,2}"], "n_pairs must be an integer"),
    (["-p", "n_pairs=1e9"], "n_pairs must be an integer"),
    (["-p", "n_pairs=[1"], "not a Python literal"),
    (["-p", "iterations=10000"], "iterations must be a dict"),
    (["-p", "n_pairs=2", "-p", "n_pairs=3"], "given more than once"),
    (["--grid", "n_pairs=2", "--grid", "n_pairs=3", "--output-dir", "{tmp}"], "given more than once"),
    (["--grid", "n_pairs=2,3"], "needs an --output-dir"),
])
def test_bad_runner_parameters_stop_before_any_kernel(argv, message, tmp_path, capsys):
    argv = ["--only", "05_multitask_performance"] + [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert runner.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert not list(tmp_path.glob("**/*.ipynb"))


def test_values_are_python_literals_and_tuples_arrive_as_lists():
    assert run_parameters.parse_assignment("seeds=[0, 1]") == ("seeds", [0, 1])
    assert run_parameters.parse_assignment("schedule=LR") == ("schedule", "LR")
    assert run_parameters.parse_grid("analysis_times=[190,770],[200,800]") == \
        ("analysis_times", [[190, 770], [200, 800]])
    assert run_parameters.parse_grid("schedule=ET,LR") == ("schedule", ["ET", "LR"])
    checked = run_parameters.check_parameters("02_smg_validation", {"analysis_times": (190, 770), "learning_rate": 1})
    assert checked == {"analysis_times": [190, 770], "learning_rate": 1}


@pytest.mark.parametrize("seed", [2**32, 2**64, -1])
def test_out_of_range_seeds_are_rejected_naming_the_parameter(seed):
    with pytest.raises(ValueError, match=r"seed must be an integer >= 0 and <= 4294967295"):
        check_seed("seed", seed)
    with pytest.raises(ValueError, match=r"seeds\[1\] must be an integer >= 0 and <= 4294967295"):
        check_seeds("seeds", [0, seed])
    assert check_seed("seed", 2**32 - 1) == 2**32 - 1


def test_huge_sizes_need_an_explicit_confirmation(monkeypatch):
    monkeypatch.delenv("REPRO_ALLOW_LARGE", raising=False)
    with pytest.raises(ValueError, match=r"n_iterations must be an integer in \[100, 100000\].*--allow-large"):
        check_size("n_iterations", 10**9, minimum=100, sane_maximum=100_000)
    monkeypatch.setenv("REPRO_ALLOW_LARGE", "1")
    assert check_size("n_iterations", 10**9, minimum=100, sane_maximum=100_000) == 10**9


def test_grid_folders_cannot_leave_the_output_folder(tmp_path):
    points = run_parameters.grid_points([run_parameters.parse_grid("schedule='/../../book/executed','..','a/b'")])
    folders = [run_parameters.point_folder(p) for p in points]
    assert len(set(folders)) == 3
    for folder in folders:
        assert "/" not in folder and ".." not in folder and not folder.startswith(".")
        runner.inside(tmp_path / folder, tmp_path)
    with pytest.raises(notebook_sources.ParameterError, match="would leave"):
        runner.inside(tmp_path / ".." / "x", tmp_path)


def test_make_sweep_quotes_its_input_and_propagates_failure(tmp_path):
    if not (REPO / ".venv" / "bin" / "python").exists() or shutil.which("make") is None:
        pytest.skip("needs make and the project's .venv (make test creates it)")
    marker = tmp_path / "injected"
    done = subprocess.run(["make", "-s", "sweep", "NOTEBOOK=00_quickstart", f"GRID=seed=0;touch {marker}"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and not marker.exists(), done.stdout + done.stderr
    assert "not a Python literal" in done.stderr or "must be" in done.stderr, done.stderr


# ------------------------------------------------------------------ 4. atomic, locked writes


def _entry(results_tmp: Path) -> Path:
    results.cached("demo", {"seed": 5}, lambda: {"a": np.arange(1000.0)})
    return next((results_tmp / "demo").glob("*/meta.json")).parent


@pytest.mark.parametrize("damage", ["truncate", "bitflip", "swap", "missing_meta", "garbled_meta"])
def test_damaged_entries_raise_cache_error_naming_the_file(results_tmp, damage):
    entry = _entry(results_tmp)
    npz = entry / "arrays.npz"
    if damage == "truncate":
        npz.write_bytes(npz.read_bytes()[:50])
    elif damage == "bitflip":
        data = bytearray(npz.read_bytes())
        data[len(data) // 2] ^= 0x01
        npz.write_bytes(bytes(data))
    elif damage == "swap":
        results.cached("demo", {"seed": 6}, lambda: {"a": np.zeros(1000)})
        other = next(p for p in (results_tmp / "demo").glob("*/arrays.npz") if p.parent != entry)
        shutil.copy(other, npz)
    elif damage == "missing_meta":
        (entry / "meta.json").unlink()
    else:
        (entry / "meta.json").write_text("{not json")
    with pytest.raises(cache_entry.CacheError, match=str(entry)) as error:
        results.cached("demo", {"seed": 5}, lambda: {"a": np.ones(3)})
    assert "delete the folder" in str(error.value)
    assert entry.exists()  # nothing deleted automatically


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_cache_files_follow_the_umask(results_tmp, umask):
    old = os.umask(umask)
    try:
        entry = _entry(results_tmp)
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in entry.iterdir()}
    assert modes == {"arrays.npz": 0o666 & ~umask, "meta.json": 0o666 & ~umask}
    assert entry.stat().st_mode & 0o777 == 0o777 & ~umask


def test_relative_results_dir_is_resolved_once_and_empty_is_an_error(tmp_path):
    code = """
        import os
        from lib.core import results
        print(results.results_dir())
        os.chdir("/")
        print(results.results_dir())
    """
    done = run_python(code, REPO, {"REPRO_RESULTS_DIR": "rel/res"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(REPO / "rel" / "res")] * 2
    empty = run_python("from lib.core import results", REPO, {"REPRO_RESULTS_DIR": " "}, timeout=60)
    assert empty.returncode != 0 and "REPRO_RESULTS_DIR is set but empty" in empty.stderr


SLOW_COMPUTE = """
    import sys, time
    import numpy as np
    from lib.core import results
    def compute():
        with open({counter!r}, "a") as f:
            f.write("computed\\n")
        time.sleep(3)
        return {{"a": np.arange(5.0)}}
    print(results.cached("shared", {{"seed": 1}}, compute)["a"].sum())
"""


def test_two_processes_on_one_entry_both_finish_and_one_computes(tmp_path):
    counter = tmp_path / "counter.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "REPRO_RESULTS_DIR": str(tmp_path / "results")}
    code = textwrap.dedent(SLOW_COMPUTE.format(counter=str(counter)))
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert [o[0].strip() for o in outputs] == ["10.0", "10.0"]
    assert counter.read_text().count("computed") == 1


def test_sigkill_mid_write_leaves_no_poisoned_entry(tmp_path, monkeypatch):
    ready = tmp_path / "writing"
    env = {**os.environ, "PYTHONPATH": str(REPO), "REPRO_RESULTS_DIR": str(tmp_path / "results")}
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        import numpy as np
        from lib.core import results
        def stall():  # called inside save(), after the archive is written, before the rename
            Path({str(ready)!r}).touch()
            time.sleep(60)
        results.provenance = stall
        results.cached("killed", {{"seed": 1}}, lambda: {{"a": np.arange(5.0)}})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=env)
    deadline = time.time() + 60
    while not ready.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert ready.exists(), "the writer never reached save()"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    folder = tmp_path / "results" / "killed"
    assert [p.name.startswith(".tmp-") for p in folder.iterdir() if p.is_dir()] == [True]
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path / "results"))
    assert results.load("killed", {"seed": 1}) is None  # the interrupted write is not an entry
    out = results.cached("killed", {"seed": 1}, lambda: {"a": np.arange(5.0)})
    np.testing.assert_array_equal(out["a"], np.arange(5.0))
    assert [p.name for p in results.prune()] and not list(folder.glob(".tmp-*"))
    np.testing.assert_array_equal(results.load("killed", {"seed": 1})["a"], np.arange(5.0))


def test_a_failed_run_never_replaces_a_good_chapter(tmp_path):
    params = {"n_iterations": 100, "n_hidden": 8}
    good = runner.execute("00_quickstart", params, tmp_path, results=tmp_path / "results")
    good_bytes = good.read_bytes()
    with pytest.raises(runner.NotebookFailed, match="schedule must be one of") as failure:
        runner.execute("00_quickstart", {**params, "schedule": "XX"}, tmp_path, results=tmp_path / "results")
    assert "previous output is untouched" in str(failure.value)
    assert good.read_bytes() == good_bytes
    assert (tmp_path / "00_quickstart.failed.ipynb").exists()
    assert not list(tmp_path.glob(".run-*"))


def test_a_kernel_slower_to_start_than_the_start_timeout_fails_its_chapter(tmp_path, monkeypatch):
    """The runner waits KERNEL_START_TIMEOUT_S for a chapter's kernel to answer, not papermill's 60 s
    (a niced background kernel starting while the foreground fills every core can need longer): a
    kernel that takes 3 s to start fails a chapter given 1 s, naming the wait, and nothing is computed."""
    slow_start = tmp_path / "slow_start"
    slow_start.mkdir()
    (slow_start / "sitecustomize.py").write_text("import time\ntime.sleep(3)\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(slow_start), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(runner, "KERNEL_START_TIMEOUT_S", 1)
    with pytest.raises(runner.NotebookFailed, match="Kernel didn't respond in 1 seconds"):
        runner.execute("00_quickstart", {"n_iterations": 100, "n_hidden": 8}, tmp_path, results=tmp_path / "results")
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "00_quickstart.ipynb").exists()


def test_out_of_range_seed_in_a_notebook_fails_at_its_first_cell(tmp_path):
    with pytest.raises(runner.NotebookFailed, match=r"seed must be an integer >= 0 and <= 4294967295, got 4294967296"):
        runner.execute("00_quickstart", {"seed": 2**32, "n_iterations": 100, "n_hidden": 8}, tmp_path,
                       results=tmp_path / "results")
    assert not (tmp_path / "results").exists()  # nothing computed


# ------------------------------------------------------------------ 5. determinism


# ------------------------------------------------------------------ 6. regression checks name their cause


def test_headline_checks_fail_only_at_the_paper_scale_defaults(capsys):
    defaults = notebook_sources.notebook_parameters("01_one_step_entk")
    with pytest.raises(summary.HeadlineCheckFailed, match=r"error order = 3, expected in \[1.8, 2.2\] at the "
                                                          r"paper-scale defaults"):
        summary.check_headline("01_one_step_entk", defaults, "error order", 3.0, 1.8, 2.2)
    assert summary.check_headline("01_one_step_entk", defaults, "error order", 2.0, 1.8, 2.2)
    changed = {**defaults, "learning_rate": 50.0}
    assert summary.check_headline("01_one_step_entk", changed, "error order", 3.0, 1.8, 2.2) is False
    assert "reported, not checked, under {'learning_rate': 50.0}" in capsys.readouterr().out
    with pytest.raises(ValueError, match="needs every parameter"):
        summary.check_headline("01_one_step_entk", {"seed": 0}, "error order", 2.0, 1.8, 2.2)
