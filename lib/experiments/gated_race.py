r"""The multitask environment as a gated deep linear network, and the neural race it predicts.

Theory (Saxe, Sodhani & Lewallen 2022, "The Neural Race Reduction"). In a gated deep linear
network (GDLN, Sec 2) activity flows along paths of linear edges that a context switches on or
off; the gradient flow of the loss (Eq. 1, the mean over patterns of half the squared error, time
in units of tau = 1) depends on the data only through per-path correlations Sigma^yx(p) and
Sigma^x(j, p) (Eqs. 3-6). When these share singular vectors (Eqs. 7-8) and the weights start
decoupled (Eq. 9), every edge is one scalar per mode and (Eq. 10)

.. math::

   \frac{d b_e}{dt} = \sum_{p \ni e} b_{p \setminus e}
   \Big[ s_p - \sum_{j \text{ ending where } p \text{ does}} b_j\, d(j, p) \Big],

so an edge used by more contexts ("pathway counting", Sec 3.1; Sec 4.2, Eqs. 16-17) learns
faster, and pathways that share more race ahead of dedicated ones (Fig. 5).

The environment (lib.core.tasks.TaskEnvironment): route k = (input pool k // n_out, output pool
k % n_out) copies the active feature's position. Architecture chosen here: one hidden layer, as
the sigmoid MultitaskNet, split into hidden *modules* at four levels of sharing, the gating
schemes of the paper's Fig. 5a coexisting in one network so that they race:

* ``shared``: one module that every route uses (the paper's Fig. 4a with its hidden weight
  folded into one hidden layer; P = all routes);
* ``in_pool``: one module per input pool, used by the n_out routes reading it;
* ``out_pool``: one module per output pool, used by the n_in routes writing it;
* ``route``: one module per route (Fig. 5a left, P = 1).

The task (the context) gates on its input-pool node, its output-pool node, and the edges
input pool -> module -> output pool of every module that serves it (all other edges gated off).
A route's map is the sum of its paths' products W_out W_in (n_features x n_features).

Data statistics. For single-task patterns, route p's input is the one-hot active feature x of
its input pool and its target the same one-hot y in its output pool, so with c[p, f] the number
of training patterns of route p with active feature f and N the number of patterns,
Sigma^yx(p) = Sigma^x(p, p) = diag(c[p]) / N, Sigma^x(j, p) = Sigma^x(p, p) for two paths of the
same route and 0 for paths of different routes (one task is active per pattern). Every matrix is
diagonal in the feature basis (U = V = I), so the reduction is exact from a decoupled start, one
scalar per edge per feature. Hidden bases are per module: W_in = R_m diag(b_in), W_out = diag(b_out) R_m^T.

Closed form (Saxe et al. 2014, the paper's Eq. 21). For one module family with equal counts,
each in-edge on m_in paths and each out-edge on m_out paths, started on the conserved manifold
m_out b_in^2 = m_in b_out^2, the path strength :math:`u = b_\mathrm{out} b_\mathrm{in}` obeys
:math:`\dot u = 2 \sqrt{m_\mathrm{in} m_\mathrm{out}}\, u (s - d u)`: the logistic (sigmoid) trajectory

.. math::

   u(t) = \frac{s/d}{1 - \left(1 - \frac{s}{d u_0}\right) e^{-2 \rho s t}}, \qquad
   \rho = \sqrt{m_\mathrm{in} m_\mathrm{out}}.

What the module computes: the architecture (:class:`GatedArchitecture`), the statistics of a
data set (:func:`route_statistics`, :func:`route_signals`), initial weights (decoupled, random,
and the reduction's stand-in for a random start, :func:`matched_initial_edges`), full-batch gradient descent of the
full network on the patterns (:func:`simulate_direct`, numpy float64) and of the reduction
(:func:`simulate_reduced`; the reduction is exact for discrete steps too, since Eq. 9 is
linear), the closed form (:func:`sigmoid_mode`), route learning times and order
(:func:`learning_times`, :func:`learning_order`), the strength of each sharing level over
training (:func:`family_strengths`, :func:`structure_times`) and :func:`race_predictions`.
Checked in tests/test_gated_race.py: reduction = direct simulation from a decoupled start,
reduction = closed form, reduction ~ direct simulation from small random weights, and that
more-shared pathways are learned first in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..core.steps import check_schedule
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice, check_int, check_positive_float, check_seed

FAMILIES = ("shared", "in_pool", "out_pool", "route")


@dataclass(frozen=True)
class GatedArchitecture:
    """The gated network of the module docstring for ``env`` with the module ``families`` present.

    Edges are indexed in-edges (module, input pool) and out-edges (module, output pool); a path
    is (route, module, in-edge, out-edge), one per module serving the route.
    """

    env: TaskEnvironment = TaskEnvironment()
    families: tuple[str, ...] = FAMILIES

    def __post_init__(self) -> None:
        if not isinstance(self.env, TaskEnvironment):
            raise ValueError(f"env must be a TaskEnvironment, got {type(self.env).__name__}")
        if isinstance(self.families, str) or not self.families or len(set(self.families)) != len(self.families):
            raise ValueError(f"families must be a non-empty tuple of distinct names from {list(FAMILIES)}, "
                             f"got {self.families!r}")
        for i, family in enumerate(self.families):
            check_choice(f"families[{i}]", family, FAMILIES)

    @cached_property
    def modules(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """(family, routes it serves) for every hidden module, family by family."""
        env, routes = self.env, range(self.env.n_tasks)
        members = {
            "shared": [tuple(routes)],
            "in_pool": [tuple(r for r in routes if env.task_in_pool(r) == i) for i in range(env.n_in_pools)],
            "out_pool": [tuple(r for r in routes if env.task_out_pool(r) == o) for o in range(env.n_out_pools)],
            "route": [(r,) for r in routes],
        }
        return tuple((family, served) for family in self.families for served in members[family])

    @cached_property
    def in_edges(self) -> tuple[tuple[int, int], ...]:
        """(module, input pool) of every input-pool -> module edge."""
        return tuple(sorted({(m, int(self.env.task_in_pool(r)))
                             for m, (_, rs) in enumerate(self.modules) for r in rs}))

    @cached_property
    def out_edges(self) -> tuple[tuple[int, int], ...]:
        """(module, output pool) of every module -> output-pool edge."""
        return tuple(sorted({(m, int(self.env.task_out_pool(r)))
                             for m, (_, rs) in enumerate(self.modules) for r in rs}))

    @cached_property
    def paths(self) -> dict[str, np.ndarray]:
        """(P,) int arrays ``route``, ``module``, ``in_edge``, ``out_edge`` of every path."""
        rows = [(r, m, self.in_edges.index((m, int(self.env.task_in_pool(r)))),
                 self.out_edges.index((m, int(self.env.task_out_pool(r)))))
                for m, (_, rs) in enumerate(self.modules) for r in rs]
        return dict(zip(("route", "module", "in_edge", "out_edge"), np.array(rows, dtype=np.int64).T))

    def incidence(self, kind: str) -> np.ndarray:
        """(rows, P) 0/1 float matrix: ``kind`` = "route" (R, P), "in_edge" (E_in, P) or "out_edge" (E_out, P)."""
        check_choice("kind", kind, ("route", "in_edge", "out_edge"))
        n_rows = {"route": self.env.n_tasks, "in_edge": len(self.in_edges), "out_edge": len(self.out_edges)}[kind]
        out = np.zeros((n_rows, len(self.paths["route"])))
        out[self.paths[kind], np.arange(out.shape[1])] = 1.0
        return out

    def effective_rate(self, family: str) -> float:
        """sqrt(m_in m_out): paths through a ``family`` module's in-edge times those through its out-edge."""
        check_choice("family", family, self.families)
        counts = {"shared": (self.env.n_out_pools, self.env.n_in_pools), "in_pool": (self.env.n_out_pools, 1),
                  "out_pool": (1, self.env.n_in_pools), "route": (1, 1)}[family]
        return float(np.sqrt(counts[0] * counts[1]))

    def family_of_path(self) -> np.ndarray:
        """(P,) index into ``families`` of each path's module."""
        names = [self.families.index(family) for family, _ in self.modules]
        return np.array(names, dtype=np.int64)[self.paths["module"]]


