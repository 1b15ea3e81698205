"""The Saxe-McClelland-Ganguli (2013) validation problem (paper Sec 3, App A.3).

A bias-free linear network y = W_2 W_1 x (4 -> 3 -> 5) learns a target map
``W_target = U diag(s) V^T`` from whitened inputs (sum_n x_n x_n^T = I) with the mean
squared error. With the *mean* over P patterns and N_out outputs and learning rate lr, gradient
descent follows SMG's equations with time constant ``tau = P * N_out / (2 lr)`` iterations,
and each mode's strength u_a = U[:, a]^T W V[:, a] follows (SMG Eq. 12, balanced small init)

    u(t) = s e^{2 s t / tau} / (e^{2 s t / tau} - 1 + s / u0),

reaching s/2 at ``t_half = tau / (2 s) * ln(s / u0 - 1)``.

For a linear network the eNTK is linear in the evaluated input, so evaluating it at the
basis inputs e_i gives the first-order change of the end-to-end map in one step,
``delta_W[l, i] = -lr * sum_m K_l(e_i, x_m)`` (App A.3.2's per-input-dimension
decomposition divided by x[i]); the ePNTK at the basis inputs gives W(t) - W(0).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

from ..core.kernels import entk, epntk, ntk
from ..core.losses import squared_error
from ..core.models import LinearNet, Params
from ..core.training import train
from ..core.validation import check_choice, check_int, check_positive_float, check_seed


@dataclass(frozen=True)
class SMGProblem:
    """Whitened inputs ``x`` (P, n_in), targets ``y = x W_target^T`` (P, n_out), and the
    target's SVD: ``u_out`` (n_out, r), ``singular_values`` (r,), ``v_in`` (n_in, r)."""

    x: np.ndarray
    y: np.ndarray
    w_target: np.ndarray
    u_out: np.ndarray
    singular_values: np.ndarray
    v_in: np.ndarray

    @property
    def input_projections(self) -> np.ndarray:
        """(P, r) projection of every input on the target's input singular vectors."""
        return self.x @ self.v_in


def make_smg_problem(
    seed: int = 0, n_samples: int = 250, singular_values=(90.0, 24.0, 7.0, 1.0), n_in: int = 4, n_out: int = 5
) -> SMGProblem:
    """Random orthonormal singular vectors with the given singular values; Gaussian inputs,
    centred and whitened so that ``x.T @ x = I`` (as in the authors' script)."""
    check_seed("seed", seed)
    check_int("n_samples", n_samples, minimum=n_in + 1)
    s = np.asarray(singular_values, dtype=np.float64)
    if s.ndim != 1 or len(s) != min(n_in, n_out) or (s <= 0).any():
        raise ValueError(f"singular_values must be {min(n_in, n_out)} positive numbers, got {singular_values!r}")
    rng = np.random.default_rng(seed)
    order = np.argsort(-s)
    s = s[order]
    u_out, _ = np.linalg.qr(rng.normal(size=(n_out, len(s))))
    v_in, _ = np.linalg.qr(rng.normal(size=(n_in, len(s))))
    w_target = u_out @ np.diag(s) @ v_in.T
    x = rng.normal(size=(n_samples, n_in))
    x -= x.mean(axis=0)
    evals, evecs = np.linalg.eigh(x.T @ x)
    x = x @ evecs @ np.diag(evals**-0.5) @ evecs.T
    return SMGProblem(x=x, y=x @ w_target.T, w_target=w_target, u_out=u_out, singular_values=s, v_in=v_in)


def time_constant(n_samples: int, n_outputs: int, learning_rate: float) -> float:
    """SMG's tau in iterations for gradient descent on the mean squared error."""
    return n_samples * n_outputs / (2.0 * learning_rate)


def mode_strength_closed_form(t: np.ndarray, s: float, u0: float, tau: float) -> np.ndarray:
    """SMG Eq. 12: strength of a mode with singular value s from initial strength u0 > 0."""
    decay = np.exp(-2.0 * s * np.asarray(t, dtype=np.float64) / tau)
    return s / (1.0 + (s / u0 - 1.0) * decay)  # = s e / (e - 1 + s/u0) with e = 1/decay, without overflow


def half_time_closed_form(s: float, u0: float, tau: float) -> float:
    """Iteration at which :func:`mode_strength_closed_form` reaches s / 2."""
    return tau / (2.0 * s) * np.log(s / u0 - 1.0)


