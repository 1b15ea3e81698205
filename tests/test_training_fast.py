"""The engines that train on distinct patterns (``engine="numba"``, the CPU kernel) and the
XLA step on distinct patterns (``distinct_gd_steps``) against the reference (``jax.grad``).

They compute the same gradient descent with different float32 rounding (they train each
distinct pattern once, weighted by its count, and order the sums differently),
so results are compared to float32 tolerance on short runs: loss trajectories, final losses
and final weights, for both inits (every pair holds a standard and a large network), both
schedules and fine-tuning. Each path must be bit-for-bit deterministic on its own.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numba import njit

from lib.experiments.schedules import params_of, run_pairs, run_schedule, schedule_parameters
from lib.core.engines import Engine
from lib.core.losses import squared_error
from lib.core.models import INITS, LinearNet, MultitaskNet
from lib.core.patterns import distinct_rows, factored_inputs, sparse_inputs, stack_padded, unique_patterns
from lib.core.tasks import TaskEnvironment
from lib.core.training import multitask_loss, train, train_many
from lib.core.training_kernel import sigmoid32

DISTINCT_PATTERN_ENGINES = [engine.value for engine in Engine if engine.distinct_patterns]
ENV = TaskEnvironment()
PAPER = dict(n_hidden=200, n_train=500, n_test=500)  # the paper network and data sizes
RTOL = 1e-5  # relative to each array's largest magnitude; float32 eps is 1.2e-7


@njit(fastmath={"contract"}, error_model="numpy")
def sigmoid_array(x, out):
    """``out[i] = sigmoid32(x[i])`` for 1-D float32 arrays: the kernel's inline sigmoid in a loop."""
    for i in range(x.shape[0]):
        out[i] = sigmoid32(x[i])


def assert_close(fast, reference, name):
    """Equal to float32 tolerance: |fast - reference| <= RTOL * max|reference| everywhere."""
    fast, reference = np.asarray(fast), np.asarray(reference)
    assert fast.shape == reference.shape, name
    np.testing.assert_allclose(fast, reference, rtol=RTOL, atol=RTOL * np.abs(reference).max(), err_msg=name)


def assert_runs_close(fast, reference, keys):
    for key in keys:
        for i, init in enumerate(INITS):  # (pairs, 2 inits, ...): each init separately
            assert_close(fast[key][:, i], reference[key][:, i], f"{key} ({init} init)")


def test_distinct_rows_index_counts_and_padding():
    a = np.random.default_rng(1).integers(0, 2, size=(30, 2, 2))  # rows of any shape
    distinct, index, counts = distinct_rows(a)
    np.testing.assert_array_equal(distinct[index], a)
    np.testing.assert_array_equal(counts, np.bincount(index))
    flat = distinct.reshape(len(distinct), -1).tolist()
    assert flat == sorted(flat) and len(flat) == len({tuple(r) for r in flat})  # lexicographic, distinct
    for rows in (rng_rows := np.random.default_rng(2).integers(-1, 2, size=(200, 7)).astype(np.float32),
                 rng_rows[:1], rng_rows[:0]):
        expected = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
        for ours, theirs in zip(distinct_rows(rows), expected):
            np.testing.assert_array_equal(ours, theirs.reshape(ours.shape))
    padded = stack_padded([np.ones((2, 3)), np.ones((4, 3))])
    assert padded.shape == (2, 4, 3) and padded[0, 2:].sum() == 0 and padded[1].sum() == 12


