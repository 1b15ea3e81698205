"""Execute the book's notebooks with papermill, in order, with a profile's parameters.

    python -m lib.runner --profile full            # paper scale (the book)
    python -m lib.runner --profile quick           # small parameters (CI)
    python -m lib.runner --only 00_quickstart -p n_iterations=1000 --output-dir sweeps/x
    python -m lib.runner --only 00_quickstart --grid seed=0,1,2 --grid schedule="'ET'","'LR'" \
        --output-dir sweeps/quickstart        # one executed notebook per grid point

The percent-format ``notebooks/<name>.py`` is read with jupytext, parameters are injected
by papermill, and the executed notebook is written to ``book/executed/<name>.ipynb`` (the
file the book renders) unless ``--output-dir`` is given. Chapters' headline numbers go to
``<output-dir>/summary/`` (see :mod:`lib.summary`), so a sweep never touches the book's.
Computed results are shared through the parameter-keyed cache in ``results/``. A failing
cell stops the run with a non-zero exit code.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .results import REPO_ROOT

NOTEBOOKS = (
    "00_quickstart",
    "01_one_step_entk",
    "02_smg_validation",
    "03_epntk",
    "04_multitask_representations",
    "05_multitask_performance",
    "06_correlation_analysis",
    "07_reproduction_summary",
)

# parameters overriding each notebook's ``parameters`` cell, per profile
PROFILES: dict[str, dict[str, dict]] = {
    "full": {},
    "quick": {
        "00_quickstart": {"n_iterations": 500},
        "01_one_step_entk": {"n_iterations": 200, "n_learning_rates": 4},
        "02_smg_validation": {"n_sweep_seeds": 3},
        "03_epntk": {"n_halvings": 2},
        "04_multitask_representations": {"n_iterations": 1000, "n_entk_pairs": 3, "n_ari_pairs": 2},
        "05_multitask_performance": {"n_pairs": 3, "iterations": {"ET": 1000, "LR": 500}},
        "06_correlation_analysis": {"n_pairs": 3, "iterations": {"ET": 1000, "LR": 500}, "n_resamples": 500},
    },
}

EXECUTED_DIR = REPO_ROOT / "book" / "executed"


def execution_key(name: str, parameters: dict) -> str:
    """Hash of everything an executed notebook depends on: its source, the parameters, the
    code in ``lib/`` and the pinned requirements."""
    digest = hashlib.sha256()
    digest.update(json.dumps(parameters, sort_keys=True).encode())
    sources = [REPO_ROOT / "notebooks" / f"{name}.py", REPO_ROOT / "requirements.txt",
               *sorted((REPO_ROOT / "lib").glob("*.py"))]
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def up_to_date(name: str, output: Path, key: str, summary_dir: Path) -> bool:
    """Whether ``output`` was executed with ``key`` and the summary record it writes (if any) exists."""
    import nbformat

    if not output.exists():
        return False
    try:
        recorded = nbformat.read(output, as_version=4).metadata.get("repro", {}).get("execution_key")
    except (OSError, ValueError):
        return False
    writes_summary = "summary.record(" in (REPO_ROOT / "notebooks" / f"{name}.py").read_text()
    return recorded == key and (not writes_summary or (summary_dir / f"{name}.json").exists())


def execute(name: str, parameters: dict, output_dir: Path, force: bool = False) -> Path:
    """Run ``notebooks/<name>.py`` with ``parameters`` into ``output_dir/<name>.ipynb``, unless
    that file was already executed from the same inputs (see :func:`execution_key`)."""
    import jupytext
    import nbformat
    import papermill

    summary_dir = Path(output_dir).resolve() / "summary"
    os.environ["REPRO_SUMMARY_DIR"] = str(summary_dir)  # inherited by the kernel
    source = REPO_ROOT / "notebooks" / f"{name}.py"
    if not source.exists():
        raise ValueError(f"notebook must be one of {list(NOTEBOOKS)} (notebooks/<name>.py), got {name!r}")
    output_dir.mkdir(parents=True, exist_ok=True)
    output = output_dir / f"{name}.ipynb"
    key = execution_key(name, parameters)
    if not force and up_to_date(name, output, key, summary_dir):
        print(f"[runner] {name}: up to date (same source, parameters, lib and requirements)", flush=True)
        return output
    with tempfile.TemporaryDirectory() as tmp:
        unexecuted = Path(tmp) / f"{name}.ipynb"
        jupytext.write(jupytext.read(source), unexecuted)
        papermill.execute_notebook(
            str(unexecuted),
            str(output),
            parameters=parameters,
            kernel_name="python3",
            cwd=str(REPO_ROOT / "notebooks"),
            progress_bar=True,
        )
    executed = nbformat.read(output, as_version=4)
    executed.metadata["repro"] = {"execution_key": key, "parameters": parameters}
    nbformat.write(executed, output)
    return output


def parse_assignment(text: str) -> tuple[str, object]:
    """``name=value`` with a Python literal value (``n=3``, ``schedule='LR'``, ``seeds=[0,1]``)."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"parameters are given as name=value, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value  # a bare string


def parse_grid(text: str) -> tuple[str, list]:
    """``name=v1,v2,...`` with Python literal values."""
    name, sep, values = text.partition("=")
    if not sep or not name.isidentifier() or not values:
        raise argparse.ArgumentTypeError(f"a grid is given as name=value1,value2,..., got {text!r}")
    return name, [parse_assignment(f"{name}={v}")[1] for v in values.split(",")]


def grid_points(grids: list[tuple[str, list]]) -> list[dict]:
    """Every combination of the grids' values (one empty point without grids)."""
    names = [n for n, _ in grids]
    return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in grids))]


def point_folder(point: dict) -> str:
    return "_".join(f"{k}-{v}" for k, v in point.items()) or "default"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Execute the book's notebooks with papermill.")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full")
    parser.add_argument("--only", nargs="+", choices=NOTEBOOKS, help="run only these notebooks")
    parser.add_argument("-p", "--parameter", action="append", type=parse_assignment, default=[],
                        help="override a parameter: name=value (repeatable)")
    parser.add_argument("--grid", action="append", type=parse_grid, default=[],
                        help="sweep a parameter: name=v1,v2,... (repeatable; the cartesian product is run, "
                             "each point into its own sub-folder of --output-dir)")
    parser.add_argument("--output-dir", type=Path, default=EXECUTED_DIR)
    parser.add_argument("--force", action="store_true", help="execute even notebooks that are up to date")
    args = parser.parse_args(argv)
    if args.grid and args.output_dir.resolve() == EXECUTED_DIR.resolve():
        parser.error("--grid needs an --output-dir outside book/executed (sweeps never overwrite the book)")
    start = time.perf_counter()
    for point in grid_points(args.grid):
        output_dir = args.output_dir / point_folder(point) if args.grid else args.output_dir
        for name in args.only or NOTEBOOKS:
            parameters = {**PROFILES[args.profile].get(name, {}), **dict(args.parameter), **point}
            print(f"[runner] {name} ({args.profile}) {parameters} -> {output_dir}", flush=True)
            t0 = time.perf_counter()
            execute(name, parameters, output_dir, force=args.force)
            print(f"[runner] {name} done in {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"[runner] all notebooks executed in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