def mode_strengths(end_to_end: np.ndarray, problem: SMGProblem) -> np.ndarray:
    """(T, r) strengths U[:, a]^T W(t) V[:, a] of maps ``end_to_end`` (T, n_out, n_in)."""
    return np.einsum("oa,toi,ia->ta", problem.u_out, end_to_end, problem.v_in)


def crossing_time(times: np.ndarray, values: np.ndarray, level: float) -> float:
    """First time ``values`` reaches ``level`` (linear interpolation); nan if never."""
    above = np.flatnonzero(values >= level)
    if len(above) == 0:
        return float("nan")
    i = above[0]
    if i == 0:
        return float(times[0])
    frac = (level - values[i - 1]) / (values[i] - values[i - 1])
    return float(times[i - 1] + frac * (times[i] - times[i - 1]))


def initial_strengths(params: Params, problem: SMGProblem) -> np.ndarray:
    """(r,) effective initial mode strengths ``|a_a| |b_a|``: the product of the norms of the
    first layer's projection on v_a and the second layer's projection on u_a. From a small
    random init the hidden directions align within a few iterations, after which SMG's
    balanced solution applies with this u0 (the signed u^T W(0) v can be ~0 or negative)."""
    a = np.linalg.norm(np.asarray(params["w1"]) @ problem.v_in, axis=0)
    b = np.linalg.norm(problem.u_out.T @ np.asarray(params["w2"]), axis=1)
    return a * b


SMG_INITS = ("random", "aligned")


def aligned_params(problem: SMGProblem, u0: np.ndarray, n_hidden: int = 3, seed: int = 0) -> Params:
    """SMG's decoupled, balanced initial condition: W_1 = R diag(sqrt(u0)) V^T and
    W_2 = U diag(sqrt(u0)) R^T over the first ``n_hidden`` modes (R a random rotation of the
    hidden layer), so W_2 W_1 = U diag(u0) V^T and every mode follows Eq. 12 on its own."""
    u0 = np.broadcast_to(np.asarray(u0, dtype=np.float64), (n_hidden,))
    if (u0 <= 0).any():
        raise ValueError(f"u0 must be positive initial mode strengths, got {u0!r}")
    rotation, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(n_hidden, n_hidden)))
    root = np.diag(np.sqrt(u0))
    w1 = rotation @ root @ problem.v_in[:, :n_hidden].T
    w2 = problem.u_out[:, :n_hidden] @ root @ rotation.T
    return {"w1": jnp.asarray(w1), "w2": jnp.asarray(w2)}


def initial_params(problem: SMGProblem, seed: int = 0, init_scale: float = 0.1, n_hidden: int = 3) -> Params:
    """The authors' small random init of the SMG network (float64; x64 must be enabled)."""
    if not jax.config.read("jax_enable_x64"):
        raise RuntimeError("SMG runs need float64: call jax.config.update('jax_enable_x64', True) before any JAX work")
    model = LinearNet(problem.x.shape[1], n_hidden, problem.y.shape[1])
    return model.init(jax.random.PRNGKey(seed), scale=init_scale, dtype=jnp.float64)


@lru_cache(maxsize=None)
def _observe_params_and_loss(model: LinearNet):
    """Snapshot function of :func:`run_smg` (one per model, so repeated runs reuse the compiled scan)."""

    def observe(params, data):
        return {"params": params, "loss": squared_error(model.apply(params, data["x_train"]), data["y_train"], "mean")}

    return observe


@dataclass(frozen=True)
class SMGRun:
    """A training run with parameters recorded at ``times`` (T,)."""

    times: np.ndarray
    params: Params  # leaves with a leading axis T
    loss: np.ndarray  # (T,) mean squared error on the training (= test) set
    learning_rate: float


def run_smg(
    problem: SMGProblem,
    seed: int = 0,
    learning_rate: float = 0.2,
    n_iterations: int = 2500,
    record_every: int = 10,
    init_scale: float = 0.1,
    n_hidden: int = 3,
    init: str = "random",
) -> SMGRun:
    """Full-batch GD on the mean squared error, recording the parameters every
    ``record_every`` iterations (float64).

    ``init="random"``: the authors' small init (PyTorch's default draw x ``init_scale``).
    ``init="aligned"``: its idealized twin, :func:`aligned_params` with the random draw's
    effective strengths :func:`initial_strengths` (the case SMG's closed form solves exactly).
    """
    check_positive_float("learning_rate", learning_rate)
    check_int("record_every", record_every, minimum=1)
    check_int("n_iterations", n_iterations, minimum=record_every)
    check_choice("init", init, SMG_INITS)
    model = LinearNet(problem.x.shape[1], n_hidden, problem.y.shape[1])
    params = initial_params(problem, seed, init_scale, n_hidden)
    if init == "aligned":
        params = aligned_params(problem, initial_strengths(params, problem)[:n_hidden], n_hidden, seed)
    data = {"x_train": jnp.asarray(problem.x), "y_train": jnp.asarray(problem.y)}
    n_snapshots = n_iterations // record_every + 1
    _, snaps = train(model, params, data, learning_rate, n_snapshots=n_snapshots,
                     n_iterations=(n_snapshots - 1) * record_every, observe=_observe_params_and_loss(model),
                     reduction="mean", engine="reference")
    times = np.arange(n_snapshots) * record_every
    return SMGRun(times, jax.tree.map(np.asarray, snaps["params"]), np.asarray(snaps["loss"]), learning_rate)


