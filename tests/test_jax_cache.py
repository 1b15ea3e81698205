"""JAX's persistent compilation cache (which the runner gives every chapter's kernel) changes no
number: a process that loads a compiled program from it computes the same bits as one that
compiled it, and as one without the cache."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from lib.book import runner

PROGRAM = """
import sys
import numpy as np
import jax, jax.numpy as jnp
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment

env = TaskEnvironment(4, 3, 3)
net = MultitaskNet.for_environment(env, n_hidden=50)
params = net.init(jax.random.PRNGKey(3))
x = jnp.asarray(env.all_patterns().x, dtype=jnp.float32)
step = jax.jit(lambda p: jax.tree_util.tree_map(lambda w, g: w - 0.1 * g, p,
                                                  jax.grad(lambda q: jnp.sum(net.apply(q, x) ** 2))(p)))
for _ in range(5):
    params = step(params)
np.save(sys.argv[1], np.concatenate([np.ravel(w) for w in jax.tree_util.tree_leaves(params)]))
"""


def run(tmp_path, name: str, cache: str | None) -> np.ndarray:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    if cache:
        env.update(JAX_COMPILATION_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    out = tmp_path / f"{name}.npy"
    subprocess.run([sys.executable, "-c", PROGRAM, str(out)], env=env, check=True, timeout=300,
                   cwd=runner.REPO_ROOT)
    return np.load(out)


def test_a_program_loaded_from_the_cache_computes_the_same_bits(tmp_path):
    cache = tmp_path / "jax-cache"
    compiled = run(tmp_path, "compiled", str(cache))
    assert any(cache.iterdir())  # the first process wrote its programs
    loaded = run(tmp_path, "loaded", str(cache))
    without = run(tmp_path, "without", None)
    assert compiled.dtype == np.float32
    np.testing.assert_array_equal(loaded, compiled)
    np.testing.assert_array_equal(without, compiled)


def test_the_runner_gives_kernels_a_cache_per_host_cpu_unless_one_is_set(monkeypatch):
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
    folder = runner.jax_cache_env()["JAX_COMPILATION_CACHE_DIR"]
    assert folder.startswith(str(runner.JAX_CACHE_ROOT)) and len(os.path.basename(folder)) == 16
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/elsewhere")
    assert runner.jax_cache_env() == {}
