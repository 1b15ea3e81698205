"""The paper's multitask experiments: standard/large pairs under the ET and LR schedules.

Each *pair* shares one seed: one weight draw (standard, and the same draw x10 for large)
and one dataset. All pairs of a run are trained together (:func:`lib.core.training.train_many`).
Phase ``"single"`` trains from initialization on single-task data; phase ``"finetune"``
continues from given weights on fresh multitask data (paper Sec 5.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

from ..core.kernels import entk
from ..core.losses import squared_error
from ..core.models import INITS, LARGE_SCALINGS, MultitaskNet, Params
from ..core.tasks import Dataset, SPLITS, TaskEnvironment, environment_key
from ..core.engines import DEFAULT_ENGINE, Engine, check_engine
from ..core.entk_variants import ENTK_VARIANTS
from ..core.patterns import unique_patterns
from ..core.training import SummedLosses, multitask_loss, train_many
from ..core.validation import check_choice, check_int, check_keys, check_seed, check_seeds, check_size

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


def pair_initial_params(net: MultitaskNet, seeds: tuple[int, ...], dtype=jnp.float32,
                        large_scaling: str = "both_layers") -> Params:
    """Parameters with leading axis 2 * len(seeds): standard, large, standard, large, ...; the large
    network is its partner's draw scaled per layer by :data:`~lib.core.models.LARGE_SCALINGS`."""
    multipliers = LARGE_SCALINGS[check_choice("large_scaling", large_scaling, LARGE_SCALINGS)]
    nets = []
    for seed in seeds:
        key = jax.random.PRNGKey(seed)
        nets += [net.init(key, init, dtype=dtype, large_multipliers=multipliers) for init in INITS]
    return jax.tree.map(lambda *a: jnp.stack(a), *nets)


def pair_datasets(
    env: TaskEnvironment, seeds: tuple[int, ...], phase: str, n_train: int, n_test: int, split: str
) -> list[tuple[Dataset, Dataset]]:
    """One (train, test) per seed; fine-tuning draws multitask data from an independent stream."""
    multitask = check_choice("phase", phase, PHASES) == "finetune"
    stream = PHASES.index(phase)
    return [env.make_data(s, n_train, n_test, split, multitask=multitask, stream=stream) for s in seeds]


def test_set_size(env: TaskEnvironment, split: str, n_train: int = 500, n_test: int | None = None) -> int:
    """``n_test``, or by default 500 test patterns for ``split="iid"`` and, for ``"disjoint"``, every
    single-task pattern not in the training set up to 500 (972 - 500 = 472 for the main network)."""
    check_choice("split", split, SPLITS)
    if n_test is not None:
        return check_int("n_test", n_test, minimum=1)
    return 500 if split == "iid" else min(500, len(env.all_stimuli) * env.n_tasks - n_train)


def by_pair(array, n_pairs: int) -> np.ndarray:
    """(2P, ...) networks in standard, large, standard, ... order -> (P, 2, ...)."""
    array = np.asarray(array)
    return array.reshape((n_pairs, 2) + array.shape[1:])


def pair_data_arrays(datasets: list[tuple[Dataset, Dataset]]) -> dict[str, np.ndarray]:
    """Per-pair arrays (P, ...) ``x_*``, ``y_*``, ``stimulus_*``, ``tasks_*`` for train and test."""
    out = {}
    for i, split_name in enumerate(("train", "test")):
        for attr in ("x", "y", "stimulus", "tasks"):
            out[f"{attr}_{split_name}"] = np.stack([getattr(d[i], attr) for d in datasets])
    return out


def initial_pairs(env: TaskEnvironment, seeds, n_hidden: int = 200, n_train: int = 500, n_test: int | None = None,
                  split: str = "iid", large_scaling: str = "both_layers") -> dict[str, np.ndarray]:
    """Untrained pairs: ``params_initial/*`` (P, 2, ...) and the single-task data of each pair,
    exactly as :func:`run_schedule` starts from them (no training); ``n_test``: :func:`test_set_size`."""
    seeds = check_seeds("seeds", seeds)
    n_test = test_set_size(env, split, n_train, n_test)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    params = pair_initial_params(net, seeds, large_scaling=large_scaling)
    out = {f"params_initial/{k}": by_pair(v, len(seeds)) for k, v in params.items()}
    return out | pair_data_arrays(pair_datasets(env, seeds, "single", n_train, n_test, split))


