"""ePNTK of one paper network over the ET schedule, streamed: wall time and peak memory.

One standard-init network of the paper (24 -> 200 -> 9, seed 0), 500 training patterns,
kernel rows over the 500 test inputs, 9 outputs, 10 000 full-batch steps at lr 0.01. Side
by side in one run, each in a fresh process (so that its peak resident memory is its own):

* the per-step eNTK cost (median of repeated ``lib.core.kernels.entk`` calls) x steps;
* the every-step ePNTK (``lib.experiments.epntk_stream.stream_epntk``, the paper's eNTK sum), over
  all iterations and over a tenth of them (its peak memory must not grow with the steps); by
  default the kernels are computed on the distinct training patterns and kernel rows
  (i.i.d. sampling repeats ~20% of them), and once more on every pattern (``distinct=False``),
  the same numbers up to float rounding;
* the same with the trapezoid time quadrature: the kernel at every step for the first
  ``--dense`` iterations, then every ``--node-every`` steps; with its relative error
  against the every-step sum.

Peak memory is the process's resident-set high-water mark above a baseline process that
only builds the data and compiles one gradient step (it includes compiling the ePNTK
loop); the K x N x M float32 kernel is 9 x 500 x 500 x 4 B = 9 MB, and keeping the eNTK of
every step would take T times that.

    python benchmarks/epntk_speed.py [--iterations 10000] [--dense 200] [--node-every 20] [--repeats 7]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import resource
import statistics
import time

import numpy as np

LEARNING_RATE = 0.01  # the ET schedule, standard init


def setup():
    import jax
    import jax.numpy as jnp

    from lib.core.models import MultitaskNet
    from lib.core.tasks import TaskEnvironment

    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env)
    train, test = env.make_data(0)
    data = {"x_eval": jnp.asarray(test.x, jnp.float32), "x_train": jnp.asarray(train.x, jnp.float32),
            "y_train": jnp.asarray(train.y, jnp.float32)}
    return net, net.init(jax.random.PRNGKey(0), "standard"), data


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def run_baseline(_args) -> dict:
    import jax

    from lib.core.steps import gradient_step

    net, params, data = setup()
    jax.block_until_ready(jax.jit(lambda p: gradient_step(net, p, data["x_train"], data["y_train"], LEARNING_RATE))(params))
    return {"peak_mb": peak_rss_mb()}


def run_per_step(args) -> dict:
    import jax

    from lib.core import kernels

    net, params, data = setup()
    call = lambda: kernels.entk(net, params, data["x_eval"], data["x_train"], data["y_train"])
    jax.block_until_ready(call())
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        jax.block_until_ready(call())
        times.append(time.perf_counter() - start)
    return {"entk_s": statistics.median(times), "peak_mb": peak_rss_mb()}


def run_stream(args, n_iterations: int, quadrature: bool, distinct: bool = True) -> dict:
    import jax

    from lib.experiments.epntk_stream import stream_epntk

    net, params, data = setup()
    n_snapshots = n_iterations // args.dense + 1
    phases = ((args.dense, 1), (n_iterations, args.node_every)) if quadrature else 1
    warm_phases = ((args.dense, 1), (2 * args.dense, args.node_every))
    warm = stream_epntk(net, params, data, LEARNING_RATE, 2 * args.dense, 3, warm_phases)
    jax.block_until_ready(warm[0])  # compiled: the timed run reuses it (the node spacing is traced)
    start = time.perf_counter()
    final, snapshots, paths = stream_epntk(net, params, data, LEARNING_RATE, n_iterations, n_snapshots, phases,
                                           keep_paths=(n_snapshots - 1,), distinct=distinct)
    jax.block_until_ready(final)
    elapsed = time.perf_counter() - start
    change = np.asarray(snapshots["outputs"][-1] - snapshots["outputs"][0])
    error = np.linalg.norm(np.asarray(snapshots["estimate"][-1]) - change) / np.linalg.norm(change)
    return {"seconds": elapsed, "peak_mb": peak_rss_mb(), "path": paths[0], "reconstruction_error": float(error)}


def in_fresh_process(function, *args):
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10_000)
    parser.add_argument("--dense", type=int, default=200, help="iterations with the kernel at every step")
    parser.add_argument("--node-every", type=int, default=20, help="kernel spacing after the dense iterations")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if args.dense < 1 or args.node_every < 1 or args.dense % args.node_every or args.iterations % (10 * args.dense):
        parser.error("--dense must be a multiple of --node-every, and --iterations a multiple of 10 x --dense")

    baseline = in_fresh_process(run_baseline, args)
    per_step = in_fresh_process(run_per_step, args)
    every = in_fresh_process(run_stream, args, args.iterations, False)
    every_pattern = in_fresh_process(run_stream, args, args.iterations, False, False)
    tenth = in_fresh_process(run_stream, args, args.iterations // 10, False)
    quadrature = in_fresh_process(run_stream, args, args.iterations, True)

    kernel_mb = 9 * 500 * 500 * 4 / 2**20
    estimate = per_step["entk_s"] * args.iterations
    difference = np.linalg.norm(quadrature["path"] - every["path"]) / np.linalg.norm(every["path"])
    print(f"ePNTK of one paper network: {args.iterations} ET steps (lr {LEARNING_RATE}), 500 training patterns, "
          f"500 evaluated inputs, 9 outputs, float32")
    print(f"{'':46s} {'wall s':>9s} {'vs eNTK x steps':>16s} {'peak MB above baseline':>23s}")
    print(f"{'per-step eNTK (median ' + format(per_step['entk_s'] * 1e3, '.2f') + ' ms) x steps':46s} "
          f"{estimate:9.1f} {1.0:16.2f} {per_step['peak_mb'] - baseline['peak_mb']:23.0f}")
    rows = (("streamed ePNTK, every step", every, 1.0),
            ("  the same on every pattern (distinct=False)", every_pattern, 1.0),
            (f"  the same over {args.iterations // 10} iterations", tenth, 0.1),
            (f"streamed, every step to {args.dense}, then every {args.node_every}", quadrature, 1.0))
    for label, run, share in rows:
        print(f"{label:46s} {run['seconds']:9.1f} {run['seconds'] / (estimate * share):16.2f} "
              f"{run['peak_mb'] - baseline['peak_mb']:23.0f}")
    print(f"baseline process (JAX, data, one compiled step): {baseline['peak_mb']:.0f} MB resident")
    print(f"one K x N x M kernel: {kernel_mb:.1f} MB; the eNTK of every step would be "
          f"{kernel_mb * args.iterations / 1024:.0f} GB")
    print(f"quadrature vs every-step ePNTK: relative difference {difference:.2e} (Frobenius)")
    rounding = np.linalg.norm(every_pattern["path"] - every["path"]) / np.linalg.norm(every["path"])
    print(f"distinct patterns vs every pattern: relative difference {rounding:.2e} (float32 rounding); "
          f"{every_pattern['seconds'] / every['seconds']:.2f}x the time on every pattern")
    print(f"reconstruction of y(t) - y(0) on the evaluated inputs: every step {every['reconstruction_error']:.2e}, "
          f"quadrature {quadrature['reconstruction_error']:.2e}")
    per_10k = every["seconds"] * 10_000 / args.iterations
    print(f"the every-step ePNTK of 10 000 steps: {per_10k:.0f} s "
          f"({'measured' if args.iterations == 10_000 else 'scaled linearly from this run'}); "
          f"the per-step eNTK alone x 10 000 steps: {per_step['entk_s'] * 1e4:.0f} s")


if __name__ == "__main__":
    main()
