"""The paper's multitask experiments: standard/large pairs under the ET and LR schedules.

Each *pair* shares one seed: one weight draw (standard, and the same draw x10 for large)
and one dataset. All pairs of a run are trained together, vmapped, in one compiled scan.
Phase ``"single"`` trains from initialization on single-task data; phase ``"finetune"``
continues from given weights on fresh multitask data (SPEC section 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

from .losses import squared_error
from .models import INITS, MultitaskNet, Params
from .tasks import Dataset, TaskEnvironment
from .training import train_many
from .validation import check_choice, check_int, check_seeds

PHASES = ("single", "finetune")


@dataclass(frozen=True)
class Schedule:
    """Learning rates per init and the number of full-batch iterations."""

    name: str
    lr_standard: float
    lr_large: float
    n_iterations: int

    def learning_rate(self, init: str) -> float:
        check_choice("init", init, INITS)
        return self.lr_standard if init == "standard" else self.lr_large


SCHEDULES = {
    "ET": Schedule("ET", lr_standard=0.01, lr_large=0.01, n_iterations=10_000),
    "LR": Schedule("LR", lr_standard=0.03, lr_large=0.01, n_iterations=2_500),
}


def get_schedule(name: str) -> Schedule:
    """The schedule called ``name`` ("ET": extended time, "LR": learning-rate tuned)."""
    return SCHEDULES[check_choice("schedule", name, SCHEDULES)]


def pair_initial_params(net: MultitaskNet, seeds: tuple[int, ...], dtype=jnp.float32) -> Params:
    """Parameters with leading axis 2 * len(seeds): standard, large, standard, large, ..."""
    nets = []
    for seed in seeds:
        key = jax.random.PRNGKey(seed)
        nets += [net.init(key, init, dtype=dtype) for init in INITS]
    return jax.tree.map(lambda *a: jnp.stack(a), *nets)


def pair_datasets(
    env: TaskEnvironment, seeds: tuple[int, ...], phase: str, n_train: int, n_test: int, split: str
) -> list[tuple[Dataset, Dataset]]:
    """One (train, test) per seed; fine-tuning draws multitask data from an independent stream."""
    multitask = check_choice("phase", phase, PHASES) == "finetune"
    stream = PHASES.index(phase)
    return [env.make_data(s, n_train, n_test, split, multitask=multitask, stream=stream) for s in seeds]


@lru_cache(maxsize=None)
def observe_pairs(net: MultitaskNet, record_hidden: bool):
    """Snapshot function: train/test summed squared error, and hidden activity on the training set."""

    def observe(params: Params, data: dict) -> dict:
        out = {
            "loss_train": squared_error(net.apply(params, data["x_train"]), data["y_train"]),
            "loss_test": squared_error(net.apply(params, data["x_test"]), data["y_test"]),
        }
        if record_hidden:
            out["hidden_train"] = net.hidden(params, data["x_train"])
        return out

    return observe


def run_pairs(
    env: TaskEnvironment,
    schedule: str,
    seeds,
    phase: str = "single",
    start_params: Params | None = None,
    n_hidden: int = 200,
    n_train: int = 500,
    n_test: int = 500,
    split: str = "iid",
    n_iterations: int | None = None,
    n_snapshots: int = 101,
    record_hidden: bool = False,
) -> dict[str, np.ndarray]:
    """Train standard/large pairs, one per seed, all in one vmapped scan.

    Args:
        env: the task environment.
        schedule: "ET" or "LR" (learning rates per init; default iteration count).
        seeds: pair seeds (weights and data).
        phase: "single" (from init, single-task data) or "finetune" (from ``start_params``,
            multitask data).
        start_params: for fine-tuning, params with leading axes (pairs, 2) as returned here.
        n_iterations: override the schedule's iteration count (quick profiles).
        record_hidden: also store hidden activity on the training set at every snapshot
            (pairs x 2 x snapshots x n_train x n_hidden floats).

    Returns:
        numpy arrays with leading axes (pairs, 2 inits): ``loss_train``/``loss_test``
        (P, 2, S), ``params_initial/*``, ``params_final/*``, optional ``hidden_train``
        (P, 2, S, N, H); and per-pair data ``x_train``, ``y_train``, ``x_test``, ``y_test``,
        ``stimulus_train``, ``tasks_train``, ``stimulus_test``, ``tasks_test``.
    """
    seeds = check_seeds("seeds", seeds)
    sched = get_schedule(schedule)
    check_choice("phase", phase, PHASES)
    n_iterations = sched.n_iterations if n_iterations is None else check_int("n_iterations", n_iterations, 1)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    if phase == "single":
        params = pair_initial_params(net, seeds)
    else:
        if start_params is None:
            raise ValueError("start_params is required when phase='finetune' (weights after single-task training)")
        params = jax.tree.map(lambda a: jnp.asarray(a).reshape((2 * len(seeds),) + a.shape[2:]), start_params)
    datasets = pair_datasets(env, seeds, phase, n_train, n_test, split)
    data = {
        name: jnp.asarray(np.repeat(np.stack([getattr(d[i], attr) for d in datasets]), 2, axis=0), jnp.float32)
        for i, split_name in enumerate(("train", "test"))
        for name, attr in ((f"x_{split_name}", "x"), (f"y_{split_name}", "y"))
    }
    lrs = jnp.asarray([sched.learning_rate(init) for _ in seeds for init in INITS], jnp.float32)
    final, snaps = train_many(net, params, data, lrs, n_iterations, n_snapshots, observe_pairs(net, record_hidden))
    pairs = lambda a: np.asarray(a).reshape((len(seeds), 2) + a.shape[1:])
    out = {k: pairs(v) for k, v in snaps.items()}
    out |= {f"params_initial/{k}": pairs(v) for k, v in params.items()}
    out |= {f"params_final/{k}": pairs(v) for k, v in final.items()}
    for i, split_name in enumerate(("train", "test")):
        out[f"x_{split_name}"] = np.stack([d[i].x for d in datasets])
        out[f"y_{split_name}"] = np.stack([d[i].y for d in datasets])
        out[f"stimulus_{split_name}"] = np.stack([d[i].stimulus for d in datasets])
        out[f"tasks_{split_name}"] = np.stack([d[i].tasks for d in datasets])
    out["iterations"] = np.linspace(0, n_iterations, n_snapshots).round().astype(int)
    return out


def params_of(result: dict[str, np.ndarray], which: str) -> Params:
    """The ``params_initial`` or ``params_final`` pytree of a :func:`run_pairs` result."""
    check_choice("which", which, ("params_initial", "params_final"))
    prefix = which + "/"
    return {k[len(prefix) :]: v for k, v in result.items() if k.startswith(prefix)}


ENTK_VARIANTS = ("principled", "authors")


def entk_at_init(env: TaskEnvironment, result: dict[str, np.ndarray], pair: int, init: str, variant: str = "principled"):
    """(K, N, M) t=0 eNTK of one network of a :func:`run_pairs` result, in float32.

    ``variant="principled"``: rows and columns over the training inputs (SPEC section 3).
    ``variant="authors"``: rows over the test inputs, columns over the training inputs.
    """
    from .kernels import entk  # kernels imports training; keep this module light to import

    check_choice("variant", variant, ENTK_VARIANTS)
    check_choice("init", init, INITS)
    n_pairs = result["x_train"].shape[0]
    if not (isinstance(pair, (int, np.integer)) and 0 <= pair < n_pairs):
        raise ValueError(f"pair must be an integer in 0..{n_pairs - 1}, got {pair!r}")
    n_hidden = result["params_initial/w_hidden"].shape[2]
    net = MultitaskNet.for_environment(env, n_hidden)
    params = {k: jnp.asarray(v[pair, INITS.index(init)]) for k, v in params_of(result, "params_initial").items()}
    x_eval = result["x_train" if variant == "principled" else "x_test"][pair]
    return np.asarray(entk(net, params, jnp.asarray(x_eval), jnp.asarray(result["x_train"][pair]),
                           jnp.asarray(result["y_train"][pair])))
