"""The parameters of the runner's runs, checked before any kernel starts.

Book layer, between :mod:`lib.book.notebook_sources` and :mod:`lib.book.runner` (and
:mod:`lib.book.sweep_command`). ``-p name=value`` and ``--grid name=v1,v2,...`` texts become values
(:func:`parse_assignment`, :func:`parse_grid`, :func:`parse_grid_spec`: Python literals, lists,
tuples and dicts allowed, a bare word a string); a grid becomes its points (:func:`grid_points`),
each run into a folder of its own (:func:`point_folder`). Every parameter name must be one the
notebook's ``parameters`` cell defines and every value of the default's type
(:func:`check_parameters`); ranges are checked by the notebook's first cell after its
``parameters`` cell, executed for every run in one child process (:func:`check_ranges`).
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import os
import pickle
import re
import shlex
import subprocess
import sys
from pathlib import Path

from ..core.results import REPO_ROOT
from ..core.validation import ALLOW_LARGE_ENV
from .notebook_sources import ParameterError, check_cell_source, notebook_parameters

def parse_value(text: str) -> object:
    """A Python literal (``3``, ``0.1``, ``'LR'``, ``[0, 1]``, ``{'ET': 0}``); a bare word is a string."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", text):
            return text  # bare word: schedule=LR
        raise ParameterError(f"{text!r} is not a Python literal (numbers, 'strings', [lists], (tuples), {{dicts}}, "
                             "True/False/None)") from None


def parse_assignment(text: str) -> tuple[str, object]:
    """``name=value`` with a Python literal value (``n=3``, ``schedule='LR'``, ``seeds=[0,1]``)."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise ParameterError(f"parameters are given as name=value, got {text!r}")
    try:
        return name, parse_value(value)
    except ParameterError as err:
        raise ParameterError(f"parameter {name}: {err}") from None


def parse_grid(text: str) -> tuple[str, list]:
    """``name=v1,v2,...``: the values as one Python literal list (so ``[0,1],[2,3]`` is two lists),
    or comma-separated bare words (``schedule=ET,LR``)."""
    name, sep, values = text.partition("=")
    if not sep or not name.isidentifier() or not values.strip():
        raise ParameterError(f"a grid is given as name=value1,value2,..., got {text!r}")
    try:
        parsed = ast.literal_eval(f"[{values}]")
    except (ValueError, SyntaxError):
        parsed = [parse_assignment(f"{name}={v.strip()}")[1] for v in values.split(",")]
    if not parsed:
        raise ParameterError(f"grid {name} has no values: {text!r}")
    return name, parsed


def parse_grid_spec(spec: str) -> list[tuple[str, list]]:
    """Several grids in one shell-quoted string, ``"seed=0,1 schedule=ET,LR"`` (the Makefile's GRID)."""
    try:
        words = shlex.split(spec)
    except ValueError as err:
        raise ParameterError(f"GRID {spec!r} is not a valid list of name=values words ({err})") from None
    return [parse_grid(w) for w in words]


def plain(value: object) -> object:
    """Tuples as lists, recursively (papermill passes lists and dicts, not tuples)."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def _type_name(value: object) -> str:
    return {bool: "True/False", int: "an integer", float: "a number", str: "a string", list: "a list",
            tuple: "a list", dict: "a dict"}.get(type(value), type(value).__name__)


def _same_kind(default: object, value: object) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    if default is None:
        return True
    return type(value) is type(default)


def check_parameters(name: str, parameters: dict) -> dict:
    """``parameters`` checked against ``name``'s parameters cell (names and types), tuples as lists."""
    defaults = notebook_parameters(name)
    unknown = sorted(set(parameters) - set(defaults))
    if unknown:
        raise ParameterError(f"{name} has no parameter {', '.join(unknown)}; allowed: {', '.join(defaults)}")
    for key, value in parameters.items():
        if not _same_kind(defaults[key], value):
            raise ParameterError(f"{name}: parameter {key} must be {_type_name(defaults[key])} like its default "
                                 f"{defaults[key]!r}, got {value!r} ({type(value).__name__})")
    return {k: plain(v) for k, v in parameters.items()}


def grid_points(grids: list[tuple[str, list]]) -> list[dict]:
    """Every combination of the grids' values (one empty point without grids); a name twice is an error."""
    names = [n for n, _ in grids]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParameterError(f"grid parameter {', '.join(repeated)} given more than once; give all its values in "
                             "one name=v1,v2,... word")
    return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in grids))]


def point_folder(point: dict) -> str:
    """A safe folder name for a grid point: readable ``name-value`` parts (other characters replaced
    by ``_``) plus a hash of the exact values, so distinct points never share a folder."""
    if not point:
        return "default"
    readable = "_".join(f"{k}-{v if isinstance(v, str) else json.dumps(v, sort_keys=True)}" for k, v in point.items())
    readable = re.sub(r"[^A-Za-z0-9.=+-]+|\.{2,}", "_", readable).strip("._")[:80]
    digest = hashlib.sha256(json.dumps(point, sort_keys=True).encode()).hexdigest()[:8]
    return f"{readable}_{digest}"


_RANGE_ERROR = "[runner-check] "


def _check_ranges_child() -> None:
    """Child process of :func:`check_ranges`: run each job's check cell with its parameters; print
    the first failure as one marked JSON line."""
    for name, source, defaults, parameters in pickle.load(sys.stdin.buffer):
        namespace = {"__name__": "__check__", **defaults, **parameters}
        try:
            exec(compile(source, f"notebooks/{name}.py (checks)", "exec"), namespace)
        except Exception as err:  # any failure of the checks under these parameters is the parameters' fault
            message = " ".join(str(err).split()) or type(err).__name__
            print(_RANGE_ERROR + json.dumps({"name": name, "parameters": repr(parameters), "error": message}),
                  flush=True)
            return


def check_jobs(runs: list[tuple[str, dict, Path]]) -> list[tuple[str, str, dict, dict]]:
    """(name, check cell source, parameter defaults, parameters) of each distinct (notebook,
    parameters) of ``runs``: what the child process of :func:`check_ranges` executes. The sources are
    read here, so that the child imports only what the checks themselves import."""
    jobs, seen = [], set()
    for name, parameters, _ in runs:
        key = (name, repr(parameters))  # repr, not JSON: a dict whose keys mix types is the checks' to refuse
        if key not in seen:
            seen.add(key)
            jobs.append((name, check_cell_source(name), notebook_parameters(name), parameters))
    return jobs


CHECK_CHILD = "from lib.book.run_parameters import _check_ranges_child as c; c()"


def check_ranges(runs: list[tuple[str, dict, Path]], allow_large: bool = False, timeout: float = 600) -> None:
    """Run every notebook's own checks (:func:`check_cell_source`) with each run's parameters, before
    any kernel starts, in one child process (the checks may configure JAX); the first failure is a
    :class:`ParameterError` naming the notebook."""
    env = {**os.environ, ALLOW_LARGE_ENV: "1" if allow_large else "0"}
    try:
        done = subprocess.run([sys.executable, "-c", CHECK_CHILD],
                              input=pickle.dumps(check_jobs(runs)), capture_output=True, cwd=REPO_ROOT, env=env,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise RuntimeError(f"could not check the notebooks' parameters: {err}") from None
    for line in done.stdout.decode(errors="replace").splitlines():
        if line.startswith(_RANGE_ERROR):
            failure = json.loads(line[len(_RANGE_ERROR):])
            raise ParameterError(f"{failure['name']}: {failure['error']} (parameters {failure['parameters']})")
    if done.returncode != 0:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"could not check the notebooks' parameters (exit {done.returncode}): {last}")

