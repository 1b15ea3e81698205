"""Device memory per trained network: how many vmapped networks fit on an accelerator.

For the paper network (``TaskEnvironment()``, 200 hidden units, 500 train / 500 test
patterns, float32) as :func:`lib.experiments.schedules.run_pairs` trains it, per network:

- counted from the shapes: parameters, the network's copy of the train and test data, the
  snapshots (losses, and optionally hidden activity on the training set);
- measured: the buffers XLA allocates for one compiled, vmapped full-batch gradient step
  (``memory_analysis()`` of the compiled program: arguments, outputs, temporaries) for
  1, 10 and 100 networks, divided by the number of networks.

Then the number of networks that fit in ``--device-gib`` of accelerator memory of which JAX
preallocates 75% by default. Runs on the CPU; XLA on a GPU fuses differently, so read the
measured temporaries as an estimate there.

    python benchmarks/network_memory.py [--n-hidden 200] [--snapshots 101] [--device-gib 80]
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp

from lib.core.losses import squared_error
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment

FLOAT32_BYTES = 4
JAX_PREALLOCATED_FRACTION = 0.75  # XLA_PYTHON_CLIENT_MEM_FRACTION default


def counted_bytes(net: MultitaskNet, n_train: int, n_test: int, n_snapshots: int) -> dict[str, int]:
    """Bytes per network of what a vmapped training run keeps in device memory (float32)."""
    n_parameters = net.n_hidden * net.n_inputs + net.n_outputs * (net.n_hidden + net.n_tasks)
    return {
        "parameters": n_parameters * FLOAT32_BYTES,
        "training data (x, y)": n_train * (net.n_inputs + net.n_outputs) * FLOAT32_BYTES,
        "test data (x, y)": n_test * (net.n_inputs + net.n_outputs) * FLOAT32_BYTES,
        "loss snapshots": 2 * n_snapshots * FLOAT32_BYTES,
        "hidden snapshots (record_hidden)": n_snapshots * n_train * net.n_hidden * FLOAT32_BYTES,
    }


def measured_step_bytes(net: MultitaskNet, n_train: int, n_networks: int) -> int:
    """Arguments + outputs + temporaries of one compiled vmapped GD step over ``n_networks``."""

    def step(params, x, y):
        grads = jax.grad(lambda p: squared_error(net.apply(p, x), y))(params)
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

    params = {"w_hidden": jnp.zeros((n_networks, net.n_hidden, net.n_inputs), jnp.float32),
              "w_output": jnp.zeros((n_networks, net.n_outputs, net.n_hidden + net.n_tasks), jnp.float32)}
    x = jnp.zeros((n_networks, n_train, net.n_inputs), jnp.float32)
    y = jnp.zeros((n_networks, n_train, net.n_outputs), jnp.float32)
    memory = jax.jit(jax.vmap(step)).lower(params, x, y).compile().memory_analysis()
    return memory.argument_size_in_bytes + memory.output_size_in_bytes + memory.temp_size_in_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-hidden", type=int, default=200)
    parser.add_argument("--n-train", type=int, default=500)
    parser.add_argument("--n-test", type=int, default=500)
    parser.add_argument("--snapshots", type=int, default=101)
    parser.add_argument("--device-gib", type=float, default=80.0, help="accelerator memory (H100: 80)")
    args = parser.parse_args()
    net = MultitaskNet.for_environment(TaskEnvironment(), args.n_hidden)
    counted = counted_bytes(net, args.n_train, args.n_test, args.snapshots)
    print(f"paper network: {net.n_inputs} inputs, {net.n_hidden} hidden, {net.n_outputs} outputs; "
          f"{args.n_train} train / {args.n_test} test patterns; {args.snapshots} snapshots; float32")
    for name, size in counted.items():
        print(f"  counted  {name:34s} {size / 1e3:10.1f} kB per network")
    per_network = {}
    for n in (1, 10, 100):
        per_network[n] = measured_step_bytes(net, args.n_train, n) / n
        print(f"  measured one vmapped GD step over {n:3d} networks (XLA) {per_network[n] / 1e3:8.1f} kB per network")
    step = per_network[100]
    usable = args.device_gib * 2**30 * JAX_PREALLOCATED_FRACTION
    losses_only = step + counted["test data (x, y)"] + counted["loss snapshots"]  # the step holds params, train data
    with_hidden = losses_only + counted["hidden snapshots (record_hidden)"]
    print(f"per network: {losses_only / 1e6:.2f} MB recording losses, {with_hidden / 1e6:.1f} MB also recording "
          f"hidden activity; networks fitting in {JAX_PREALLOCATED_FRACTION:.0%} of {args.device_gib:g} GiB: "
          f"{int(usable // losses_only):,} and {int(usable // with_hidden):,}")


if __name__ == "__main__":
    main()