@lru_cache(maxsize=None)
def observe_pairs(net: MultitaskNet, record_hidden: bool, record_probe: bool = False,
                  engine: Engine | str = DEFAULT_ENGINE):
    """Snapshot function: train/test summed squared error, hidden activity on the training
    set, and group-averaged hidden activity on probe patterns (``probe_average @ h(x_probe)``).

    ``engine="numba"`` without hidden activity or probes: :class:`lib.core.training.SummedLosses`,
    which the CPU kernel evaluates itself, per network. Otherwise an engine that trains on
    distinct patterns (:attr:`lib.core.engines.Engine.distinct_patterns`) computes the losses with
    :func:`lib.core.training.multitask_loss` on the distinct patterns of each set weighted by
    their counts (``distinct_x_<set>``, ``distinct_y_<set>``, ``distinct_counts_<set>`` in the
    data, see :func:`distinct_sets`): the same sums up to float32 rounding."""
    engine = check_engine("engine", engine)
    if engine is Engine.NUMBA and not record_hidden and not record_probe:
        return SummedLosses(net)

    def loss(params: Params, data: dict, name: str) -> jax.Array:
        if engine.distinct_patterns:
            return multitask_loss(net, params, *(data[f"distinct_{k}_{name}"] for k in ("x", "y", "counts")))
        return squared_error(net.apply(params, data[f"x_{name}"]), data[f"y_{name}"])

    def observe(params: Params, data: dict) -> dict:
        out = {"loss_train": loss(params, data, "train"), "loss_test": loss(params, data, "test")}
        if record_hidden:
            out["hidden_train"] = net.hidden(params, data["x_train"])
        if record_probe:
            out["hidden_groups"] = data["probe_average"] @ net.hidden(params, data["x_probe"])
        return out

    return observe


