"""The authors' eNTK eigenvector: the full ``np.linalg.eig`` against eigenvalues plus inverse iteration.

The authors' variant of the t=0 structure takes, per output, the eigenvector that
``np.linalg.eig`` of the transposed (test x train) eNTK returns first. The book computes it with
:func:`lib.analyses.entk_vectors.first_eigenvector`: ``np.linalg.eigvals`` (the same Hessenberg QR,
so the same first eigenvalue) and two steps of inverse iteration, with the full ``eig`` kept where
the choice is ill defined. Side by side in one run, interleaved, on the eNTKs the book decomposes:
the paper network's t=0 eNTKs (500 test x 500 training patterns, 9 outputs, both inits) and the
continuum's (200 x 200, init scales 0.3246, 1 and 10). One BLAS thread, as the runner gives every
chapter. Prints the median seconds per matrix of each method, their ratio, and the largest
difference between the two vectors (sign fixed as the book fixes it).

    python benchmarks/leading_vector_speed.py [--networks 2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from machine import describe_machine, print_medians  # benchmarks/machine.py


def paper_entks(n_networks: int) -> np.ndarray:
    """(9 n_networks, 500, 500) authors'-variant t=0 eNTKs of the first pairs, float64."""
    from lib.core.models import INITS
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.schedules import entk_at_init, initial_pairs

    env = TaskEnvironment()
    pairs = initial_pairs(env, range((n_networks + 1) // 2))
    networks = [(p, init) for p in range((n_networks + 1) // 2) for init in INITS][:n_networks]
    return np.concatenate([np.asarray(entk_at_init(env, pairs, p, init, "authors"), np.float64)
                           for p, init in networks])


def continuum_entks(scales=(0.3246, 1.0, 10.0)) -> np.ndarray:
    """(9 len(scales), 200, 200) t=0 eNTKs (test x train) of one continuum network per init scale."""
    import jax

    from lib.core.kernels import entk
    from lib.core.models import MultitaskNet
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.continuum import scaled_initial_params

    env = TaskEnvironment(4, 3, 3)
    net = MultitaskNet.for_environment(env, 200)
    train, test = env.make_data(0, 200, 200, "iid", multitask=False, stream=0)
    out = []
    for g in scales:
        theta = jax.tree.map(lambda a: a[0], scaled_initial_params(net, [0], g, "both"))
        out.append(np.asarray(entk(net, theta, test.x, train.x, train.y), np.float64))
    return np.concatenate(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", type=int, default=2, help="paper networks (9 eNTKs each)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for name in ("networks", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be an integer >= 1, got {getattr(args, name)}")

    import scipy.linalg  # noqa: F401  loaded before threadpool_limits, so that its own OpenBLAS (the LU) is limited too

    from lib.analyses.entk_vectors import _fix_sign, first_eigenvector

    methods = {"np.linalg.eig, column 0 (the authors' code)": lambda m: np.real(np.linalg.eig(m)[1][:, 0]),
               "first_eigenvector (eigvals + inverse iteration)": first_eigenvector}
    print(describe_machine())
    print("one BLAS thread; median seconds per matrix over interleaved repeats")
    for label, matrices in (("paper network, t=0, 500 x 500", paper_entks(args.networks)),
                            ("continuum, t=0, 200 x 200", continuum_entks())):
        transposed = [np.ascontiguousarray(m.T) for m in matrices]
        seconds = {name: [] for name in methods}
        with threadpool_limits(1, user_api="blas"):
            for _ in range(args.repeats):
                for name, method in methods.items():
                    start = time.process_time()
                    for matrix in transposed:
                        method(matrix)
                    seconds[name].append((time.process_time() - start) / len(transposed))
        vectors = {name: [_fix_sign(method(m)) for m in transposed] for name, method in methods.items()}
        old, new = methods
        difference = max(np.abs(a - b).max() for a, b in zip(vectors[old], vectors[new]))
        print(f"\n{label}: {len(transposed)} matrices")
        print_medians(seconds)
        print(f"  largest difference between the two vectors: {difference:.1e}")


if __name__ == "__main__":
    main()
