"""Faults around the compiled training kernel: a malformed $NUMBA_CPU_FEATURES and a damaged
on-disk compiled-code cache. Each runs in a subprocess (the kernel's module reads both when
it is imported)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lib.core.cpu_target import check_cpu_features
from lib.core.engines import Engine

REPO = Path(__file__).resolve().parents[1]
SCRIPT = ("import numpy as np; from lib.core import training_kernel as tk; "
          "w = np.arange(12, dtype=np.float32).reshape(4, 3); sums = np.empty((1, 3), np.float32); "
          "tk._block_sums(sums, w, np.array([[1, 3]], np.int32), np.array([[1, 2]], np.float32), np.float32(0.5)); "
          "assert (sums[0] == 0.5 + w[1] + 2 * w[3]).all(); print('ok')")


def run_kernel(**env_changes):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"} | env_changes
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("features", ["garbage", "avx2", "+avx2,sse4.2", "+not_a_feature", "+", ","])
def test_malformed_cpu_features_are_named_before_llvm_sees_them(features):
    with pytest.raises(ValueError, match=r"\$NUMBA_CPU_FEATURES must be a comma-separated list"):
        check_cpu_features(features)


def test_valid_cpu_features_pass():
    from numba.core import codegen

    check_cpu_features(codegen.get_host_cpu_features())
    check_cpu_features("+sse2,-avx512f")
    check_cpu_features("")  # no features beyond the CPU name's: NUMBA_CPU_NAME=generic's default


def test_importing_the_kernel_with_malformed_cpu_features_is_a_clear_error_not_an_abort():
    done = run_kernel(NUMBA_CPU_FEATURES="garbage")
    assert done.returncode == 1, done.stderr[-2000:]  # a Python exception, not SIGABRT inside LLVM
    assert "NUMBA_CPU_FEATURES must be a comma-separated list" in done.stderr
    assert "'garbage'" in done.stderr


def test_a_truncated_compiled_code_cache_is_removed_and_compiled_again(tmp_path):
    cache = tmp_path / "numba-cache"
    first = run_kernel(NUMBA_CACHE_DIR=str(cache))
    assert first.stdout.strip() == "ok", first.stderr[-2000:]
    damaged = sorted(cache.rglob("training_kernel._block_sums-*"))
    assert any(p.suffix == ".nbi" for p in damaged) and any(p.suffix == ".nbc" for p in damaged)
    for path in damaged:
        path.write_bytes(path.read_bytes()[:30])  # a process killed while writing them
    again = run_kernel(NUMBA_CACHE_DIR=str(cache))
    assert again.stdout.strip() == "ok", again.stderr[-2000:]
    assert "removed the unreadable compiled-code cache of _block_sums" in again.stderr
    third = run_kernel(NUMBA_CACHE_DIR=str(cache))  # the rewritten cache is whole
    assert third.stdout.strip() == "ok" and "unreadable" not in third.stderr


# --- training's entry checks: before any compiled code runs, errors that name the argument ---------
def _batch(n_networks: int, n_hidden: int = 8):
    import jax

    from lib.core.models import MultitaskNet
    from lib.core.tasks import TaskEnvironment

    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, n_hidden)
    train_set, _ = env.make_data(0, 20, 10)
    data = {"x_train": np.stack([train_set.x] * n_networks).astype(np.float32),
            "y_train": np.stack([train_set.y] * n_networks).astype(np.float32)}
    params = jax.tree.map(lambda *a: np.stack(a), *[net.init(jax.random.PRNGKey(s)) for s in range(n_networks)])
    return net, params, data



def _replace(tree, key, value):
    return {**tree, key: value}


FLOAT32_RATES = r"learning_rates must be .*the normal float32 numbers"

BAD_TRAINING_CALLS = {
    "learning rates shorter than the batch": (lambda p, d: (p, d, np.array([0.1])), "same leading size"),
    "parameters for more networks than data": (
        lambda p, d: ({k: np.concatenate([v, v]) for k, v in p.items()}, d, np.full(2, 0.1)), "same leading size"),
    "data for more networks than parameters": (
        lambda p, d: (p, {k: np.concatenate([v, v]) for k, v in d.items()}, np.full(2, 0.1)), "same leading size"),
    "an infinite learning rate": (lambda p, d: (p, d, np.array([0.1, np.inf])), FLOAT32_RATES),
    "a NaN learning rate": (lambda p, d: (p, d, np.array([0.1, np.nan])), FLOAT32_RATES),
    "NaN in the inputs": (lambda p, d: (p, _replace(d, "x_train", np.where(d["x_train"] > 0, np.nan, 0.0)),
                                        np.full(2, 0.1)), r"data\['x_train'\] must be finite"),
    "inf in the weights": (lambda p, d: (_replace(p, "w_output", p["w_output"] * np.inf), d, np.full(2, 0.1)),
                           r"params\['w_output'\] must be finite"),
    "inputs of the wrong width": (lambda p, d: (p, _replace(d, "x_train", d["x_train"][..., :-1]), np.full(2, 0.1)),
                                  r"data\['x_train'\] and data\['y_train'\] must have shapes"),
    "weights of another network": (lambda p, d: (_replace(p, "w_hidden", p["w_hidden"][:, :-1]), d, np.full(2, 0.1)),
                                   r"params\['w_hidden'\] must have shape"),
    "a missing weight matrix": (lambda p, d: ({"w_hidden": p["w_hidden"]}, d, np.full(2, 0.1)),
                                "params must hold exactly"),
    "complex data": (lambda p, d: (p, _replace(d, "y_train", d["y_train"].astype(complex)), np.full(2, 0.1)),
                     "must be a real array"),
}


@pytest.mark.parametrize("engine", [engine.value for engine in Engine])
@pytest.mark.parametrize("case", list(BAD_TRAINING_CALLS))
def test_train_many_rejects_inconsistent_or_non_finite_input_naming_it(case, engine):
    from lib.core.training import train_many

    net, params, data = _batch(2)
    make, message = BAD_TRAINING_CALLS[case]
    bad_params, bad_data, rates = make(params, data)
    with pytest.raises(ValueError, match=message):
        train_many(net, bad_params, bad_data, rates, 10, 2, engine=engine)


def test_train_rejects_non_finite_input_and_the_kernel_checks_its_batch():
    from lib.core import training_kernel
    from lib.core.training import train

    net, params, data = _batch(1)
    one = {k: v[0] for k, v in params.items()}
    with pytest.raises(ValueError, match="learning_rate must be a positive finite number"):
        train(net, one, {k: v[0] for k, v in data.items()}, float("inf"), 10, 2, engine="numba")
    with pytest.raises(ValueError, match=r"data\['y_train'\] must be finite"):
        train(net, one, {"x_train": data["x_train"][0], "y_train": data["y_train"][0] * np.nan}, 0.1, 10, 2)
    with pytest.raises(ValueError, match="leading size"):
        training_kernel.check_batch(w_in=np.zeros((3, 2, 2)), learning_rates=np.zeros(2))


# --- the kernels' entry checks ----------------------------------------------------------------------
def _kernel_problem():
    import jax

    from lib.core.models import MultitaskNet
    from lib.core.tasks import TaskEnvironment

    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, 6)
    train_set, test_set = env.make_data(0, 12, 5)
    return net, net.init(jax.random.PRNGKey(0)), test_set.x, train_set.x, train_set.y


@pytest.mark.parametrize("case, message", [
    ("x_eval of another width", r"every input pattern must have shape \(24,\)"),
    ("y_train with fewer rows", r"y_train must have shape \(M, K\) = \(12, 9\)"),
    ("a 1-D x_train", r"x_train must be a real array of patterns"),
    ("NaN in x_eval", r"x_eval must be finite"),
    ("inf in the weights", r"params\['w_hidden'\] must be finite"),
])
@pytest.mark.parametrize("function", ["entk", "epntk", "one_step_change"])
def test_kernels_reject_bad_inputs_naming_them(case, message, function):
    from lib.core import kernels

    net, params, x_eval, x_train, y_train = _kernel_problem()
    if case == "x_eval of another width":
        x_eval = x_eval[:, :-1]
    elif case == "y_train with fewer rows":
        y_train = y_train[:-1]
    elif case == "a 1-D x_train":
        x_train = x_train[0]
    elif case == "NaN in x_eval":
        x_eval = np.where(x_eval > 0, np.nan, x_eval)
    else:
        params = {**params, "w_hidden": params["w_hidden"] * np.inf}
    call = {"entk": lambda: kernels.entk(net, params, x_eval, x_train, y_train),
            "epntk": lambda: kernels.epntk(net, params, x_eval, x_train, y_train, 0.1, 2),
            "one_step_change": lambda: kernels.one_step_change(net, params, x_eval, x_train, y_train, 0.1)}[function]
    with pytest.raises(ValueError, match=message):
        call()


def test_ntk_checks_its_inputs_and_the_checks_pass_inside_jit():
    import jax

    from lib.core import kernels

    net, params, x_eval, x_train, y_train = _kernel_problem()
    with pytest.raises(ValueError, match="x2 must be finite"):
        kernels.ntk(net, params, x_eval, np.where(x_train > 0, np.inf, x_train))
    with pytest.raises(ValueError, match=r"every input pattern must have shape \(24,\)"):
        kernels.ntk_output_diagonal(net, params, x_eval[:, 1:], x_train)
    traced = jax.jit(lambda p: kernels.entk(net, p, x_eval, x_train, y_train))(params)  # shapes only when traced
    np.testing.assert_allclose(traced, kernels.entk(net, params, x_eval, x_train, y_train), rtol=1e-6)
    with pytest.raises(ValueError, match="reduction must be one of"):
        kernels.entk(net, params, x_eval, x_train, y_train, reduction="max")


def test_the_sweep_command_reports_malformed_cpu_features_in_one_line(monkeypatch, capsys):
    from lib.book import sweep_command

    monkeypatch.setenv("NUMBA_CPU_FEATURES", "avx2")
    status = sweep_command.main(["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed=0"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "NUMBA_CPU_FEATURES" in err and "'avx2'" in err


def test_the_runner_reports_malformed_cpu_features_in_one_line(monkeypatch, capsys):
    from lib.book import runner

    monkeypatch.setenv("NUMBA_CPU_FEATURES", "garbage")
    status = runner.main(["--profile", "quick", "--only", "00_quickstart"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "NUMBA_CPU_FEATURES" in err and "'garbage'" in err


def test_kernels_take_inputs_of_any_pattern_shape_for_other_models():
    """Image inputs (N, H, W, C) for a convolutional network: the checks ask only that every
    pattern has the same shape (chapter 09's CNN)."""
    import jax
    import jax.numpy as jnp

    from lib.core import kernels

    @jax.tree_util.register_static
    class Pool:
        def apply(self, params, x):
            return jnp.tanh(x.reshape(len(x), -1) @ params["w"])

    x = np.random.default_rng(0).normal(size=(5, 2, 2, 1))
    params = {"w": np.ones((4, 3)) * 0.1}
    assert kernels.ntk(Pool(), params, x, x[:3]).shape == (5, 3, 3, 3)
    with pytest.raises(ValueError, match="every input pattern must have the same shape"):
        kernels.ntk(Pool(), params, x, x[:3, :1])


def test_the_kernel_compiled_first_serves_a_schedule_run_without_compiling(tmp_path):
    """The runner's first step (lib.book.runner.COMPILE_KERNEL) fills a cold compiled-code cache with
    every signature a schedule run of the book trains with: the run after it compiles nothing."""
    from lib.book.runner import COMPILE_KERNEL

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "REPRO_RESULTS_DIR": str(tmp_path / "results")}
    first = subprocess.run([sys.executable, "-c", COMPILE_KERNEL], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=600)
    assert first.returncode == 0, first.stderr
    run = ("import json; from lib.core import training_kernel as tk; from lib.core.tasks import TaskEnvironment; "
           "from lib.experiments.schedules import run_pairs; run_pairs(TaskEnvironment(), 'ET', [0], n_iterations=100); "
           "kernels = [v for v in vars(tk).values() if hasattr(v, 'stats') and hasattr(v, 'signatures')]; "
           "print(json.dumps({k.__name__: [sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())] "
           "for k in kernels if k.signatures}))")
    done = subprocess.run([sys.executable, "-c", run], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["train_steps"][0] >= 1 and counts["summed_losses"][0] >= 1, counts
    assert all(misses == 0 for _, misses in counts.values()), f"compiled after the first step: {counts}"