def distinct_sets(data: dict, names=("train", "test")) -> dict[str, jax.Array]:
    """``distinct_x_<name>``, ``distinct_y_<name>``, ``distinct_counts_<name>`` (B, U, ...) from
    the (B, N, ...) ``x_<name>``/``y_<name>`` of ``data`` (:func:`lib.core.patterns.unique_patterns`)."""
    out = {}
    for name in names:
        arrays = unique_patterns(data[f"x_{name}"], data[f"y_{name}"])
        out |= {f"distinct_{k}_{name}": jnp.asarray(a) for k, a in zip(("x", "y", "counts"), arrays)}
    return out


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
    probe: tuple[np.ndarray, np.ndarray] | None = None,
    progress: bool = False,
    engine: Engine | str = DEFAULT_ENGINE,
    large_scaling: str = "both_layers",
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
        probe: optional (x_probe (Q, D), averaging matrix (G, Q)): record ``hidden_groups``
            (P, 2, S, G, H), the group means of hidden activity on the probe patterns.
        progress: show a tqdm bar over iterations.
        engine: the :class:`~lib.core.engines.Engine` that trains (:func:`lib.core.training.train_many`;
            all equal up to float32 rounding).
        large_scaling: how the large init scales the standard draw (phase "single" only):
            "both_layers" (x10, the paper's Sec 4.1.3) or "layer1_only" (its Sec 5 sentence).

    Returns:
        numpy arrays with leading axes (pairs, 2 inits): ``loss_train``/``loss_test``
        (P, 2, S), ``params_initial/*``, ``params_final/*``, optional ``hidden_train``
        (P, 2, S, N, H); and per-pair data ``x_train``, ``y_train``, ``x_test``, ``y_test``,
        ``stimulus_train``, ``tasks_train``, ``stimulus_test``, ``tasks_test``.
    """
    seeds = check_seeds("seeds", seeds)
    sched = get_schedule(schedule)
    check_choice("phase", phase, PHASES)
    engine = check_engine("engine", engine)
    n_iterations = sched.n_iterations if n_iterations is None else check_int("n_iterations", n_iterations, 1)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    if phase == "single":
        params = pair_initial_params(net, seeds, large_scaling=large_scaling)
    else:
        if start_params is None:
            raise ValueError("start_params is required when phase='finetune' (weights after single-task training)")
        params = jax.tree.map(lambda a: jnp.asarray(a).reshape((2 * len(seeds),) + a.shape[2:]), start_params)
    arrays = pair_data_arrays(pair_datasets(env, seeds, phase, n_train, n_test, split))
    data = {k: jnp.asarray(np.repeat(v, 2, axis=0), jnp.float32)  # one copy per network of the pair
            for k, v in arrays.items() if k[:2] in ("x_", "y_")}
    if probe is not None:
        for name, value in zip(("x_probe", "probe_average"), probe):
            data[name] = jnp.broadcast_to(jnp.asarray(value, jnp.float32), (2 * len(seeds),) + np.shape(value))
    lrs = jnp.asarray([sched.learning_rate(init) for _ in seeds for init in INITS], jnp.float32)
    observe = observe_pairs(net, record_hidden, probe is not None, engine)
    if engine.distinct_patterns and not isinstance(observe, SummedLosses):
        data |= distinct_sets(data)
    final, snaps = train_many(net, params, data, lrs, n_iterations, n_snapshots, observe,
                              progress=f"{schedule} {phase}, {len(seeds)} pairs" if progress else None, engine=engine)
    out = {k: by_pair(v, len(seeds)) for k, v in snaps.items()}
    out |= {f"params_initial/{k}": by_pair(v, len(seeds)) for k, v in params.items()}
    out |= {f"params_final/{k}": by_pair(v, len(seeds)) for k, v in final.items()}
    out |= arrays
    out["iterations"] = np.linspace(0, n_iterations, n_snapshots).round().astype(int)
    return out


def params_of(result: dict[str, np.ndarray], which: str) -> Params:
    """The ``params_initial`` or ``params_final`` pytree of a :func:`run_pairs` result (or,
    with a phase prefix such as ``"single/params_final"``, of a :func:`run_schedule` result)."""
    check_choice("which", which.split("/")[-1], ("params_initial", "params_final"))
    prefix = which + "/"
    return {k[len(prefix) :]: v for k, v in result.items() if k.startswith(prefix)}


def entk_at_init(env: TaskEnvironment, result: dict[str, np.ndarray], pair: int, init: str, variant: str = "principled"):
    """(K, N, M) t=0 eNTK of one network of a :func:`run_pairs` result, in float32.

    ``variant``: one of :data:`lib.core.entk_variants.ENTK_VARIANTS`; ``"principled"``: rows and
    columns over the training inputs (as the paper's text says); ``"authors"``: rows over the
    test inputs, columns over the training inputs.
    """
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


def run_schedule(
    env: TaskEnvironment,
    schedule: str,
    seeds,
    n_iterations: int | None = None,
    n_hidden: int = 200,
    n_train: int = 500,
    n_test: int | None = None,
    split: str = "iid",
    progress: bool = True,
    engine: Engine | str = DEFAULT_ENGINE,
    large_scaling: str = "both_layers",
) -> dict[str, np.ndarray]:
    """The paper's Sec 5 experiment for one schedule: single-task training of standard/large
    pairs, then multitask fine-tuning from the trained weights (``engine``: see :func:`run_pairs`).

    Returns arrays keyed ``single/<key>`` and ``finetune/<key>``: losses (P, 2, S), the data
    metadata (stimulus, tasks) and the final weights ``<phase>/params_final/*`` (P, 2, ...)
    of each phase — fine-tuning can be re-run from the saved single-task weights with
    ``run_pairs(..., phase="finetune", start_params=params_of(result, "single/params_final"))`` —
    plus ``iterations`` (S,). ``large_scaling``: see :func:`run_pairs`; ``n_test``: :func:`test_set_size`.
    """
    n_test = test_set_size(env, split, n_train, n_test)
    common = dict(n_hidden=n_hidden, n_train=n_train, n_test=n_test, split=split, n_iterations=n_iterations,
                  progress=progress, engine=engine)
    single = run_pairs(env, schedule, seeds, phase="single", large_scaling=large_scaling, **common)
    finetune = run_pairs(env, schedule, seeds, phase="finetune", start_params=params_of(single, "params_final"),
                         **common)
    keep = ("loss_train", "loss_test", "stimulus_train", "tasks_train", "stimulus_test", "tasks_test")
    out = {f"{phase}/{k}": result[k] for phase, result in (("single", single), ("finetune", finetune))
           for k in keep + tuple(k for k in result if k.startswith("params_final/"))}
    out["iterations"] = single["iterations"]
    return out


def schedule_parameters(env: TaskEnvironment, schedule: str, seeds, n_iterations: int | None = None,
                        n_hidden: int = 200, split: str = "iid", large_scaling: str = "both_layers",
                        engine: Engine | str = DEFAULT_ENGINE) -> dict:
    """The cache key of :func:`cached_schedule` (validated); ``engine_tag`` names the engine and
    the version of its arithmetic (:attr:`lib.core.engines.Engine.tag`), so results of
    different engines never mix."""
    seeds = check_seeds("seeds", seeds)
    engine_tag = check_engine("engine", engine).tag
    default_iterations = get_schedule(schedule).n_iterations  # checks the schedule's name
    n_iterations = default_iterations if n_iterations is None else n_iterations
    return dict(env=environment_key(env), schedule=schedule, seeds=list(seeds),
                n_iterations=check_int("n_iterations", n_iterations, minimum=1), n_hidden=n_hidden,
                split=check_choice("split", split, SPLITS),
                large_scaling=check_choice("large_scaling", large_scaling, LARGE_SCALINGS), engine_tag=engine_tag)


SCHEDULE_CODE = (__name__, "lib.experiments.sweep_points")  # the code of a "schedule" entry: cached_schedule here,
# or lib.experiments.sweep_points.schedule_point, which writes the same entries (a name, not an import)


def cached_schedule(env: TaskEnvironment, schedule: str, seeds, n_iterations: int | None = None,
                    n_hidden: int = 200, split: str = "iid", large_scaling: str = "both_layers",
                    engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """:func:`run_schedule` through the on-disk results cache (wall time in its metadata)."""
    from ..core import results

    parameters = schedule_parameters(env, schedule, seeds, n_iterations, n_hidden, split, large_scaling, engine)
    return results.cached("schedule", parameters, lambda: run_schedule(
        env, schedule, parameters["seeds"], parameters["n_iterations"], n_hidden, split=split,
        large_scaling=large_scaling, engine=engine), computed_by=SCHEDULE_CODE)


def schedule_wall_time_s(*arguments, **options) -> float:
    """Seconds the cached :func:`cached_schedule` with these arguments (those of
    :func:`schedule_parameters`) took to compute (its entry's metadata;
    :class:`lib.core.cache_entry.CacheError` if it is not cached)."""
    from ..core import results

    return results.metadata_of("schedule", schedule_parameters(*arguments, **options),
                               computed_by=SCHEDULE_CODE)["wall_time_s"]


def run_early_phases(env: TaskEnvironment, schedule: str, seeds, start_finetune: Params, window: int,
                     every: int = 10, n_hidden: int = 200, n_train: int = 500, n_test: int | None = None,
                     split: str = "iid", large_scaling: str = "both_layers",
                     engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """The first ``window`` iterations of both phases of :func:`run_schedule`, snapshotted every
    ``every`` iterations: single-task training from the initial weights, and fine-tuning from
    ``start_finetune`` (the single-task-trained weights, (P, 2, ...) as ``single/params_final/*``
    of :func:`run_schedule` of the same ``seeds``). Full-batch gradient descent is deterministic
    and a snapshot does not change the weights, so these are the same trajectories as the full
    run's, finer sampled (equal at the shared iterations up to float32 rounding; tested).

    Returns: ``single/loss_train``, ``single/loss_test``, ``finetune/loss_train``,
    ``finetune/loss_test`` (P, 2, window // every + 1) summed squared errors, and ``iterations`` (S,).
    """
    window = check_int("window", window, minimum=1)
    every = check_int("every", every, minimum=1)
    if window % every:
        raise ValueError(f"window must be a multiple of every ({every}), got {window}")
    seeds = check_seeds("seeds", seeds)
    shapes = {k: np.shape(v)[:2] for k, v in start_finetune.items()}
    if not shapes or any(shape != (len(seeds), 2) for shape in shapes.values()):
        raise ValueError(f"start_finetune must hold (pairs={len(seeds)}, 2, ...) arrays of the single-task-trained "
                         f"weights, got leading shapes {shapes}")
    common = dict(n_hidden=n_hidden, n_train=n_train, n_test=test_set_size(env, split, n_train, n_test), split=split,
                  n_iterations=window, n_snapshots=window // every + 1, engine=engine)
    single = run_pairs(env, schedule, seeds, phase="single", large_scaling=large_scaling, **common)
    finetune = run_pairs(env, schedule, seeds, phase="finetune", start_params=start_finetune, **common)
    out = {f"{phase}/{k}": result[k] for phase, result in (("single", single), ("finetune", finetune))
           for k in ("loss_train", "loss_test")}
    out["iterations"] = single["iterations"]
    return out


def check_schedule_parameters(n_pairs, first_seeds, iterations, n_pairs_name: str = "n_pairs",
                              first_seeds_name: str = "first_seeds",
                              iterations_name: str = "iterations") -> dict[str, tuple[tuple[int, ...], int]]:
    """Validate the notebooks' schedule parameters; return schedule -> (seeds, n_iterations).

    ``first_seeds`` and ``iterations`` are dicts keyed by schedule name ("ET", "LR"); seeds of
    different schedules must not overlap (fresh networks per schedule). ``n_pairs_name``,
    ``first_seeds_name``, ``iterations_name`` are the caller's names of the three (chapter 12's
    ``pair_n_pairs``, ...), used in the messages."""
    check_size(n_pairs_name, n_pairs, minimum=2, sane_maximum=200)
    for name, value in ((first_seeds_name, first_seeds), (iterations_name, iterations)):
        check_keys(name, value, sorted(SCHEDULES))
    plan = {}
    for schedule in SCHEDULES:
        first = check_seed(f"{first_seeds_name}[{schedule!r}]", first_seeds[schedule])
        check_seed(f"{first_seeds_name}[{schedule!r}] + {n_pairs_name} - 1", first + n_pairs - 1)
        n_it = check_size(f"{iterations_name}[{schedule!r}]", iterations[schedule], minimum=100, sane_maximum=100_000)
        if n_it % 100:
            raise ValueError(f"{iterations_name}[{schedule!r}] must be a multiple of 100 (101 snapshots), got {n_it}")
        plan[schedule] = (tuple(range(first, first + n_pairs)), n_it)
    seeds = [set(s) for s, _ in plan.values()]
    if seeds[0] & seeds[1]:
        raise ValueError(f"{first_seeds_name} must give disjoint seed ranges for the schedules, got {first_seeds!r}")
    return plan


def main(argv: list[str] | None = None) -> int:
    """Command line: run (or load) one schedule's experiment into the results cache."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Run the Sec 5 experiment for one schedule (cached).")
    parser.add_argument("--schedule", choices=sorted(SCHEDULES), required=True)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=None, help="override the schedule's iteration count")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = cached_schedule(TaskEnvironment(), args.schedule, range(args.first_seed, args.first_seed + args.pairs),
                          args.iterations)
    final = out["single/loss_test"][:, :, -1].mean(axis=0).round(2)
    print(f"{args.schedule}: mean final single-task test loss standard/large = {final}; "
          f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
