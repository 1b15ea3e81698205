"""Structured eNTK vs neural-tangents on the paper network at init, side by side.

500 patterns, 9 outputs, the full per-output loss-weighted eNTK (9 x 500 x 500), float32.
Prints the median of repeated calls (after one compile/warm-up call) for each
implementation, the ratio, and the largest relative difference between them.

    python benchmarks/entk_speed.py [--repeats 7]
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp

from lib.core import kernels
from lib.core.kernel_reference import median_seconds
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from machine import describe_machine  # benchmarks/machine.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env)
    train, test = env.make_data(0)
    x_eval, x_train, y_train = (jnp.asarray(a, jnp.float32) for a in (test.x, train.x, train.y))
    params = net.init(jax.random.PRNGKey(0), "standard")

    # arrays are passed as arguments (not closed over), so XLA cannot constant-fold the work away
    structured = lambda: kernels.entk(net, params, x_eval, x_train, y_train)
    reference = {
        impl: (lambda impl=impl: kernels.entk_neural_tangents(net, params, x_eval, x_train, y_train, implementation=impl))
        for impl in kernels.NT_IMPLEMENTATIONS
    }
    t_structured = median_seconds(structured, args.repeats)
    t_reference = {impl: median_seconds(fn, max(3, args.repeats // 2)) for impl, fn in reference.items()}
    fastest = min(t_reference, key=t_reference.get)
    ours, theirs = structured(), reference[fastest]()
    rel = float(jnp.abs(ours - theirs).max() / jnp.abs(theirs).max())

    print(describe_machine())
    print(f"eNTK of the paper network at init: 500 x 500 patterns, 9 outputs, float32, {jax.devices()[0]}")
    print(f"{'implementation':42s} {'median s':>10s} {'ratio':>9s}")
    print(f"{'structured (lib.core.kernels.entk, jitted)':42s} {t_structured:10.4f} {1.0:9.1f}")
    for impl, t in t_reference.items():
        print(f"{'neural-tangents implementation ' + str(impl):42s} {t:10.4f} {t / t_structured:9.1f}")
    print(f"speed-up over the fastest neural-tangents implementation ({fastest}): {t_reference[fastest] / t_structured:.1f}x")
    print(f"max relative difference structured vs neural-tangents: {rel:.2e}")
    print(f"one standard/large pair: {2 * t_structured:.3f} s")


if __name__ == "__main__":
    main()
