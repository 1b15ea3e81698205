"""The CPU target of the Numba kernels and their on-disk compiled-code cache.

Numba compiles for the host CPU unless ``$NUMBA_CPU_NAME`` / ``$NUMBA_CPU_FEATURES`` say
otherwise (``NUMBA_CPU_NAME=generic``: a baseline target with no AVX or FMA, which ``make
test-generic-cpu`` uses to catch tests that hold only on one CPU). This module checks the
features variable before anything compiles (:func:`check_cpu_features`), widens vectors to 512
bits on AVX-512 CPUs (:func:`prefer_512_bit_vectors`), and removes unreadable compiled-code
cache files (:func:`repair_compiled_cache`). It compiles nothing itself, so command lines can
import it to check the environment cheaply.
"""

from __future__ import annotations

import glob
import os
import warnings

from numba.core import codegen, config, registry

CPU_FEATURES_ENV = "NUMBA_CPU_FEATURES"


def check_cpu_features(features: str | None = None) -> None:
    """Raise ``ValueError`` unless ``features`` (default: ``$NUMBA_CPU_FEATURES``) is a comma-separated
    list of ``+name`` / ``-name`` items naming CPU features LLVM knows for this machine's target.

    LLVM aborts the whole process on an item without a sign and ignores unknown names with a
    warning, so the variable is checked before Numba compiles anything."""
    features = os.environ.get(CPU_FEATURES_ENV) if features is None else features
    if not features:  # unset, or empty: no features beyond the CPU name's (Numba's default for 'generic')
        return
    known = {item[1:] for item in codegen.get_host_cpu_features().split(",") if item}
    items = [item.strip() for item in features.split(",")]
    bad = [item for item in items if len(item) < 2 or item[0] not in "+-" or item[1:] not in known]
    if bad:
        raise ValueError(f"${CPU_FEATURES_ENV} must be a comma-separated list of +feature or -feature items "
                         f"naming features of this CPU's target (e.g. '+avx2,-avx512f'; unset it for the host's "
                         f"own), got the invalid item(s) {bad}")


def prefer_512_bit_vectors() -> bool:
    """Let LLVM vectorise Numba code with 512-bit registers on an AVX-512 CPU; True if it now does.

    Sets Numba's target features to the host's plus ``-prefer-256-bit`` (LLVM's default tuning
    for Skylake-class server CPUs). Must run before Numba compiles anything in this process; it
    changes nothing when ``$NUMBA_CPU_FEATURES`` is set (the user's choice, e.g. to compare the
    builds), when Numba has already compiled, or without AVX-512. The on-disk cache keys
    compiled code by the features, so builds never mix."""
    if config.CPU_FEATURES is not None or "_toplevel_target_context" in vars(registry.cpu_target):
        return False
    features = codegen.get_host_cpu_features()
    if "+avx512f" not in features.split(","):
        return False
    config.CPU_FEATURES = features + ",-prefer-256-bit"
    return True


def repair_compiled_cache(dispatchers) -> list[str]:
    """Remove the unreadable files of these Numba functions' on-disk compiled-code cache (a
    truncated index or object file, e.g. from a process killed while writing it), so that the
    next call recompiles instead of failing with an unpickling error on every run. Reads each
    index and object file as Numba does; returns the removed paths (and warns naming them)."""
    removed = []
    for dispatcher in dispatchers:
        cache_file = dispatcher._cache._cache_file  # Numba's IndexDataCacheFile (numba pinned in requirements)
        try:
            for data_name in cache_file._load_index().values():
                cache_file._load_data(data_name)
        except FileNotFoundError:
            continue
        except Exception as err:  # noqa: BLE001 - any unreadable file: recompile
            prefix = os.path.splitext(cache_file._index_path)[0]
            paths = sorted(glob.glob(glob.escape(prefix) + ".nbi") + glob.glob(glob.escape(prefix) + ".*.nbc"))
            for path in paths:
                os.remove(path)
            removed += paths
            warnings.warn(f"removed the unreadable compiled-code cache of {dispatcher.__name__} "
                          f"({type(err).__name__}: {err}); it is compiled again: {paths}", RuntimeWarning,
                          stacklevel=2)
    return removed