def test_unique_patterns_keep_every_pattern_with_its_count():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(2, 40, 3)).astype(np.float32)  # 8 possible rows: many repeats
    x[1, :, 0] = 1.0  # 4 possible rows in the second set: it is padded
    y = x[..., :2] * 2.0
    x_u, y_u, counts = unique_patterns(x, y)
    assert counts.sum(axis=1).tolist() == [40, 40]
    assert (counts[1] == 0).sum() == 4
    for b in range(2):
        n = int((counts[b] > 0).sum())
        assert n == len(np.unique(x[b], axis=0))
        for row, target, count in zip(x_u[b, :n], y_u[b, :n], counts[b, :n]):
            matches = np.all(x[b] == row, axis=1)
            assert matches.sum() == count and np.all(y[b][matches] == target)
        assert np.all(counts[b, n:] == 0) and np.all(x_u[b, n:] == 0)  # padding adds nothing
    single = unique_patterns(x[0], y[0])
    assert single[0].shape[0] == single[2].shape[0] == int((counts[0] > 0).sum())


def test_weighted_distinct_loss_equals_the_summed_loss():
    net = MultitaskNet.for_environment(ENV, 32)
    train_set, _ = ENV.make_data(3, 300)
    params = net.init(jax.random.PRNGKey(3), "large")
    x, y = train_set.x.astype(np.float32), train_set.y.astype(np.float32)
    x_u, y_u, counts = unique_patterns(x, y)
    assert len(x_u) < len(x)  # i.i.d. sampling repeats patterns
    full = squared_error(net.apply(params, x), y)
    np.testing.assert_allclose(multitask_loss(net, params, x_u, y_u, counts), full, rtol=1e-5)
    np.testing.assert_allclose(multitask_loss(net, params, x, y), full, rtol=1e-5)


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
@pytest.mark.parametrize("schedule", ["ET", "LR"])
def test_fast_training_equals_reference(schedule, engine):
    kw = dict(n_iterations=150, n_snapshots=16, **PAPER)
    fast = run_pairs(ENV, schedule, [0, 1], engine=engine, **kw)
    reference = run_pairs(ENV, schedule, [0, 1], engine="reference", **kw)
    assert fast.keys() == reference.keys()
    assert_runs_close(fast, reference, ["loss_train", "loss_test", "params_final/w_hidden", "params_final/w_output"])
    for key in ("params_initial/w_hidden", "x_train", "y_test", "iterations"):
        np.testing.assert_array_equal(fast[key], reference[key], err_msg=key)
    assert (fast["loss_train"][..., -1] < fast["loss_train"][..., 0]).all()  # it learns


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
def test_fast_finetuning_equals_reference(engine):
    kw = dict(n_hidden=64, n_train=300, n_test=200, n_iterations=100, progress=False)
    fast = run_schedule(ENV, "LR", [4, 5], engine=engine, **kw)
    reference = run_schedule(ENV, "LR", [4, 5], engine="reference", **kw)
    keys = [f"{phase}/{k}" for phase in ("single", "finetune")
            for k in ("loss_train", "loss_test", "params_final/w_hidden", "params_final/w_output")]
    assert_runs_close(fast, reference, keys)


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
def test_fast_hidden_snapshots_equal_reference(engine):
    kw = dict(n_hidden=16, n_train=50, n_test=30, n_iterations=60, n_snapshots=4, record_hidden=True)
    fast = run_pairs(ENV, "ET", [6], engine=engine, **kw)
    reference = run_pairs(ENV, "ET", [6], engine="reference", **kw)
    assert_runs_close(fast, reference, ["hidden_train", "loss_test"])


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
def test_train_many_fast_with_the_default_observe_equals_reference(engine):
    net = MultitaskNet.for_environment(ENV, 24)
    train_set, test_set = ENV.make_data(7, 80, 40)
    params = {k: jnp.stack([v, 10 * v]) for k, v in net.init(jax.random.PRNGKey(7)).items()}
    data = {f"{a}_{s}": jnp.asarray(np.stack([getattr(d, a)] * 2), jnp.float32)
            for a in ("x", "y") for s, d in (("train", train_set), ("test", test_set))}
    lrs = jnp.asarray([0.03, 0.01])
    fast = train_many(net, params, data, lrs, 40, 5, engine=engine)
    reference = train_many(net, params, data, lrs, 40, 5, engine="reference")
    for part_fast, part_reference in zip(fast, reference):
        for key in part_reference:
            assert_close(part_fast[key], part_reference[key], key)
    one = {k: v[1] for k, v in data.items()}
    single_fast = train(net, {k: v[1] for k, v in params.items()}, one, 0.01, 40, 5, engine=engine)
    for key in reference[0]:  # the unbatched path: the large network alone
        assert_close(single_fast[0][key], fast[0][key][1], key)


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
def test_fast_training_is_deterministic_and_chunking_does_not_change_it(monkeypatch, engine):
    """The same call twice: bit-identical (same compiled code, inputs and order). In one chunk
    instead of ten: the kernel (``numba``) runs the same compiled steps in the same order, so
    bit-identical by construction; an XLA engine compiles a different program per chunk length,
    whose fusion may round differently on another CPU, so float32 agreement (RTOL)."""
    import lib.core.training

    kw = dict(n_hidden=16, n_train=50, n_test=30, n_iterations=100, n_snapshots=11, record_hidden=True, engine=engine)
    a = run_pairs(ENV, "LR", [2, 3], **kw)
    b = run_pairs(ENV, "LR", [2, 3], **kw)
    monkeypatch.setattr(lib.core.training, "N_PROGRESS_CHUNKS", 1)
    whole = run_pairs(ENV, "LR", [2, 3], **kw)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        if engine == "numba":
            np.testing.assert_array_equal(a[key], whole[key], err_msg=key)
        else:
            assert_close(a[key], whole[key], key)