def model_of(run: SMGRun) -> LinearNet:
    w1, w2 = run.params["w1"], run.params["w2"]
    return LinearNet(w1.shape[2], w1.shape[1], w2.shape[1])


def params_at(run: SMGRun, t: int) -> Params:
    """Parameters at iteration ``t`` (must be a recorded time)."""
    index = np.flatnonzero(run.times == t)
    if len(index) == 0:
        raise ValueError(f"t must be one of the recorded iterations (multiples of {run.times[1]}), got {t!r}")
    return {k: jnp.asarray(v[index[0]]) for k, v in run.params.items()}


def end_to_end_maps(run: SMGRun) -> np.ndarray:
    """(T, n_out, n_in) W_2(t) W_1(t)."""
    return np.einsum("toh,thi->toi", run.params["w2"], run.params["w1"])


def entk_predicted_map_change(problem: SMGProblem, run: SMGRun) -> np.ndarray:
    """(T, n_out, n_in) one-step change of W_2 W_1 predicted by the eNTK at each recorded time:
    -lr * sum_m K_l(e_i, x_m)."""
    model, basis = model_of(run), jnp.eye(problem.x.shape[1])
    x, y = jnp.asarray(problem.x), jnp.asarray(problem.y)
    one = lambda p: -run.learning_rate * entk(model, p, basis, x, y, "mean").sum(axis=2)
    return np.asarray(jax.lax.map(one, jax.tree.map(jnp.asarray, run.params)))


def entk_output_summed(problem: SMGProblem, run: SMGRun, t: int) -> np.ndarray:
    """(P, P) eNTK over training x training inputs, summed over outputs, at iteration t."""
    x, y = jnp.asarray(problem.x), jnp.asarray(problem.y)
    return np.asarray(entk(model_of(run), params_at(run, t), x, x, y, "mean").sum(axis=0))


def ntk_input_operator(problem: SMGProblem, run: SMGRun) -> np.ndarray:
    """(T, n_in, n_in) plain NTK at the basis inputs summed over outputs,
    sum_l Theta_ll(e_i, e_j): the NTK without loss weighting (App A.4)."""
    model, basis = model_of(run), jnp.eye(problem.x.shape[1])
    one = lambda p: jnp.einsum("ijll->ij", ntk(model, p, basis, basis))
    return np.asarray(jax.lax.map(one, jax.tree.map(jnp.asarray, run.params)))