# --- data ---------------------------------------------------------------------------------------
def route_signals(env: TaskEnvironment, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the gated network sees of single-task patterns: (x_in (N, F) the input pool's units,
    y_out (N, F) the output pool's targets, route (N,) the task), from the environment's inputs
    x (N, n_stimulus + n_tasks) and targets y (N, n_outputs)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.ndim != 2 or x.shape[1] != env.n_inputs or y.shape != (x.shape[0], env.n_outputs):
        raise ValueError(f"x and y must have shapes (N, {env.n_inputs}) and (N, {env.n_outputs}), "
                         f"got {x.shape} and {y.shape}")
    task_units = x[:, env.n_stimulus_units:]
    if x.shape[0] == 0 or not np.all(task_units.sum(axis=1) == 1):
        raise ValueError("x must hold at least one pattern, each with exactly one active task unit (single-task data)")
    route = task_units.argmax(axis=1)
    f = env.n_features
    in_cols = env.task_in_pool(route)[:, None] * f + np.arange(f)
    out_cols = env.task_out_pool(route)[:, None] * f + np.arange(f)
    return np.take_along_axis(x, in_cols, 1), np.take_along_axis(y, out_cols, 1), route


def route_statistics(env: TaskEnvironment, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """(counts (R, F): patterns of route p with active feature f, N): Sigma^yx(p) = Sigma^x(p, p) =
    diag(counts[p]) / N. Raises ValueError if a target is not the copied input (the diagonal form)."""
    x_in, y_out, route = route_signals(env, x, y)
    if not np.array_equal(x_in, y_out):
        raise ValueError("y must copy the active input feature into the output pool (the environment's targets)")
    counts = np.zeros((env.n_tasks, env.n_features))
    np.add.at(counts, route, x_in)
    return counts, x_in.shape[0]


# --- initial weights ----------------------------------------------------------------------------
def decoupled_weights(arch: GatedArchitecture, b_in: np.ndarray, b_out: np.ndarray, n_hidden: int,
                      seed: int) -> dict[str, np.ndarray]:
    """Full weights W_in (E_in, n_hidden, F) = R_m diag(b_in[e]) and W_out (E_out, F, n_hidden) =
    diag(b_out[e]) R_m^T, R_m a random orthonormal (n_hidden, F) basis per module (Eq. 9)."""
    f = arch.env.n_features
    check_int("n_hidden", n_hidden, minimum=f)
    b_in, b_out = np.asarray(b_in, float), np.asarray(b_out, float)
    if b_in.shape != (len(arch.in_edges), f) or b_out.shape != (len(arch.out_edges), f):
        raise ValueError(f"b_in and b_out must have shapes {(len(arch.in_edges), f)} and "
                         f"{(len(arch.out_edges), f)}, got {b_in.shape} and {b_out.shape}")
    rng = np.random.default_rng(check_seed("seed", seed))
    bases = [np.linalg.qr(rng.standard_normal((n_hidden, f)))[0] for _ in arch.modules]
    w_in = np.stack([bases[m] * b_in[e] for e, (m, _) in enumerate(arch.in_edges)])
    w_out = np.stack([b_out[e][:, None] * bases[m].T for e, (m, _) in enumerate(arch.out_edges)])
    return {"w_in": w_in, "w_out": w_out}


def random_weights(arch: GatedArchitecture, n_hidden: int, sigma: float, seed: int) -> dict[str, np.ndarray]:
    """Full weights with i.i.d. N(0, sigma^2) entries, shapes as :func:`decoupled_weights`."""
    check_int("n_hidden", n_hidden, minimum=1)
    check_positive_float("sigma", sigma)
    rng = np.random.default_rng(check_seed("seed", seed))
    f = arch.env.n_features
    return {"w_in": sigma * rng.standard_normal((len(arch.in_edges), n_hidden, f)),
            "w_out": sigma * rng.standard_normal((len(arch.out_edges), f, n_hidden))}


def matched_initial_edges(arch: GatedArchitecture, sigma: float, n_hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """Initial edges (b_in (E_in, F), b_out (E_out, F)) of the reduction that stand for N(0, sigma^2)
    weights of width ``n_hidden``. Near zero (linearized Eq. 3) a module's in- and out-edge vectors
    grow along the top singular vectors of its route coupling, uniform over its E_in in-edges and
    E_out out-edges, from a random component of squared norm ~ sigma^2 n_hidden; the reduction
    starts on that direction: b_in = sigma sqrt(n_hidden / (2 E_in)), b_out = sigma sqrt(n_hidden / (2 E_out))
    (balanced: the conserved m_out b_in^2 - m_in b_out^2 is 0)."""
    check_positive_float("sigma", sigma)
    check_int("n_hidden", n_hidden, minimum=1)
    n_in = np.bincount([m for m, _ in arch.in_edges], minlength=len(arch.modules))
    n_out = np.bincount([m for m, _ in arch.out_edges], minlength=len(arch.modules))
    f = arch.env.n_features
    b_in = np.array([[sigma * np.sqrt(n_hidden / (2.0 * n_in[m]))] * f for m, _ in arch.in_edges])
    b_out = np.array([[sigma * np.sqrt(n_hidden / (2.0 * n_out[m]))] * f for m, _ in arch.out_edges])
    return b_in, b_out


# --- dynamics -----------------------------------------------------------------------------------
def _check_run(learning_rate: float, n_iterations: int, n_snapshots: int) -> int:
    check_positive_float("learning_rate", learning_rate)
    return check_schedule(n_iterations, n_snapshots)


def simulate_direct(arch: GatedArchitecture, weights: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray,
                    learning_rate: float, n_iterations: int, n_snapshots: int = 101) -> dict[str, np.ndarray]:
    """Full-batch gradient descent of the whole gated network on the patterns (float64), loss Eq. 1.

    Args:
        weights: ``w_in`` (E_in, H, F), ``w_out`` (E_out, F, H) (:func:`decoupled_weights`,
            :func:`random_weights`).
        x, y: (N, n_inputs) inputs and (N, n_outputs) targets of single-task patterns.
        learning_rate: step size; snapshot time is learning_rate x steps (tau = 1).

    Returns: ``time`` (T,), ``route_loss`` (T, R) mean over each route's patterns of half the
    squared error, ``path_strength`` (T, P, F) the diagonal of each path's map W_out W_in, and
    the final ``w_in``, ``w_out``.
    """
    per_segment = _check_run(learning_rate, n_iterations, n_snapshots)
    w_in, w_out = np.array(weights["w_in"], float), np.array(weights["w_out"], float)
    f = arch.env.n_features
    if w_in.ndim != 3 or w_in.shape[0] != len(arch.in_edges) or w_in.shape[2] != f or \
            w_out.shape != (len(arch.out_edges), f, w_in.shape[1]):
        raise ValueError(f"weights must hold w_in (E_in={len(arch.in_edges)}, H, {f}) and w_out "
                         f"(E_out={len(arch.out_edges)}, {f}, H), got {w_in.shape} and {w_out.shape}")
    x_in, y_out, route = route_signals(arch.env, x, y)
    n = x_in.shape[0]
    paths = arch.paths
    to_route, to_in, to_out = arch.incidence("route"), arch.incidence("in_edge"), arch.incidence("out_edge")
    onehot = np.eye(arch.env.n_tasks)[route]
    n_route = np.maximum(onehot.sum(axis=0), 1.0)

    def path_maps():
        return w_out[paths["out_edge"]] @ w_in[paths["in_edge"]]

    def error(maps):
        route_maps = np.einsum("rp,pij->rij", to_route, maps)
        return y_out - np.einsum("nij,nj->ni", route_maps[route], x_in)

    def record():
        maps = path_maps()
        loss = onehot.T @ (0.5 * np.sum(error(maps) ** 2, axis=1)) / n_route
        return loss, np.diagonal(maps, axis1=1, axis2=2).copy()

    records = [record()]
    for _ in range(n_snapshots - 1):
        for _ in range(per_segment):
            maps = path_maps()
            grad_route = np.einsum("nr,ni,nj->rij", onehot, error(maps), x_in) / n  # -dL/d(route map)
            grad_path = grad_route[paths["route"]]
            d_in = np.einsum("ep,phf->ehf", to_in, np.swapaxes(w_out[paths["out_edge"]], 1, 2) @ grad_path)
            d_out = np.einsum("ep,pfh->efh", to_out, grad_path @ np.swapaxes(w_in[paths["in_edge"]], 1, 2))
            w_in, w_out = w_in + learning_rate * d_in, w_out + learning_rate * d_out
        records.append(record())
    return {"time": learning_rate * per_segment * np.arange(n_snapshots, dtype=float),
            "route_loss": np.stack([r[0] for r in records]), "path_strength": np.stack([r[1] for r in records]),
            "w_in": w_in, "w_out": w_out}


def simulate_reduced(arch: GatedArchitecture, counts: np.ndarray, n_patterns: int, b_in: np.ndarray,
                     b_out: np.ndarray, learning_rate: float, n_iterations: int,
                     n_snapshots: int = 101) -> dict[str, np.ndarray]:
    """Gradient descent of the reduction (Eq. 10): one scalar per edge per feature mode.

    Args:
        counts, n_patterns: :func:`route_statistics` (s = d = counts / n_patterns).
        b_in (E_in, F), b_out (E_out, F): initial edge values.

    Returns: ``time`` (T,), ``route_loss`` (T, R), ``path_strength`` (T, P, F) = b_out b_in per
    path and mode, and the final ``b_in``, ``b_out``; the same quantities as :func:`simulate_direct`.
    """
    per_segment = _check_run(learning_rate, n_iterations, n_snapshots)
    check_int("n_patterns", n_patterns, minimum=1)
    counts = np.asarray(counts, float)
    f = arch.env.n_features
    if counts.shape != (arch.env.n_tasks, f) or np.any(counts < 0) or counts.sum() > n_patterns:
        raise ValueError(f"counts must be a ({arch.env.n_tasks}, {f}) array of non-negative pattern counts "
                         f"summing to at most n_patterns={n_patterns}, got shape {counts.shape}")
    b_in, b_out = np.array(b_in, float), np.array(b_out, float)
    if b_in.shape != (len(arch.in_edges), f) or b_out.shape != (len(arch.out_edges), f):
        raise ValueError(f"b_in and b_out must have shapes {(len(arch.in_edges), f)} and "
                         f"{(len(arch.out_edges), f)}, got {b_in.shape} and {b_out.shape}")
    s = d = counts / n_patterns
    paths = arch.paths
    to_route, to_in, to_out = arch.incidence("route"), arch.incidence("in_edge"), arch.incidence("out_edge")
    n_route = np.maximum(counts.sum(axis=1), 1.0)

    def strength():
        return b_out[paths["out_edge"]] * b_in[paths["in_edge"]]

    def record():
        u = to_route @ strength()
        loss = 0.5 * np.sum(counts * (1.0 - u) ** 2, axis=1) / n_route  # target variance = s = counts / N
        return loss, strength()

    records = [record()]
    for _ in range(n_snapshots - 1):
        for _ in range(per_segment):
            err = (s - d * (to_route @ strength()))[paths["route"]]
            d_in = to_in @ (b_out[paths["out_edge"]] * err)
            d_out = to_out @ (b_in[paths["in_edge"]] * err)
            b_in, b_out = b_in + learning_rate * d_in, b_out + learning_rate * d_out
        records.append(record())
    return {"time": learning_rate * per_segment * np.arange(n_snapshots, dtype=float),
            "route_loss": np.stack([r[0] for r in records]), "path_strength": np.stack([r[1] for r in records]),
            "b_in": b_in, "b_out": b_out}


def sigmoid_mode(t: np.ndarray, s: float, d: float, u0: float, rate: float = 1.0) -> np.ndarray:
    """Closed form (Saxe et al. 2014; the paper's Eq. 21) of du/dt = 2 rate u (s - d u):
    u(t) = (s/d) / (1 - (1 - s/(d u0)) exp(-2 rate s t)); t (T,) in units of tau."""
    for name, value in (("s", s), ("d", d), ("u0", u0), ("rate", rate)):
        check_positive_float(name, value)
    t = np.asarray(t, float)
    return (s / d) / (1.0 - (1.0 - s / (d * u0)) * np.exp(-2.0 * rate * s * t))


# --- what is predicted --------------------------------------------------------------------------
def _first_time_below(values: np.ndarray, times: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """(R,) first time each column of ``values`` (T, R) is <= ``levels`` (R,), linearly
    interpolated between snapshots ``times`` (T,); inf if never."""
    out = np.full(values.shape[1], np.inf)
    for r in range(values.shape[1]):
        below = np.flatnonzero(values[:, r] <= levels[r])
        if below.size:
            k = below[0]
            if k == 0:
                out[r] = times[0]
                continue
            v0, v1 = values[k - 1, r], values[k, r]
            out[r] = times[k - 1] + (times[k] - times[k - 1]) * (v0 - levels[r]) / (v0 - v1)
    return out


def _check_curves(name: str, curves: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    curves, times = np.asarray(curves, float), np.asarray(times, float)
    if curves.ndim != 2 or times.shape != (curves.shape[0],) or curves.shape[0] < 2:
        raise ValueError(f"{name} must be (T, R) and times (T,) with T >= 2, got {curves.shape} and {times.shape}")
    if not np.all(np.isfinite(curves)):
        raise ValueError(f"{name} must be finite")
    if np.any(np.diff(times) <= 0):
        raise ValueError("times must be strictly increasing")
    return curves, times


def learning_times(losses: np.ndarray, times: np.ndarray, fraction: float = 0.5) -> np.ndarray:
    """(R,) first time each curve of ``losses`` (T, R) falls to ``fraction`` x its value at
    times[0], linearly interpolated between snapshots ``times`` (T,, increasing); inf if never."""
    check_positive_float("fraction", fraction, maximum=1.0)
    losses, times = _check_curves("losses", losses, times)
    if not np.all(losses[0] > 0):
        raise ValueError("losses must have positive initial values")
    return _first_time_below(losses, times, fraction * losses[0])


def learning_order(times: np.ndarray) -> np.ndarray:
    """(R,) route indices from first learned to last (stable; never-learned routes, inf, last)."""
    times = np.asarray(times, float)
    if times.ndim != 1 or np.any(np.isnan(times)):
        raise ValueError(f"times must be a 1-D array without NaN, got shape {times.shape}")
    return np.argsort(times, kind="stable")


def family_strengths(arch: GatedArchitecture, path_strength: np.ndarray) -> np.ndarray:
    """(T, n_families) each family's contribution to the routes' maps, sum over its paths of a
    route, averaged over routes and feature modes (1 = the whole target), from ``path_strength`` (T, P, F)."""
    path_strength = np.asarray(path_strength, float)
    n_paths = len(arch.paths["route"])
    if path_strength.ndim != 3 or path_strength.shape[1] != n_paths:
        raise ValueError(f"path_strength must be (T, {n_paths}, F), got {path_strength.shape}")
    family = arch.family_of_path()
    per_path = path_strength.mean(axis=2)  # (T, P)
    return np.stack([per_path[:, family == k].sum(axis=1) / arch.env.n_tasks
                     for k in range(len(arch.families))], axis=1)


def structure_times(strengths: np.ndarray, times: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """(n_families,) first time each family's strength (T, n_families) reaches ``threshold``
    (linear interpolation between snapshots ``times`` (T,); inf if never)."""
    check_positive_float("threshold", threshold)
    strengths, times = _check_curves("strengths", strengths, times)
    return _first_time_below(-strengths, times, np.full(strengths.shape[1], -threshold))


def race_predictions(env: TaskEnvironment, x: np.ndarray, y: np.ndarray, families: tuple[str, ...] = FAMILIES,
                     sigma: float = 1e-4, n_hidden: int = 64, learning_rate: float = 1.0, n_iterations: int = 2000,
                     n_snapshots: int = 201, fraction: float = 0.5, threshold: float = 0.5) -> dict[str, np.ndarray]:
    """The race's predictions for a training set (x (N, n_inputs), y (N, n_outputs), single tasks):
    the reduction started as a network of width ``n_hidden`` with N(0, sigma^2) weights
    (:func:`matched_initial_edges`), each route's learning time (its loss at ``fraction`` of its
    start) and the order, and each family's strength and structure time (``threshold``).

    Returns: ``time`` (T,), ``route_loss`` (T, R), ``route_time`` (R,), ``route_order`` (R,),
    ``family_strength`` (T, n_families), ``family_time`` (n_families,), ``families`` (names)."""
    arch = GatedArchitecture(env, tuple(families))
    b_in, b_out = matched_initial_edges(arch, sigma, n_hidden)
    check_positive_float("fraction", fraction, maximum=1.0)
    check_positive_float("threshold", threshold)
    counts, n = route_statistics(env, x, y)
    run = simulate_reduced(arch, counts, n, b_in, b_out, learning_rate, n_iterations, n_snapshots)
    route_time = learning_times(run["route_loss"], run["time"], fraction)
    strength = family_strengths(arch, run["path_strength"])
    return {"time": run["time"], "route_loss": run["route_loss"], "route_time": route_time,
            "route_order": learning_order(route_time), "family_strength": strength,
            "family_time": structure_times(strength, run["time"], threshold), "families": np.array(arch.families)}