def test_kernel_results_do_not_depend_on_the_thread_count_or_the_batch():
    """One network per thread: the same network gives the same bits alone, in a batch, on one
    thread or on all."""
    import numba

    kw = dict(n_hidden=24, n_train=80, n_test=30, n_iterations=30, n_snapshots=4, engine="numba")
    together = run_pairs(ENV, "ET", [3, 4], **kw)
    alone = run_pairs(ENV, "ET", [4], **kw)
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = run_pairs(ENV, "ET", [3, 4], **kw)
    finally:
        numba.set_num_threads(previous)
    for key in ("loss_train", "params_final/w_hidden", "params_final/w_output"):
        np.testing.assert_array_equal(together[key][1], alone[key][0], err_msg=key)
        np.testing.assert_array_equal(together[key], one_thread[key], err_msg=key)


def test_kernel_sigmoid_is_as_accurate_as_jax():
    """The kernel's inline sigmoid against the exact one (float64), in float32 ulps, next to
    XLA's jax.nn.sigmoid on the same inputs."""
    x = np.linspace(-30, 30, 200_001).astype(np.float32)
    exact = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    ulp = np.spacing(exact.astype(np.float32)).astype(np.float64)
    ours = np.empty_like(x)
    sigmoid_array(x, ours)
    xla = np.asarray(jax.jit(jax.nn.sigmoid)(x), np.float64)
    assert (np.abs(ours - exact) / ulp).max() <= max((np.abs(xla - exact) / ulp).max(), 2.5)
    big = np.array([-1e4, -100.0, 100.0, 1e4], np.float32)  # clamped: no overflow, no NaN
    out = np.empty_like(big)
    sigmoid_array(big, out)
    assert np.isfinite(out).all() and out[0] == out[1] and out[1] < 1e-37 and out[2] == out[3] == 1.0


def test_sparse_inputs_keep_every_nonzero_entry():
    rng = np.random.default_rng(1)
    x = (rng.random((3, 7, 10)) < 0.3) * rng.normal(size=(3, 7, 10)).astype(np.float32)
    active, values = sparse_inputs(x)
    dense = np.zeros_like(x)
    for b, u in np.ndindex(x.shape[:2]):
        np.add.at(dense[b, u], active[b, u], values[b, u])
    np.testing.assert_array_equal(dense, x)
    assert active.shape[-1] == int((x != 0).sum(-1).max())