def input_singular_vectors(maps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Right (input-side) singular vectors (T, n_in, r) and singular values (T, r) of maps (T, n_out, n_in)."""
    _, s, vt = np.linalg.svd(maps)
    return np.swapaxes(vt, 1, 2), s


def mode_overlaps(vectors: np.ndarray, problem: SMGProblem) -> np.ndarray:
    """(T, k, r) ``|cos|`` between k vectors (T, n_in, k) and the target's r input singular vectors."""
    return np.abs(np.einsum("tik,ia->tka", vectors, problem.v_in))


def switch_times(times: np.ndarray, overlaps: np.ndarray, threshold: float = 0.9) -> np.ndarray:
    """(r,) first time at which a kernel vector's best-matching target mode is mode a with ``|cos|`` >= ``threshold``.

    ``overlaps``: (T, r) ``|cos|`` of one vector (e.g. the primary, ``mode_overlaps(...)[:, 0]``) with
    each of the r modes. nan for a mode the vector never settles on."""
    overlaps = np.asarray(overlaps)
    best, value = overlaps.argmax(axis=1), overlaps.max(axis=1)
    out = np.full(overlaps.shape[1], np.nan)
    for a in range(overlaps.shape[1]):
        hits = np.flatnonzero((best == a) & (value >= threshold))
        if len(hits):
            out[a] = float(np.asarray(times)[hits[0]])
    return out


def leave_time(times: np.ndarray, overlaps: np.ndarray, mode: int) -> float:
    """The first time after t = 0 at which a kernel vector's best-matching mode is not ``mode`` (0-based);
    ``overlaps``: (T, r) ``|cos|`` of that vector with each mode (as in :func:`switch_times`). NaN if it
    never leaves it."""
    times = np.asarray(times)
    after_start, best = times > 0, np.asarray(overlaps).argmax(axis=1)
    elsewhere = np.flatnonzero(best[after_start] != mode)
    return float(times[after_start][elsewhere[0]]) if elsewhere.size else float("nan")


def output_vectors_vs_modes(problem: SMGProblem, run: SMGRun, times, n_vectors: int = 2) -> tuple[dict, dict]:
    """Paper Fig 3: at each of ``times``, the first ``n_vectors`` left singular vectors of the data x data
    eNTK summed over outputs (:func:`entk_output_summed`) and ``|r|`` of each with every mode's input
    projection. Returns ({"t=<t>, singular vector <k>": (r,) ``|r|`` per mode}, {t: (N, n_vectors) vectors})."""
    projections = problem.input_projections
    rows, vectors = {}, {}
    for t in times:
        left = np.linalg.svd(entk_output_summed(problem, run, t))[0]
        vectors[t] = left[:, :n_vectors]
        for k in range(n_vectors):
            rows[f"t={t}, singular vector {k + 1}"] = [abs(np.corrcoef(left[:, k], projections[:, a])[0, 1])
                                                       for a in range(projections.shape[1])]
    return rows, vectors


def epntk_path(problem: SMGProblem, seed: int = 0, learning_rate: float = 0.2, n_iterations: int = 2500,
               record_every: int = 10, init_scale: float = 0.1) -> dict[str, np.ndarray]:
    """The ePNTK at the basis inputs accumulated along training from the authors' random init
    (the same trajectory as :func:`run_smg` with the same arguments).

    Returns ``times`` (S,) and ``path_basis`` (S, n_out, n_in, P) = P_l(e_i, x_m) at each
    recorded time; ``path_basis.sum(axis=3)`` estimates W(t) - W(0)."""
    check_int("record_every", record_every, minimum=1)
    n_snapshots = n_iterations // record_every + 1
    model = LinearNet(problem.x.shape[1], 3, problem.y.shape[1])
    params = initial_params(problem, seed, init_scale)
    _, path = epntk(model, params, jnp.eye(problem.x.shape[1]), jnp.asarray(problem.x), jnp.asarray(problem.y),
                    learning_rate, (n_snapshots - 1) * record_every, n_snapshots, "mean")
    return {"times": np.arange(n_snapshots) * record_every, "path_basis": np.asarray(path)}


def epntk_errors(problem: SMGProblem, seed: int, learning_rate: float, total_time: float,
                 init_scale: float = 0.1) -> dict[str, float]:
    """Relative errors of the ePNTK after ``round(total_time / learning_rate)`` steps (lr x steps
    fixed) from the authors' random init: of the map estimate sum_m P(e_i, x_m) against
    W(T) - W(0), and of sum_m P(x_n, x_m) against y(T) - y(0) over the training inputs."""
    n_iterations = int(round(total_time / learning_rate))
    n_in = problem.x.shape[1]
    model = LinearNet(n_in, 3, problem.y.shape[1])
    params = initial_params(problem, seed, init_scale)
    x, y = jnp.asarray(problem.x), jnp.asarray(problem.y)
    x_eval = jnp.concatenate([jnp.eye(n_in), x])  # basis inputs, then the training inputs
    final, path = epntk(model, params, x_eval, x, y, learning_rate, n_iterations, 2, "mean")
    estimate = path[-1].sum(axis=2)  # (n_out, n_in + P)
    map_change = model.end_to_end(final) - model.end_to_end(params)
    output_change = (model.apply(final, x) - model.apply(params, x)).T
    rel = lambda a, b: float(jnp.linalg.norm(a - b) / jnp.linalg.norm(b))
    return {"iterations": n_iterations, "map_error": rel(estimate[:, :n_in], map_change),
            "output_error": rel(estimate[:, n_in:], output_change)}


# --- cached experiments used by the SMG chapters -----------------------------------------
def _run_arrays(run: SMGRun) -> dict[str, np.ndarray]:
    return {"times": run.times, "w1": run.params["w1"], "w2": run.params["w2"], "loss": run.loss,
            "learning_rate": np.asarray(run.learning_rate)}


def cached_run(seed: int = 0, learning_rate: float = 0.2, n_iterations: int = 2500, record_every: int = 10,
               init: str = "random") -> tuple[SMGProblem, SMGRun]:
    """:func:`run_smg` on :func:`make_smg_problem` (same seed), loaded from the results cache if present."""
    from ..core import results

    problem = make_smg_problem(seed)
    parameters = dict(seed=seed, learning_rate=learning_rate, n_iterations=n_iterations,
                      record_every=record_every, init=init)
    arrays = results.cached("smg_run", parameters, lambda: _run_arrays(
        run_smg(problem, seed, learning_rate, n_iterations, record_every, init=init)), computed_by=__name__)
    run = SMGRun(arrays["times"], {"w1": arrays["w1"], "w2": arrays["w2"]}, arrays["loss"],
                 float(arrays["learning_rate"]))
    return problem, run


def cached_epntk(seed: int = 0, learning_rate: float = 0.2, n_iterations: int = 2500,
                 record_every: int = 10) -> tuple[SMGProblem, dict[str, np.ndarray]]:
    """:func:`epntk_path` through the results cache."""
    from ..core import results

    problem = make_smg_problem(seed)
    parameters = dict(seed=seed, learning_rate=learning_rate, n_iterations=n_iterations,
                      record_every=record_every)
    return problem, results.cached("smg_epntk", parameters,
                                   lambda: epntk_path(problem, seed, learning_rate, n_iterations, record_every),
                                   computed_by=__name__)


def half_times(problem: SMGProblem, run: SMGRun, n_modes: int = 3) -> np.ndarray:
    """(n_modes,) simulated iterations at which each mode reaches half its singular value."""
    strengths = mode_strengths(end_to_end_maps(run), problem)
    return np.array([crossing_time(run.times, strengths[:, a], problem.singular_values[a] / 2)
                     for a in range(n_modes)])


def _closed_form_inputs(problem: SMGProblem, run: SMGRun) -> tuple[np.ndarray, float]:
    """The run's effective initial strengths (:func:`initial_strengths`) and SMG's tau."""
    first = {k: v[0] for k, v in run.params.items()}
    return initial_strengths(first, problem), time_constant(problem.x.shape[0], problem.y.shape[1], run.learning_rate)


def closed_form_half_times(problem: SMGProblem, run: SMGRun, n_modes: int = 3) -> np.ndarray:
    """(n_modes,) SMG half-times from the run's effective initial strengths."""
    u0, tau = _closed_form_inputs(problem, run)
    return np.array([half_time_closed_form(problem.singular_values[a], u0[a], tau) for a in range(n_modes)])


def closed_form_strengths(problem: SMGProblem, run: SMGRun, n_modes: int = 3) -> np.ndarray:
    """(T, n_modes) SMG Eq. 12 at the recorded times, from the effective initial strengths."""
    u0, tau = _closed_form_inputs(problem, run)
    return np.stack([mode_strength_closed_form(run.times, problem.singular_values[a], u0[a], tau)
                     for a in range(n_modes)], axis=1)


def half_time_sweep(seeds, learning_rate: float = 0.2, n_iterations: int = 2500) -> dict[str, np.ndarray]:
    """Half-times of modes 1-3 over seeds: simulated from the random init, from its aligned
    twin, and SMG's closed form; each (n_seeds, 3), nan where a mode is not reached."""
    from tqdm import tqdm

    out = {"seeds": np.asarray(seeds), "random": [], "aligned": [], "closed_form": []}
    for seed in tqdm(seeds, desc="SMG seeds"):
        for init in ("random", "aligned"):
            problem, run = cached_run(seed, learning_rate, n_iterations, init=init)
            out[init].append(half_times(problem, run))
        out["closed_form"].append(closed_form_half_times(problem, run))
    return {k: np.asarray(v) for k, v in out.items()}


def cached_epntk_convergence(seed: int, learning_rates, total_time: float) -> dict[str, np.ndarray]:
    """:func:`epntk_errors` for each learning rate (lr x steps = ``total_time``), through the cache."""
    from tqdm import tqdm

    from ..core import results

    learning_rates = [float(lr) for lr in learning_rates]
    problem = make_smg_problem(seed)

    def compute():
        rows = [epntk_errors(problem, seed, lr, total_time) for lr in tqdm(learning_rates, desc="ePNTK runs")]
        return {"learning_rate": np.asarray(learning_rates), **{k: np.asarray([r[k] for r in rows]) for k in rows[0]}}

    parameters = dict(seed=seed, learning_rates=learning_rates, total_time=total_time)
    return results.cached("smg_epntk_convergence", parameters, compute, computed_by=__name__)
