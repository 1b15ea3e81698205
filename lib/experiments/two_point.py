r"""The two-point effective theory of van Rossem & Saxe ("When Representations Align", ICML 2024).

Theory. Two inputs x_1, x_2 with targets y_1, y_2; around their mean an expressive network is
linearised (Eq. 5) and gradient descent acts directly on the encoder and decoder Jacobians with
effective learning rates ``rate_h = 1/tau_h`` and ``rate_y = 1/tau_y`` (Eq. 6). For pairs that
move apart or together without rotating, three scalars form a closed system (Eq. 7 = App. A.1
Eq. 21), with dx2 = ||x_2 - x_1||^2, dy2 = ||y_2 - y_1||^2 and the variables of Eq. 8,
the representational distance :math:`a = \|\Delta h\|^2`, the output distance
:math:`b = \|\Delta y\|^2` and the alignment :math:`w = \|\Delta y\|^2 - \Delta y \cdot (y_2 - y_1)`
(``rate_h`` :math:`= r_h`, ``rate_y`` :math:`= r_y`, ``dx2`` :math:`= d_x^2`, ``dy2`` :math:`= d_y^2`):

.. math::

   \dot a = -r_h d_x^2 w, \qquad
   \dot b = -w \left(r_y a + r_h d_x^2 \frac{b}{a}\right), \qquad
   \dot w = -\frac{r_y}{2} (3w - b + d_y^2)\, a - \frac{r_h}{2} d_x^2 \frac{(b + w)\, w}{a}.

Closed forms used here: ``b/a - (rate_y/rate_h) a/dx2`` is conserved (Eq. 23-24); the only
stable fixed point (Eq. 10-11 = Eq. 36) is

.. math:: a^* = \frac{A_\mathrm{high}}{2} + \sqrt{\frac{A_\mathrm{high}^2}{4} + A_\mathrm{low}^2},

with
A_high = dx2 (a0/dx2 - (rate_h/rate_y) b0/a0) set by the initialisation (lazy limit, Eq. 12) and
``A_low = sqrt(rate_h/rate_y) |dx| |dy|`` set by the data (rich limit, Eq. 13). For identical targets
(and in the large-init limit of App. A.5) a(t) is the logistic of Eq. 39, a(t) = A_high / (1 +
(A_high/a0 - 1) exp(-rate_y A_high t)) (the paper's Eq. 39 writes exp(-A_high t), i.e. tau_y = 1);
b(t) follows from Eq. 24 (Eq. 40). The paper gives no plateau length; we derive one on
the balanced manifold (conserved quantity 0, dy parallel to y_2 - y_1, exact for a scalar hidden
layer): there a(t) is the logistic A_low / (1 + (A_low/a0 - 1) exp(-rate_y A_low t)), the same
growth rate as the unstable eigenvalue of Eq. 35 at A_high = 0, and the pair error
e = ||dy - (y_2 - y_1)||^2 = 2w - b + dy2 falls to dy2/2 (half the error of equal outputs) at
t = [ln(A_low/a0 - 1) - ln(1 + sqrt 2)] / (rate_y A_low) (:func:`balanced_plateau_length`). Our
plateau length of any trajectory is the last time e is above dy2/2 (:func:`plateau_length`); it
is near 0 in the lazy regime.

Simulation on the paper's own ground (App. B.1): inputs -1 and -1 + input_gap (1-d), targets
0.6 and 0.6 + target_gap (1-d); a fully connected leaky-ReLU MLP (slope 0.01), Xavier-normal
weights times a gain, zero biases (trained), loss 1/2 mean over the two points of the squared
error (Eq. 1), full-batch gradient descent; the hidden layer is the one halfway (after
depth // 2 hidden layers). The paper uses 20 layers of 500 units; we default to 4 layers of 100
(the paper's own MNIST net) so that six scales train in seconds. Time is gradient-flow time,
learning rate x steps, so fitted rates are per unit of that time. Pure numpy, float64.

Fitting (App. B.1, Eq. 49): least squares of the ODE solution on the three simulated variables,
each divided by its largest absolute value in the trajectory (Eq. 49 unweighted would let the
largest variable dominate); a coarse grid on log-rates, then ``scipy.optimize.least_squares``.

Checked in tests/test_two_point.py: the integrator against Eq. 39-40, the balanced logistic and
its plateau length, the conserved quantity, Eq. 36 and the fixed point's decay rate, and against
the linearised matrix dynamics (Eq. 17) for a scalar hidden unit, where Eq. 7 is exact; the
extractor on hand-built pairs; one simulated step against finite-difference gradient descent; the
network's lazy regime (distance kept), rich regime (plateau, Eq. 36 with rates fitted on another
seed, A_low's proportionality to ``|dx| |dy|``) and the plateau-to-decay transition; rate recovery
and held-out prediction on ODE-generated trajectories; bad inputs, a diverging learning rate among them.

``scipy.integrate`` and ``scipy.optimize`` are imported where they are used: the chapters' parameter
checks import this module (through :mod:`lib.analyses.rival_theories`), and a check should not pay
their import time (``benchmarks/import_cost.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.validation import check_choice, check_int, check_number_list, check_positive_float, check_seeds

VARIABLES = ("rep_dist2", "out_dist2", "alignment")
INPUT_START, TARGET_START = -1.0, 0.6  # App. B.1: inputs -1, -1 + dx; targets 0.6, 0.6 + dy
DEFAULT_GAINS = (0.6, 0.9, 1.2, 1.5, 2.0, 2.5)
DEFAULT_LEARNING_RATES = (0.02, 0.01, 0.005, 0.0025, 0.001, 0.0004)


class PairVariables(NamedTuple):
    """The three variables of Eq. 8 at T times, each (T,): ``rep_dist2`` = ||dh||^2,
    ``out_dist2`` = ||dy||^2, ``alignment`` = w."""

    rep_dist2: np.ndarray
    out_dist2: np.ndarray
    alignment: np.ndarray

    def as_array(self) -> np.ndarray:
        """(T, 3) with columns (a, b, w)."""
        return np.stack(self, axis=-1)


# --- input checks ---------------------------------------------------------------------------
def _rates(rate_h, rate_y) -> tuple[float, float]:
    return check_positive_float("rate_h", rate_h), check_positive_float("rate_y", rate_y)


def _state(name: str, state) -> np.ndarray:
    state = np.asarray(state, dtype=np.float64)
    if state.shape != (3,) or not np.isfinite(state).all() or state[0] <= 0 or state[1] < 0:
        raise ValueError(f"{name} must be a finite (3,) array (a > 0, b >= 0, w), got {state!r}")
    return state


def _times(times) -> np.ndarray:
    times = np.asarray(times, dtype=np.float64)
    if times.ndim != 1 or len(times) < 2 or not np.isfinite(times).all() or (np.diff(times) <= 0).any():
        raise ValueError(f"times must be a 1-d increasing finite array of at least 2 times, got shape {times.shape}")
    return times


def _trajectory(name: str, trajectory, n_times: int | None = None) -> np.ndarray:
    trajectory = np.asarray(trajectory, dtype=np.float64)
    if trajectory.ndim != 2 or trajectory.shape[1] != 3 or (n_times is not None and len(trajectory) != n_times):
        want = "(T, 3)" if n_times is None else f"({n_times}, 3)"
        raise ValueError(f"{name} must be a {want} array of (a, b, w), got shape {trajectory.shape}")
    if not np.isfinite(trajectory).all():
        raise ValueError(f"{name} must be finite")
    return trajectory


def _distances(input_dist2, target_dist2) -> tuple[float, float]:
    dx2 = check_positive_float("input_dist2", input_dist2)
    if not np.isfinite(target_dist2) or target_dist2 < 0:
        raise ValueError(f"target_dist2 must be a finite number >= 0, got {target_dist2!r}")
    return dx2, float(target_dist2)


# --- the ODE and its closed forms -----------------------------------------------------------
def two_point_rhs(state, rate_h: float, rate_y: float, input_dist2: float, target_dist2: float) -> np.ndarray:
    """d(a, b, w)/dt of Eq. 7 at ``state`` = (a, b, w) (3,); rates per unit time."""
    a, b, w = state
    return np.array([
        -rate_h * input_dist2 * w,
        -w * (rate_y * a + rate_h * input_dist2 * b / a),
        -0.5 * rate_y * (3 * w - b + target_dist2) * a - 0.5 * rate_h * input_dist2 * (b + w) * w / a,
    ])


def integrate_two_point(initial_state, times, rate_h: float, rate_y: float, input_dist2: float,
                        target_dist2: float, method: str = "LSODA", rtol: float = 1e-9) -> np.ndarray:
    """Solve Eq. 7 from ``initial_state`` (a0 > 0, b0, w0) at ``times`` (T,) (the first is the
    initial time) with ``scipy.integrate.solve_ivp``; returns (T, 3) columns (a, b, w), float64.
    Raises RuntimeError if the solver fails (e.g. a reaches 0, where Eq. 7 is singular)."""
    state, times = _state("initial_state", initial_state), _times(times)
    rate_h, rate_y = _rates(rate_h, rate_y)
    dx2, dy2 = _distances(input_dist2, target_dist2)
    check_choice("method", method, ("LSODA", "Radau", "BDF", "RK45", "DOP853"))
    check_positive_float("rtol", rtol, maximum=1e-2)
    from scipy.integrate import solve_ivp

    sol = solve_ivp(lambda t, s: two_point_rhs(s, rate_h, rate_y, dx2, dy2), (times[0], times[-1]), state,
                    t_eval=times, method=method, rtol=rtol, atol=rtol * 1e-4 * max(1.0, abs(state).max()))
    if not sol.success or sol.y.shape[1] != len(times):
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return sol.y.T


def conserved_quantity(trajectory, rate_h: float, rate_y: float, input_dist2: float) -> np.ndarray:
    """b/a - (rate_y/rate_h) a/dx2 (Eq. 23-24), (T,) for a (T, 3) trajectory; constant under Eq. 7."""
    a, b, _ = _trajectory("trajectory", trajectory).T
    rate_h, rate_y = _rates(rate_h, rate_y)
    return b / a - rate_y / rate_h * a / check_positive_float("input_dist2", input_dist2)


def lazy_and_rich_terms(initial_state, rate_h: float, rate_y: float, input_dist2: float,
                        target_dist2: float) -> tuple[float, float]:
    """(A_high, A_low) of Eq. 11: A_high from the initialisation, ``A_low = sqrt(rate_h/rate_y)|dx||dy|``."""
    a0, b0, _ = _state("initial_state", initial_state)
    rate_h, rate_y = _rates(rate_h, rate_y)
    dx2, dy2 = _distances(input_dist2, target_dist2)
    return (a0 / dx2 - rate_h / rate_y * b0 / a0) * dx2, float(np.sqrt(rate_h / rate_y * dx2 * dy2))


def final_rep_dist2(initial_state, rate_h: float, rate_y: float, input_dist2: float, target_dist2: float) -> float:
    """The stable fixed point a* = A_high/2 + sqrt(A_high^2/4 + A_low^2) of Eq. 10 (= Eq. 36)."""
    high, low = lazy_and_rich_terms(initial_state, rate_h, rate_y, input_dist2, target_dist2)
    return float(high / 2 + np.sqrt(high**2 / 4 + low**2))


def fixed_point_decay_rates(initial_state, rate_h: float, rate_y: float, input_dist2: float,
                            target_dist2: float) -> tuple[float, float]:
    """The two nonzero decay rates of Eq. 7 linearised at its stable fixed point (a*, dy2, 0):
    rate_y a* and (rate_y a* + rate_h dx2 dy2 / a*) / 2 (the third eigenvalue is 0, the conserved
    direction). Derived here from the Jacobian of Eq. 7 (the paper's Eq. 29-31 give the 2-d
    version's trace and determinant only)."""
    fixed = final_rep_dist2(initial_state, rate_h, rate_y, input_dist2, target_dist2)
    return rate_y * fixed, 0.5 * (rate_y * fixed + rate_h * input_dist2 * target_dist2 / fixed)


def lazy_trajectory(times, initial_rep_dist2: float, initial_out_dist2: float, rate_h: float, rate_y: float,
                    input_dist2: float) -> np.ndarray:
    """Eq. 39-40 (identical targets; the large-init limit of App. A.5): a(t) logistic towards
    A_high with rate ``rate_y * A_high`` (the lazy decay rate), b from Eq. 24, w = b. (T, 3);
    ``times`` start at 0."""
    times = _times(times)
    high, _ = lazy_and_rich_terms([initial_rep_dist2, initial_out_dist2, 0.0], rate_h, rate_y, input_dist2, 0.0)
    a = high / (1 + (high / initial_rep_dist2 - 1) * np.exp(-rate_y * high * times))
    b = rate_y / rate_h / input_dist2 * a**2 + (initial_out_dist2 / initial_rep_dist2
                                                 - rate_y / rate_h * initial_rep_dist2 / input_dist2) * a
    return np.stack([a, b, b], axis=-1)


def balanced_initial_state(initial_rep_dist2: float, rate_h: float, rate_y: float, input_dist2: float,
                           target_dist2: float) -> np.ndarray:
    """(a0, b0, w0) on the balanced manifold: conserved quantity 0 (b0 = (rate_y/rate_h) a0^2/dx2)
    and dy parallel to y_2 - y_1 (w0 = b0 - sqrt(b0 dy2)). (3,)"""
    a0 = check_positive_float("initial_rep_dist2", initial_rep_dist2)
    rate_h, rate_y = _rates(rate_h, rate_y)
    dx2, dy2 = _distances(input_dist2, target_dist2)
    b0 = rate_y / rate_h * a0**2 / dx2
    return np.array([a0, b0, b0 - np.sqrt(b0 * dy2)])


def balanced_trajectory(times, initial_rep_dist2: float, rate_h: float, rate_y: float, input_dist2: float,
                        target_dist2: float) -> np.ndarray:
    """Exact solution of Eq. 7 from :func:`balanced_initial_state`: a(t) = A_low / (1 + (A_low/a0
    - 1) exp(-rate_y A_low t)), ``dy = sqrt(rate_y/rate_h) a / |dx|``. (T, 3); ``times`` start at 0."""
    times = _times(times)
    a0, _, _ = balanced_initial_state(initial_rep_dist2, rate_h, rate_y, input_dist2, target_dist2)
    low = np.sqrt(rate_h / rate_y * input_dist2 * target_dist2)
    a = low / (1 + (low / a0 - 1) * np.exp(-rate_y * low * times))
    dy = np.sqrt(rate_y / rate_h / input_dist2) * a
    return np.stack([a, dy**2, dy**2 - dy * np.sqrt(target_dist2)], axis=-1)


def balanced_plateau_length(initial_rep_dist2: float, rate_h: float, rate_y: float, input_dist2: float,
                            target_dist2: float) -> float:
    """Time at which the pair error of :func:`balanced_trajectory` falls to dy2/2:
    [ln(A_low/a0 - 1) - ln(1 + sqrt 2)] / (rate_y A_low), 0 if it starts below (a0/A_low >= 1 - 1/sqrt 2)."""
    a0 = check_positive_float("initial_rep_dist2", initial_rep_dist2)
    rate_h, rate_y = _rates(rate_h, rate_y)
    low = np.sqrt(rate_h / rate_y * check_positive_float("input_dist2", input_dist2)
                  * check_positive_float("target_dist2", target_dist2))
    return float(max(0.0, (np.log(low / a0 - 1) - np.log(1 + np.sqrt(2))) / (rate_y * low))) if a0 < low else 0.0


def plateau_length(times, trajectory, target_dist2: float) -> float:
    """The last time the pair error e = 2w - b + dy2 = ||dy - (y_2 - y_1)||^2 is above dy2/2
    (linearly interpolated), measured from times[0]; ``times`` (T,), ``trajectory`` (T, 3).
    0 if e never exceeds dy2/2, NaN if it is still above at the last time."""
    times = _times(times)
    _, b, w = _trajectory("trajectory", trajectory, len(times)).T
    threshold = check_positive_float("target_dist2", target_dist2) / 2
    above = np.nonzero(2 * w - b + target_dist2 > threshold)[0]
    if len(above) == 0:
        return 0.0
    i = above[-1]
    if i == len(times) - 1:
        return float("nan")
    error = 2 * w[i:i + 2] - b[i:i + 2] + target_dist2
    frac = (error[0] - threshold) / (error[0] - error[1])
    return float(times[i] + frac * (times[i + 1] - times[i]) - times[0])


# --- the pair variables of any network ---------------------------------------------------------
def pair_variables(hidden, outputs, targets) -> PairVariables:
    """Eq. 8 from hidden representations ``hidden`` (T, 2, H), outputs ``outputs`` (T, 2, K) of two
    inputs at T snapshots and their ``targets`` (2, K): dh = h_2 - h_1, dy = y_2 - y_1."""
    hidden, outputs, targets = (np.asarray(v, dtype=np.float64) for v in (hidden, outputs, targets))
    if hidden.ndim != 3 or hidden.shape[1] != 2:
        raise ValueError(f"hidden must be a (T, 2, H) array, got shape {hidden.shape}")
    if outputs.ndim != 3 or outputs.shape[:2] != hidden.shape[:2]:
        raise ValueError(f"outputs must be a ({hidden.shape[0]}, 2, K) array like hidden, got shape {outputs.shape}")
    if targets.shape != (2, outputs.shape[2]):
        raise ValueError(f"targets must be a (2, {outputs.shape[2]}) array, got shape {targets.shape}")
    dh, dy = hidden[:, 1] - hidden[:, 0], outputs[:, 1] - outputs[:, 0]
    out_dist2 = (dy**2).sum(-1)
    return PairVariables((dh**2).sum(-1), out_dist2, out_dist2 - dy @ (targets[1] - targets[0]))


# --- the network on the paper's own ground (App. B.1) ----------------------------------------
def two_point_data(input_gap: float = 0.5, target_gap: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (-1, -1 + input_gap) and targets (0.6, 0.6 + target_gap) of App. B.1, each (2, 1)."""
    check_positive_float("input_gap", input_gap)
    if not np.isfinite(target_gap) or target_gap < 0:
        raise ValueError(f"target_gap must be a finite number >= 0, got {target_gap!r}")
    return (np.array([[INPUT_START], [INPUT_START + input_gap]]),
            np.array([[TARGET_START], [TARGET_START + target_gap]]))


def init_mlp(gains, seeds, depth: int, width: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Weights of R = len(gains) MLPs 1 -> width x depth -> 1: per layer (W (R, out, in),
    b (R, out, 1)); W is Xavier-normal (std sqrt(2/(in+out))) times the run's gain, drawn from
    ``default_rng([seed, layer])`` so that runs with one seed share one draw; b = 0."""
    sizes = [1] + [width] * depth + [1]
    layers = []
    for layer, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        std = np.sqrt(2.0 / (fan_in + fan_out))
        w = np.stack([g * std * np.random.default_rng([s, layer]).normal(size=(fan_out, fan_in))
                      for g, s in zip(gains, seeds)])
        layers.append((w, np.zeros((len(gains), fan_out, 1))))
    return layers


def simulate_two_point(gains, seeds, learning_rates, n_steps: int = 3000, depth: int = 4, width: int = 100,
                       input_gap: float = 0.5, target_gap: float = 1.0, record_every: int = 20,
                       negative_slope: float = 0.01) -> dict[str, np.ndarray]:
    """Train R leaky-ReLU MLPs (one per entry of ``gains``, ``seeds``, ``learning_rates``) on the
    two points by full-batch gradient descent on L = 1/2 mean_i ||f(x_i) - y_i||^2. Returns
    ``times`` (R, T) gradient-flow time (learning rate x step), ``hidden`` (R, T, 2, width) at the
    layer after depth // 2 hidden layers, ``outputs`` (R, T, 2, 1), ``inputs`` and ``targets`` (2, 1);
    T = n_steps // record_every + 1 snapshots."""
    gains = check_number_list("gains", list(gains), 0.0, 100.0, distinct=False, include_minimum=False)
    seeds = check_seeds("seeds", list(seeds))
    rates = check_number_list("learning_rates", list(learning_rates), 0.0, 1.0, distinct=False,
                              include_minimum=False)
    if not len(gains) == len(seeds) == len(rates):
        raise ValueError(f"gains, seeds and learning_rates must have one entry per run, got lengths "
                         f"{len(gains)}, {len(seeds)}, {len(rates)}")
    n_steps, record_every = check_int("n_steps", n_steps, 1, 10**6), check_int("record_every", record_every, 1)
    depth, width = check_int("depth", depth, 2, 50), check_int("width", width, 1, 2000)
    check_positive_float("negative_slope", negative_slope, maximum=1.0)
    x, y = two_point_data(input_gap, target_gap)
    layers, lr, middle = init_mlp(gains, seeds, depth, width), np.array(rates)[:, None, None], depth // 2
    acts = [np.broadcast_to(x.T, (len(gains), 1, 2))]  # columns are the two points
    hidden, outputs = [], []
    for step in range(n_steps + 1):
        acts, slopes = acts[:1], []
        for i, (w, b) in enumerate(layers):
            z = w @ acts[-1] + b
            if i < depth:
                slopes.append(np.where(z > 0, 1.0, negative_slope))
                z = z * slopes[-1]
            acts.append(z)
        if step % record_every == 0:
            hidden.append(acts[middle].transpose(0, 2, 1))
            outputs.append(acts[-1].transpose(0, 2, 1))
        if step == n_steps:
            break
        grad = (acts[-1] - y.T) / 2  # dL/df for the mean over the 2 points
        for i in range(depth, -1, -1):
            w, b = layers[i]  # updated in place (they are this function's own arrays)
            grad_in = grad.transpose(0, 2, 1) @ w  # (R, 2, in): dL/d(input of layer i), points as rows
            step_w = grad @ acts[i].transpose(0, 2, 1)
            step_w *= lr
            w -= step_w
            b -= lr * grad.sum(-1, keepdims=True)
            if i > 0:
                grad = grad_in.transpose(0, 2, 1) * slopes[i - 1]
    steps = np.arange(len(hidden)) * record_every
    return {"times": np.array(rates)[:, None] * steps, "hidden": np.stack(hidden, 1), "outputs": np.stack(outputs, 1),
            "inputs": x, "targets": y}


def first_divergent_snapshots(run: dict[str, np.ndarray]) -> np.ndarray:
    """(R,) for each run of :func:`simulate_two_point`, the index of its first snapshot whose hidden
    layer or outputs are not finite (gradient descent diverged by then: snapshot k is step k x
    record_every), -1 for a run that stayed finite."""
    finite = np.isfinite(run["hidden"]).all(axis=(2, 3)) & np.isfinite(run["outputs"]).all(axis=(2, 3))  # (R, T)
    return np.where(finite.all(axis=1), -1, np.argmin(finite, axis=1))


def simulated_trajectories(run: dict[str, np.ndarray]) -> np.ndarray:
    """(R, T, 3) pair variables (a, b, w) of every run of :func:`simulate_two_point`."""
    return np.stack([pair_variables(h, o, run["targets"]).as_array() for h, o in zip(run["hidden"], run["outputs"])])


# --- fitting the effective rates ---------------------------------------------------------------
def _as_list(times, trajectories) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if isinstance(trajectories, np.ndarray) and trajectories.ndim == 2:
        times, trajectories = [times], [trajectories]
    if len(times) != len(trajectories) or len(times) == 0:
        raise ValueError(f"times and trajectories must be lists of equal nonzero length, got {len(times)} and "
                         f"{len(trajectories)}")
    times = [_times(t) for t in times]
    return times, [_trajectory(f"trajectories[{i}]", tr, len(t)) for i, (t, tr) in enumerate(zip(times, trajectories))]


def _scaled_residuals(times, trajectories, rate_h, rate_y, dx2, dy2) -> np.ndarray:
    out = []
    for t, sim in zip(times, trajectories):
        scale = np.abs(sim).max(axis=0)
        try:
            ode = integrate_two_point(sim[0], t, rate_h, rate_y, dx2, dy2, rtol=1e-7)
        except RuntimeError:
            ode = sim + 10 * scale  # a failed solve scores as a poor fit, keeping the residual finite
        out.append(((ode - sim) / scale).ravel())
    return np.concatenate(out)


def prediction_error(times, trajectory, rate_h: float, rate_y: float, input_dist2: float,
                     target_dist2: float) -> float:
    """Root-mean-square of ``(ODE - trajectory) / max|trajectory|`` (per variable) over the T x 3 entries,
    the ODE started at the trajectory's first state with the given rates: the held-out error."""
    times, trajectories = _as_list(times, trajectory)
    rate_h, rate_y = _rates(rate_h, rate_y)
    dx2, dy2 = _distances(input_dist2, target_dist2)
    return float(np.sqrt(np.mean(_scaled_residuals(times, trajectories, rate_h, rate_y, dx2, dy2) ** 2)))


def fit_effective_rates(times, trajectories, input_dist2: float, target_dist2: float,
                        log_rate_grid=tuple(np.linspace(-4.0, 4.0, 9))) -> dict[str, float]:
    """Least-squares fit of (rate_h, rate_y) of Eq. 7 to one trajectory ``times`` (T,),
    ``trajectories`` (T, 3), or to several (lists, fitted jointly): Eq. 49 with each variable
    divided by its largest absolute value. Grid search over natural-log rates, then
    ``least_squares`` in log-rates. Returns rate_h, rate_y and fit_error (the scaled RMS)."""
    times, trajectories = _as_list(times, trajectories)
    dx2, dy2 = _distances(input_dist2, target_dist2)
    grid = check_number_list("log_rate_grid", list(log_rate_grid), -20.0, 20.0, min_length=2)

    def residuals(log_rates):
        return _scaled_residuals(times, trajectories, *np.exp(log_rates), dx2, dy2)

    start = min(((h, y) for h in grid for y in grid), key=lambda p: float(np.sum(residuals(np.array(p)) ** 2)))
    from scipy.optimize import least_squares

    best = least_squares(residuals, np.array(start), method="trf", x_scale=1.0, xtol=1e-10, ftol=1e-12)
    rate_h, rate_y = np.exp(best.x)
    return {"rate_h": float(rate_h), "rate_y": float(rate_y), "fit_error": float(np.sqrt(np.mean(best.fun**2)))}


def _check_converging(run: dict[str, np.ndarray], seeds, i: int, gains_name: str, learning_rates_name: str,
                      gain: float, rate: float, record_every: int, n_steps: int) -> None:
    """ValueError naming ``learning_rates_name[i]`` and ``gains_name[i]`` if a run of
    :func:`simulate_two_point` (one per seed of ``seeds``, all at ``gain`` and ``rate``) diverged.
    Whether gradient descent on this deep network diverges has no cheap exact test before
    simulating: the linearised network's bound, rate < 4 / lambda_max(J J^T) with J the (2, params)
    Jacobian of the outputs at init, is not the threshold (at the book's gains, runs at 1.5 to 5
    times that bound converge after a catapult, and the factor varies with gain and seed)."""
    first = first_divergent_snapshots(run)
    diverged = np.flatnonzero(first >= 0)
    if diverged.size:
        raise ValueError(f"{learning_rates_name}[{i}] = {rate!r} makes gradient descent diverge at {gains_name}[{i}] "
                         f"= {gain!r}: the two-point network's outputs are not finite by step "
                         f"{int(first[diverged].min()) * record_every} of {n_steps} (seeds "
                         f"{[seeds[k] for k in diverged]}); use a smaller learning rate for this gain")


def scale_summary(gains=DEFAULT_GAINS, learning_rates=DEFAULT_LEARNING_RATES, fit_seeds=(0, 1), test_seeds=(2, 3),
                  n_steps: int = 3000, depth: int = 4, width: int = 100, input_gap: float = 0.5,
                  target_gap: float = 1.0, record_every: int = 20, gains_name: str = "gains",
                  learning_rates_name: str = "learning_rates") -> dict[str, np.ndarray]:
    """Per initial gain (G of them): rates fitted jointly on the ``fit_seeds`` runs, then on each of
    the S ``test_seeds`` runs theory vs simulation; a gain whose runs diverge at its learning rate is
    a ValueError naming both (``gains_name``, ``learning_rates_name``: the caller's names of the two,
    chapter 13's ``tp_gains``, ``tp_learning_rates``). Keys: ``gain``, ``rate_h``, ``rate_y``,
    ``fit_error``, ``rich_limit`` (A_low) (G,); ``heldout_error``, ``initial_rep_dist2``,
    ``final_sim``, ``final_theory`` (Eq. 36 from the run's initial state), ``final_rel_error``,
    ``plateau_sim``, ``plateau_theory`` (:func:`plateau_length` of the run and of Eq. 7 from its
    initial state), ``plateau_rel_error`` (G, S)."""
    gains = check_number_list(gains_name, list(gains), 0.0, 100.0, include_minimum=False)
    fit_seeds, test_seeds = check_seeds("fit_seeds", fit_seeds), check_seeds("test_seeds", test_seeds)
    learning_rates = check_number_list(learning_rates_name, list(learning_rates), 0.0, 1.0, distinct=False,
                                       include_minimum=False)
    if len(learning_rates) != len(gains):
        raise ValueError(f"{learning_rates_name} must have one entry per gain ({len(gains)}), got "
                         f"{len(learning_rates)}")
    if set(fit_seeds) & set(test_seeds):
        raise ValueError(f"fit_seeds and test_seeds must not overlap, got {fit_seeds} and {test_seeds}")
    check_positive_float("target_gap", target_gap)  # a plateau needs distinct targets
    seeds = fit_seeds + test_seeds
    runs = []
    for i, (g, r) in enumerate(zip(gains, learning_rates)):
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run is reported below
            run = simulate_two_point([g] * len(seeds), seeds, [r] * len(seeds), n_steps, depth, width, input_gap,
                                     target_gap, record_every)  # one gain per call keeps the weights cache-sized
        _check_converging(run, seeds, i, gains_name, learning_rates_name, g, r, record_every, n_steps)
        runs.append(run)
    traj = np.stack([simulated_trajectories(run) for run in runs])  # (G, seeds, T, 3)
    times = np.stack([run["times"] for run in runs])
    dx2, dy2 = input_gap**2, target_gap**2
    keys = ("heldout_error", "initial_rep_dist2", "final_sim", "final_theory", "plateau_sim", "plateau_theory")
    out = {k: np.zeros((len(gains), len(test_seeds))) for k in keys}
    out |= {k: np.zeros(len(gains)) for k in ("rate_h", "rate_y", "fit_error", "rich_limit")}
    out["gain"] = np.array(gains)
    n_fit = len(fit_seeds)
    for g in range(len(gains)):
        fit = fit_effective_rates(list(times[g, :n_fit]), list(traj[g, :n_fit]), dx2, dy2)
        rates = (fit["rate_h"], fit["rate_y"])
        for k in ("rate_h", "rate_y", "fit_error"):
            out[k][g] = fit[k]
        out["rich_limit"][g] = np.sqrt(rates[0] / rates[1] * dx2 * dy2)
        for s, (t, sim) in enumerate(zip(times[g, n_fit:], traj[g, n_fit:])):
            ode = integrate_two_point(sim[0], t, *rates, dx2, dy2)
            out["heldout_error"][g, s] = prediction_error(t, sim, *rates, dx2, dy2)
            out["initial_rep_dist2"][g, s], out["final_sim"][g, s] = sim[0, 0], sim[-1, 0]
            out["final_theory"][g, s] = final_rep_dist2(sim[0], *rates, dx2, dy2)
            out["plateau_sim"][g, s] = plateau_length(t, sim, dy2)
            out["plateau_theory"][g, s] = plateau_length(t, ode, dy2)
    out["final_rel_error"] = np.abs(out["final_theory"] / out["final_sim"] - 1)
    with np.errstate(divide="ignore", invalid="ignore"):  # a plateau of length 0 gives inf or NaN
        out["plateau_rel_error"] = np.abs(out["plateau_theory"] / out["plateau_sim"] - 1)
    return out