def test_factored_inputs_rebuild_every_pattern():
    """Each pattern is its distinct stimulus row plus its distinct task row, whatever the values."""
    rng = np.random.default_rng(2)
    x = (rng.random((2, 40, 9)) < 0.4) * rng.choice([1.0, -0.5, 2.0], size=(2, 40, 9))
    x[0, :5] = 0.0  # patterns without any active input
    x[1, :, 6:] = 0.0  # a network without task inputs
    s_active, s_values, s_of, t_active, t_values, t_of = factored_inputs(x, n_stimulus=6)
    for b, u in np.ndindex(x.shape[:2]):
        dense = np.zeros(9, np.float32)
        np.add.at(dense, s_active[b, s_of[b, u]], s_values[b, s_of[b, u]])
        np.add.at(dense, t_active[b, t_of[b, u]], t_values[b, t_of[b, u]])
        np.testing.assert_array_equal(dense, x[b, u])
    assert (s_active[s_values != 0] < 6).all() and (t_active[t_values != 0] >= 6).all()


@pytest.mark.parametrize("engine", DISTINCT_PATTERN_ENGINES)
def test_training_on_non_binary_inputs_equals_reference(engine):
    """Inputs that are not one-hot (values other than 1, patterns without a task or a stimulus):
    the kernel's grouping by distinct stimulus and task set is still the same gradient descent."""
    net = MultitaskNet.for_environment(ENV, 20)
    rng = np.random.default_rng(5)
    x = (rng.random((60, net.n_inputs)) < 0.3) * rng.choice([1.0, 0.5, -2.0], size=(60, net.n_inputs))
    x[:4, net.n_stimulus:] = 0.0
    x[4:8, :net.n_stimulus] = 0.0
    x = np.concatenate([x, x[:20]]).astype(np.float32)  # repeated patterns
    y = (rng.random((80, net.n_outputs)) < 0.3).astype(np.float32)
    data = {"x_train": jnp.asarray(x), "y_train": jnp.asarray(y)}
    params = net.init(jax.random.PRNGKey(5), "large")
    fast = train(net, params, data, 0.01, 50, 3, engine=engine)
    reference = train(net, params, data, 0.01, 50, 3, engine="reference")
    for key in reference[0]:
        assert_close(fast[0][key], reference[0][key], key)
    assert not np.array_equal(fast[0]["w_hidden"], params["w_hidden"])


def test_numba_path_is_the_default_and_is_recorded_in_the_cache_key():
    kw = dict(n_hidden=16, n_train=50, n_test=30, n_iterations=20, n_snapshots=3)
    default, numba_run = run_pairs(ENV, "ET", [1], **kw), run_pairs(ENV, "ET", [1], engine="numba", **kw)
    np.testing.assert_array_equal(default["loss_test"], numba_run["loss_test"])
    assert schedule_parameters(ENV, "ET", [0])["engine_tag"] == Engine.NUMBA.tag == "numba-v2"
    for engine in Engine:  # the tags are plain strings, the same for an Engine and its value
        assert type(engine.tag) is str
        assert schedule_parameters(ENV, "ET", [0], engine=engine) == schedule_parameters(ENV, "ET", [0],
                                                                                          engine=engine.value)
    assert schedule_parameters(ENV, "ET", [0], engine="reference")["engine_tag"] == "reference"


def test_bad_engine_and_unsupported_models_are_rejected():
    net = MultitaskNet.for_environment(ENV, 8)
    train_set, _ = ENV.make_data(0, 20, 10)
    data = {"x_train": jnp.asarray(train_set.x[None], jnp.float32), "y_train": jnp.asarray(train_set.y[None], jnp.float32)}
    params = {k: v[None] for k, v in net.init(jax.random.PRNGKey(0)).items()}
    with pytest.raises(ValueError, match=r"engine must be one of \['numba', .*'reference'\], got 'sgd'"):
        train_many(net, params, data, jnp.asarray([0.1]), 10, 2, engine="sgd")
    for engine in DISTINCT_PATTERN_ENGINES:
        with pytest.raises(ValueError, match="reduction='sum'"):
            train_many(net, params, data, jnp.asarray([0.1]), 10, 2, reduction="mean", engine=engine)
        with pytest.raises(ValueError, match=f"engine='{engine}' trains only the multitask network"):
            train_many(LinearNet(n_inputs=24, n_outputs=9), {}, data, jnp.asarray([0.1]), 10, 2, engine=engine)
    with pytest.raises(ValueError, match="float32"):
        train_many(net, jax.tree.map(lambda a: np.asarray(a, np.float64), params), data, jnp.asarray([0.1]), 10, 2,
                   engine="numba")
    linear = LinearNet(n_inputs=data["x_train"].shape[-1], n_outputs=data["y_train"].shape[-1])
    linear_params = {k: v[None] for k, v in linear.init(jax.random.PRNGKey(0)).items()}
    for engine in DISTINCT_PATTERN_ENGINES:  # the default included
        with pytest.raises(ValueError, match="only the multitask network"):
            train_many(linear, linear_params, data, jnp.asarray([0.1]), 10, 2, engine=engine)
    with pytest.raises(ValueError, match="only the multitask network"):
        train_many(linear, linear_params, data, jnp.asarray([0.1]), 10, 2)
    with pytest.raises(ValueError, match="engine must be one of"):
        run_pairs(ENV, "ET", [0], n_iterations=10, n_snapshots=2, engine="Fast")
    with pytest.raises(ValueError, match="engine must be one of"):
        schedule_parameters(ENV, "ET", [0], engine="slow")


_VECTOR_WIDTH_SCRIPT = """
import re, sys
import numpy as np
from numba import njit
from lib.core.training_kernel import sigmoid32
from lib.core.tasks import TaskEnvironment
from lib.experiments.schedules import params_of, run_pairs


def sigmoid_array(x, out):
    for i in range(x.shape[0]):
        out[i] = sigmoid32(x[i])


copy = njit(fastmath={"contract"}, error_model="numpy")(sigmoid_array)
copy(np.zeros(64, np.float32), np.zeros(64, np.float32))
zmm = bool(re.search("zmm", "".join(copy.inspect_asm().values())))
env = TaskEnvironment()
single = run_pairs(env, "ET", (3, 4), n_iterations=200, n_snapshots=3, engine="numba")
finetune = run_pairs(env, "ET", (3, 4), phase="finetune", start_params=params_of(single, "params_final"),
                     n_iterations=200, n_snapshots=3, engine="numba")
np.savez(sys.argv[1], zmm=zmm, **{k: v for k, v in finetune.items() if k.startswith("params_final/")})
"""


@pytest.mark.skipif("+avx512f" not in __import__("numba.core.codegen").core.codegen.get_host_cpu_features().split(","),
                    reason="the 512-bit build needs an AVX-512 CPU")
@pytest.mark.skipif(bool(__import__("os").environ.get("NUMBA_CPU_NAME")),
                    reason="$NUMBA_CPU_NAME sets the target CPU: the kernel is not built for the host's vectors")
def test_512_bit_build_trains_the_same_weights_as_the_256_bit_build(tmp_path):
    """The kernel compiled for 512-bit vectors (the default on AVX-512 CPUs) and with the host's
    own features (forced with $NUMBA_CPU_FEATURES) agree to float32 tolerance after single-task
    training and fine-tuning. Each build reports whether it uses 512-bit (zmm) registers in a
    fresh compile of the sigmoid loop; the wide one must. Where LLVM's tuning for the host also
    uses zmm in the host build (some AVX-512 CPUs), the two builds are the same width and the
    comparison says nothing about vector widths: the test is skipped with that reason."""
    import os
    import subprocess
    import sys

    from numba.core import codegen

    runs = {}
    for name, features in (("wide", None), ("host", codegen.get_host_cpu_features())):
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
        if features is not None:
            env["NUMBA_CPU_FEATURES"] = features
        out = tmp_path / f"{name}.npz"
        subprocess.run([sys.executable, "-c", _VECTOR_WIDTH_SCRIPT, str(out)], check=True, env=env,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        runs[name] = dict(np.load(out))
    assert runs["wide"].pop("zmm"), "the 512-bit build does not use zmm registers"
    if runs["host"].pop("zmm"):
        pytest.skip("LLVM's tuning for this CPU already uses 512-bit vectors: both builds have the same width")
    for key in runs["wide"]:
        assert_close(runs["wide"][key], runs["host"][key], key)


def test_kernel_losses_equal_the_squared_error_and_do_not_depend_on_the_batch():
    """SummedLosses evaluated by the kernel (count-weighted, on distinct patterns, with repeated,
    non-binary and all-zero input rows) against squared_error of net.apply in float64, for three
    networks at different scales; each network's loss is bit-identical alone and in the batch."""
    from lib.core.training import SummedLosses, _numba_engine

    net = MultitaskNet.for_environment(ENV, n_hidden=12)
    rng = np.random.default_rng(5)
    x = (rng.random((3, 30, net.n_inputs)) < 0.3) * rng.normal(size=(3, 30, net.n_inputs))
    x[:, 10:20] = x[:, :10]  # repeated patterns
    x[:, 20] = 0.0
    data = {"x_train": x.astype(np.float32), "y_train": rng.random((3, 30, net.n_outputs)).astype(np.float32)}
    data["y_train"][:, 10:20] = data["y_train"][:, :10]  # ... with their targets: counted twice
    data |= {"x_test": data["x_train"][:, ::-1].copy(), "y_test": data["y_train"][:, ::-1].copy()}
    data["x_test"][1] = data["x_test"][1, 0]  # one network's test set: one pattern 30 times (the others padded)
    data["y_test"][1] = data["y_test"][1, 0]
    params = {k: (v * np.array([1.0, 3.0, 10.0])[:, None, None]).astype(np.float32) for k, v in
              jax.tree.map(lambda *a: np.stack(a), *[net.init(jax.random.PRNGKey(s)) for s in range(3)]).items()}
    observe = SummedLosses(net)
    losses = _numba_engine(net, params, data, np.full(3, 0.1, np.float32), 1, observe, "sum", True).first
    for name in ("train", "test"):
        for b in range(3):
            p64 = {k: np.asarray(v[b], np.float64) for k, v in params.items()}
            exact = float(squared_error(net.apply(p64, np.asarray(data[f"x_{name}"][b], np.float64)),
                                        np.asarray(data[f"y_{name}"][b], np.float64)))
            assert losses[f"loss_{name}"][b, 0] == pytest.approx(exact, rel=1e-5)
            alone = _numba_engine(net, jax.tree.map(lambda a: a[b:b + 1], params),
                                  {k: v[b:b + 1] for k, v in data.items()}, np.full(1, 0.1, np.float32), 1, observe,
                                  "sum", True).first
            assert alone[f"loss_{name}"][0, 0] == losses[f"loss_{name}"][b, 0]


def _kernel_run(net, params, x, y, learning_rates, n_steps, poison_padding=False):
    """train_steps and summed_losses of B networks called directly; with ``poison_padding`` every
    padding row (after each network's own distinct patterns) is NaN, so reading one shows."""
    from lib.core import training_kernel
    from lib.core.training import _kernel_set

    scratch, arrays = _kernel_set(net, x, y)
    *inputs, y_distinct, counts, n_patterns = arrays
    if poison_padding:
        for b, n in enumerate(n_patterns):
            for a in (scratch, y_distinct, counts):
                a[b, n:] = np.nan
    w_in = np.ascontiguousarray(np.swapaxes(params["w_hidden"], 1, 2), np.float32)
    w_output = np.array(params["w_output"], np.float32)
    biases = (np.float32(net.bias_hidden), np.float32(net.bias_output))
    training_kernel.train_steps(w_in, w_output, scratch, *inputs, y_distinct, counts, n_patterns,
                                np.asarray(learning_rates, np.float32), n_steps, *biases)
    losses = np.empty(len(w_in), np.float64)
    training_kernel.summed_losses(w_in, w_output, scratch, *inputs, y_distinct, counts, n_patterns, *biases, losses)
    return w_in, w_output, losses, n_patterns


def test_kernel_never_reads_batch_padding_so_a_network_trains_alike_alone_and_in_any_batch():
    """At the paper's sizes (200 hidden units, 500 training patterns): the networks of a batch
    have different numbers of distinct patterns, and the kernel cuts each network's arrays to its
    own (the BLAS products, whose blocking depends on the matrix sizes, never see the batch's
    padding). So NaN in every padding row changes nothing, and each network's weights and loss
    are bit-identical alone and in the batch, whatever BLAS kernel this CPU uses."""
    net = MultitaskNet.for_environment(ENV, PAPER["n_hidden"])
    seeds = (3, 4, 5)
    sets = [ENV.make_data(seed, PAPER["n_train"], PAPER["n_test"])[0] for seed in seeds]
    x = np.stack([s.x for s in sets]).astype(np.float32)
    x[1, 250:] = x[1, :250]  # network 1: half as many distinct patterns as the others
    y = np.stack([s.y for s in sets]).astype(np.float32)
    y[1, 250:] = y[1, :250]
    params = jax.tree.map(lambda *a: np.stack(a), *[net.init(jax.random.PRNGKey(s), "standard") for s in seeds])
    rates = np.full(len(seeds), 0.3, np.float32)
    batch = _kernel_run(net, params, x, y, rates, 30)
    assert len(set(batch[3].tolist())) > 1  # the premise: padding exists in this batch
    poisoned = _kernel_run(net, params, x, y, rates, 30, poison_padding=True)
    for got, expected in zip(poisoned[:3], batch[:3]):
        np.testing.assert_array_equal(got, expected)
    for b in range(len(seeds)):
        alone = _kernel_run(net, jax.tree.map(lambda a: a[b:b + 1], params), x[b:b + 1], y[b:b + 1], rates[b:b + 1], 30)
        for got, expected in zip(alone[:3], batch[:3]):
            np.testing.assert_array_equal(got[0], expected[b])


@pytest.mark.parametrize("init", INITS)
def test_distinct_gd_steps_equal_the_reference_descent(init):
    """The XLA step on count-weighted distinct patterns (repeated patterns in the set) against
    ``train(engine="reference")`` on every pattern: the same descent to float32 tolerance."""
    from lib.core.training import distinct_gd_steps

    net = MultitaskNet.for_environment(ENV, 24)
    train_set, _ = ENV.make_data(8, 120, 10)
    x, y = np.asarray(train_set.x, np.float32), np.asarray(train_set.y, np.float32)
    x[60:], y[60:] = x[:60], y[:60]  # every pattern twice
    params = net.init(jax.random.PRNGKey(8), init)
    x_u, y_u, counts = unique_patterns(x, y)
    batch = tuple(jnp.asarray(a) for a in (x_u, x_u[:, net.n_stimulus:], y_u, counts))
    stepped = jax.jit(lambda p: distinct_gd_steps(net, p, batch, 0.01, 40))(params)
    reference, _ = train(net, params, {"x_train": jnp.asarray(x), "y_train": jnp.asarray(y)}, 0.01, 40, 2,
                         engine="reference")
    for key in reference:
        assert_close(stepped[key], reference[key], key)
    assert not np.array_equal(stepped["w_hidden"], params["w_hidden"])
