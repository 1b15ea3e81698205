"""Execute the book's notebooks with papermill, with a profile's parameters::

    python -m lib.book.runner --profile full --jobs 0   # paper scale: the book (book/executed, results/)
    python -m lib.book.runner --profile quick           # small parameters (tests, CI): all under _build/quick/
    python -m lib.book.runner --only 00_quickstart -p n_iterations=1000 --output-dir sweeps/x
    python -m lib.book.runner --only 00_quickstart --grid seed=0,1,2 --grid "schedule='ET','LR'" \\
        --output-dir sweeps/quickstart        # one executed notebook per grid point

Notebooks run in the order of :data:`lib.book.notebook_sources.NOTEBOOKS`, or with ``--jobs N``
(0: one per usable core; ``make book`` and ``make test`` use it) side by side in N processes, each
chapter after those it reads from and, in the full profile, the chapters that keep every core busy
(their Dask sweeps) alone (:mod:`lib.book.concurrent_runs`);
the numbers do not depend on the order. Profiles never share outputs. ``full`` writes the executed notebooks the book renders to
``book/executed/`` and its results to ``results/`` (or ``$REPRO_RESULTS_DIR``); ``quick`` writes
executed notebooks, summary records and results under ``_build/quick/`` (with a copy of the
book's sources there, so ``jupyter-book build _build/quick/src`` builds that book), so nothing
``make test`` does changes what ``make book`` publishes.

Parameters are checked before a kernel starts (:mod:`lib.book.run_parameters`): every
``-p``/``--grid`` name must be one the notebook's ``parameters`` cell defines, and every value a
Python literal of the default's type (lists, tuples, dicts allowed); ranges are checked by the
notebook's first cell after its ``parameters`` cell, which the runner also executes for every run
(in one child process, :func:`lib.book.run_parameters.check_ranges`) before the first kernel starts.
An executed notebook is written to a temporary file and renamed into place only if every cell
succeeded, so a failed run never replaces a good chapter (the failed notebook is kept as
``<name>.failed.ipynb`` for inspection). This module holds the profiles, the output-folder safety
rules, the execution of one notebook and the command line (each a section below); the chapters'
sources are in :mod:`lib.book.notebook_sources` and the parameter checks of the chapters
themselves in :mod:`lib.book.chapter_parameters`.

The executed notebook keeps every output of the run except its progress bars, the run notices of
its tools (what a sweep found cached, waits for results-cache entries that another process was
computing: said in the runner's log instead) and saved widget state (:mod:`lib.book.page_outputs`);
kernels run quietly (:class:`lib.book.kernel_manager.QuietKernelManager`). Each executed notebook
records its run (start, wall time, commit, machine) in its metadata, and after every run the runner
writes the execution report page of each output folder from those records
(:mod:`lib.book.execution_report`).
A notebook whose source, parameters, ``lib/`` code, requirements and inputs (the summary records
it reads) are unchanged is not re-executed, provided its summary record is the one that run wrote
(:func:`lib.book.page_outputs.verified`); every executed notebook left in place whose content changed
since the runner last saw it gets a new modification time (:func:`lib.book.page_outputs.mark_if_changed`),
so the book build re-renders it. Each run works in a scratch folder ``.run-<name>-<host>-<pid>-*``
of its output folder; a run removes those its own chapter left there in runs that died.

The runner runs ``notebooks/<name>.py``, and refuses (one line, naming both files) a notebook whose
paired ``.ipynb`` has other cells (:func:`lib.book.notebook_sources.check_paired`), so that the
runner, sweeps, papermill and JupyterLab never run two versions of one chapter.

The book's executed folder (``book/executed/``, compared after resolving ``..`` and symbolic
links) is written only by the ``full`` profile at the book's own parameters (no ``-p``, no
grid; ``--only`` is fine): any other run naming it, or a folder inside it, is refused before
any notebook runs, and so is ``notebooks/`` (the paired sources). Every user error of the
command line (an unknown option or notebook, a bad parameter name, type or range, an empty or
unusable ``--output-dir``) is one line on stderr and exit status 2, before any kernel starts.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..core.cache_key import conditions_digest, new_process_conditions
from ..core.cpu_target import check_cpu_features
from ..core.cache_entry import CacheError
from ..core.results import REPO_ROOT, RESULTS_ENV, code_digest, resolve_results_env, results_dir
from ..core.validation import ALLOW_LARGE_ENV
from ..experiments.sweep_cluster import KEEP_ENV
from .chapters import quick_profile
from .concurrent_runs import ALONE_IN_PROFILE, USES_EVERY_CORE, RunDied, run_all, usable_cores
from .execution_report import run_provenance, write_report
from .notebook_sources import (NOTEBOOK_DIR, NOTEBOOKS, PairMismatch, ParameterError, check_paired,
                               notebook_source, reads_summaries, writes_summary)
from .run_parameters import (check_parameters, check_ranges, grid_points, parse_assignment, parse_grid,
                             parse_grid_spec, plain, point_folder)

# parameters overriding each notebook's ``parameters`` cell, per profile (the quick one declared with
# each chapter in lib.book.chapters)
PROFILES: dict[str, dict[str, dict]] = {"full": {}, "quick": quick_profile()}

EXECUTED_DIR = REPO_ROOT / "book" / "executed"
# one thread for the thread pools of a chapter that shares the cores (--jobs): the training kernel's and
# lib.core.parallel's (lib.core.parallel.available_workers reads $OMP_NUM_THREADS); a chapter that runs alone
# on every core keeps one thread per core. Decided per chapter, not by --jobs, so a chapter's numbers do not
# depend on it. (BLAS has one thread in every process that imports lib: lib.ONE_BLAS_THREAD.)
ONE_WORKER_THREAD = {"OMP_NUM_THREADS": "1"}
# run in one process before chapters start side by side: the training kernel compiled into Numba's cache once,
# not by every chapter (and Dask worker) that starts training at the same time (lib.core.training.compile_cpu_kernel)
COMPILE_KERNEL = "from lib.core.training import compile_cpu_kernel; compile_cpu_kernel()"
COMPILE_TIMEOUT_S = 600  # it takes about 20 s from a cold cache: a hung compile never holds up the build
CELL_TIMEOUT_S = 3600  # a cell running longer fails the notebook (the book's longest takes minutes): no silent hang
# a kernel that has not answered in this time fails its chapter; papermill's default, 60 s, is too short for a
# background (niced) kernel starting while the foreground runs fill every core: it gets a few percent of a core
KERNEL_START_TIMEOUT_S = 1800
QUICK_DIR = REPO_ROOT / "_build" / "quick"
ENV_PROFILE, ENV_SUMMARY, ENV_STAGING, ENV_KEY, ENV_CHAPTER = (
    "REPRO_PROFILE", "REPRO_SUMMARY_DIR", "REPRO_SUMMARY_STAGING", "REPRO_EXECUTION_KEY", "REPRO_CHAPTER")
BOOK_SOURCES = ("_config.yml", "_toc.yml", "book")




@dataclass(frozen=True)
class ProfileLayout:
    """Where a profile's outputs go: executed notebooks, summary records, results cache."""

    executed: Path
    results: Path

    @property
    def summary(self) -> Path:
        return self.executed / "summary"


def profile_layout(profile: str, output_dir: Path | None = None) -> ProfileLayout:
    """The output folders of ``profile`` (``output_dir`` replaces the executed-notebook folder)."""
    if profile == "quick":
        return ProfileLayout(Path(output_dir or QUICK_DIR / "src" / "book" / "executed").absolute(),
                             QUICK_DIR / "results")
    return ProfileLayout(Path(output_dir or EXECUTED_DIR).absolute(), results_dir())


# ---------------------------------------------------------------- output folders


def within(folder: Path, parent: Path) -> bool:
    """Whether ``folder`` is ``parent`` or lies inside it, after resolving ``..`` and symbolic links."""
    resolved, root = Path(folder).resolve(), Path(parent).resolve()
    return resolved == root or root in resolved.parents


def inside(folder: Path, parent: Path) -> Path:
    """``folder`` resolved, if it lies inside ``parent`` (:func:`within`); else :class:`ParameterError`."""
    if not within(folder, parent):
        raise ParameterError(f"output folder {folder} would leave {parent}")
    return folder.resolve()


def check_output_dir(text: str, option: str = "--output-dir") -> Path:
    """The value of ``option`` (``--output-dir``, ``--results-dir``) as a folder that can be created and
    written: not empty, not an existing file, not under a file or a dangling symbolic link, its nearest
    existing folder writable."""
    if not text.strip():
        raise ParameterError(f"{option} must name a folder, got {text!r} (leave the option out for the "
                             "profile's own folder)")
    if "\0" in text:
        raise ParameterError(f"{option} must be a path without NUL characters, got {text!r}")
    folder = Path(text)
    try:
        candidate = folder.absolute()
        for path in (candidate, *candidate.parents):
            if path.is_symlink() and not path.exists():
                raise ParameterError(f"{option} {text!r}: {path} is a dangling or looping symbolic link")
            if path.exists():
                if not path.is_dir():
                    what = "is" if path == candidate else f"lies under {path}, which is"
                    raise ParameterError(f"{option} {text!r} {what} an existing file, not a folder")
                if not os.access(path, os.W_OK | os.X_OK):
                    raise ParameterError(f"{option} {text!r}: {path} is not writable")
                break
        folder.resolve()
    except ParameterError:
        raise
    except (OSError, RuntimeError, ValueError) as err:  # e.g. a name too long, a symbolic link loop
        raise ParameterError(f"{option} {text!r} is not a usable folder ({err})") from None
    return folder


def check_book_untouched(folders, profile: str, overrides: bool) -> None:
    """Refuse (:class:`ParameterError`) any output folder that is, or lies inside, the book's executed
    folder :data:`EXECUTED_DIR` (after resolving ``..`` and symbolic links), except that folder
    itself for the ``full`` profile at the book's own parameters (``overrides`` false: no -p, no grid);
    and the notebooks' own folder, where an executed notebook would replace its paired source."""
    book = EXECUTED_DIR.resolve()
    for folder in folders:
        resolved = Path(folder).resolve()
        if resolved == NOTEBOOK_DIR.resolve():
            raise ParameterError(f"refusing to write into {NOTEBOOK_DIR} (output folder {folder}): executed notebooks "
                                 "would replace the paired sources notebooks/*.ipynb; give another --output-dir")
        if not within(resolved, book):
            continue
        if resolved == book and profile == "full" and not overrides:
            continue
        where = "is" if resolved == book else "lies inside"
        why = (f"the {profile} profile" if profile != "full" else
               "parameters other than the book's (-p/--grid)" if resolved == book else "a sub-folder")
        raise ParameterError(f"refusing to write into the published book: output folder {folder} {where} "
                             f"{EXECUTED_DIR} ({why}); only --profile full without -p/--grid writes there, "
                             "give another --output-dir")


# ---------------------------------------------------------------- execution


def execution_key(name: str, parameters: dict, profile: str = "full", summary_dir: Path | None = None) -> str:
    """Hash of everything an executed notebook depends on: its source, the parameters and profile,
    the code (``lib/`` and requirements, :func:`lib.core.results.code_digest`), the conditions its
    kernel computes under (:func:`lib.core.cache_key.new_process_conditions`: float width, Numba
    target, CPU, numeric environment) and, for a notebook that reads summary records, the records it reads."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"parameters": plain(parameters), "profile": profile}, sort_keys=True).encode())
    digest.update(code_digest().encode())
    digest.update(conditions_digest(new_process_conditions()).encode())
    digest.update(notebook_source(name).read_bytes())
    if reads_summaries(name) and summary_dir is not None:
        for record in sorted(Path(summary_dir).glob("*.json")):
            if record.stem != name:
                digest.update(record.name.encode() + b"\0" + record.read_bytes())
    return digest.hexdigest()[:20]


def up_to_date(name: str, output: Path, key: str, summary_dir: Path) -> bool:
    """Whether ``output`` was executed with ``key`` and the summary record it writes (if any) came
    from that same execution."""
    import nbformat

    if not output.exists():
        return False
    try:
        recorded = nbformat.read(output, as_version=4).metadata.get("repro", {}).get("execution_key")
    except (OSError, ValueError):
        return False
    if recorded != key:
        return False
    if not writes_summary(name):
        return True
    from .page_outputs import verified

    try:
        return verified(summary_dir / f"{name}.json").get("execution_key") == key
    except (OSError, ValueError):  # missing, damaged, edited or not this run's record: run again
        return False


def stage_book_sources(destination: Path) -> None:
    """Copy the book's configuration and prose pages (not the executed notebooks) to ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    for item in BOOK_SOURCES:
        source, target = REPO_ROOT / item, destination / item
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("executed", "__pycache__"))
        else:
            shutil.copy2(source, target)


class NotebookFailed(RuntimeError):
    """A cell raised; the message names the notebook, the error and where the failed copy is."""


def _failure_message(name: str, err: Exception, failed_copy: Path) -> str:
    ename, evalue = getattr(err, "ename", type(err).__name__), getattr(err, "evalue", str(err))
    return f"{name} failed: {ename}: {evalue}\n(the previous output is untouched; the failed run is in {failed_copy})"


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname()) or "host"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_dead_runs(output_dir: Path, name: str) -> list[Path]:
    """Remove the scratch folders ``.run-<name>-<host>-<pid>-*`` of ``output_dir`` whose run, on this host,
    is no longer alive (and those without a host and pid); returns them. Another chapter's folders, and
    those of live runs or of other hosts, are left alone."""
    removed = []
    for folder in sorted(Path(output_dir).glob(f".run-{name}-*")):
        host, _, rest = folder.name[len(f".run-{name}-"):].partition("-")
        pid = rest.partition("-")[0]
        if folder.is_dir() and (not pid.isdigit() or (host == _host() and not _alive(int(pid)))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _report_run_notices(name: str, notices: list[str]) -> None:
    """Put in the runner's log what ``name``'s tools said about how its run went (taken off the page):
    what the sweeps found cached, slow workers, waits for cache entries another process computed."""
    from .page_outputs import lock_wait_line

    for notice in notices:
        if lock_wait_line(notice):
            print(f"[runner] {name} waited for a results-cache entry another process was computing and then used "
                  f"its result (not an error, and not shown on the page): {notice}", flush=True)
        else:
            print(f"[runner] {name} (not shown on the page): {notice}", flush=True)


def execute(name: str, parameters: dict, output_dir: Path, force: bool = False, profile: str = "full",
            results: Path | None = None, allow_large: bool = False, progress_bar: bool = True) -> Path:
    """Run ``notebooks/<name>.py`` with ``parameters`` into ``output_dir/<name>.ipynb`` (atomically),
    unless that file was already executed from the same inputs (see :func:`execution_key`);
    ``progress_bar``: papermill's bar of cells on stderr."""
    import jupytext
    import nbformat
    import papermill

    from .kernel_manager import QuietKernelManager
    from .page_outputs import (mark_if_changed, record_digest, run_notices, without_run_notices,
                               without_progress_bars, without_widget_state)

    check_paired(notebook_source(name))
    parameters = check_parameters(name, parameters)
    check_book_untouched([output_dir], profile, overrides=bool(parameters))
    output_dir = Path(output_dir).absolute()
    summary_dir = output_dir / "summary"
    output = output_dir / f"{name}.ipynb"
    key = execution_key(name, parameters, profile, summary_dir)
    if not force and up_to_date(name, output, key, summary_dir):
        print(f"[runner] {name}: up to date (same source, parameters, code and inputs)", flush=True)
        mark_if_changed(output)
        return output
    output_dir.mkdir(parents=True, exist_ok=True)
    summary_dir.mkdir(parents=True, exist_ok=True)
    remove_dead_runs(output_dir, name)
    failed_copy = output_dir / f"{name}.failed.ipynb"
    with tempfile.TemporaryDirectory(dir=output_dir, prefix=f".run-{name}-{_host()}-{os.getpid()}-") as tmp:
        unexecuted, executed_tmp, staged_summary = Path(tmp) / "in.ipynb", Path(tmp) / "out.ipynb", Path(tmp) / "summary"
        jupytext.write(jupytext.read(notebook_source(name)), unexecuted)
        kernel_env = {ENV_CHAPTER: name, ENV_SUMMARY: str(summary_dir), ENV_STAGING: str(staged_summary),
                      ENV_PROFILE: profile, ENV_KEY: key, KEEP_ENV: "1",  # one local Dask cluster per chapter
                      ALLOW_LARGE_ENV: "1" if allow_large else "0",
                      **({} if name in USES_EVERY_CORE else ONE_WORKER_THREAD),
                      **({RESULTS_ENV: str(Path(results).absolute())} if results is not None else {})}
        saved_env = {k: os.environ.get(k) for k in kernel_env}
        os.environ.update(kernel_env)  # inherited by the kernel
        started, clock = time.time(), time.perf_counter()
        try:
            papermill.execute_notebook(str(unexecuted), str(executed_tmp), parameters=parameters,
                                       kernel_name="python3", cwd=str(NOTEBOOK_DIR), progress_bar=progress_bar,
                                       execution_timeout=CELL_TIMEOUT_S, start_timeout=KERNEL_START_TIMEOUT_S,
                                       kernel_manager_class=QuietKernelManager)
        except Exception as err:
            if executed_tmp.exists():
                os.replace(executed_tmp, failed_copy)
            raise NotebookFailed(_failure_message(name, err, failed_copy)) from err
        finally:
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        wall_time_s = time.perf_counter() - clock
        executed = nbformat.read(executed_tmp, as_version=4)
        _report_run_notices(name, run_notices(executed))
        executed = without_widget_state(without_run_notices(without_progress_bars(executed)))
        records = sorted(staged_summary.glob("*.json")) if staged_summary.exists() else []
        if writes_summary(name) and not records:
            raise NotebookFailed(f"{name} ran but wrote no summary record; the previous output is untouched")
        executed.metadata["repro"] = {"execution_key": key, "parameters": parameters, "profile": profile,
                                      "summary_sha256": {r.stem: record_digest(json.loads(r.read_text()))
                                                         for r in records},
                                      "run": run_provenance(started, wall_time_s)}
        nbformat.write(executed, executed_tmp)
        for record in records:  # the record first: an output without its record is re-run, never trusted
            os.replace(record, summary_dir / record.name)
        os.replace(executed_tmp, output)
    failed_copy.unlink(missing_ok=True)
    mark_if_changed(output)
    return output


# ---------------------------------------------------------------- command line


def plan_runs(args: argparse.Namespace, layout: ProfileLayout) -> list[tuple[str, dict, Path]]:
    """Every (notebook, parameters, output folder) to run, all checked before the first kernel starts."""
    grids = [parse_grid(g) for g in args.grid] + (parse_grid_spec(args.grid_spec) if args.grid_spec else [])
    points = grid_points(grids)
    assignments = [parse_assignment(p) for p in args.parameter]
    overrides = dict(assignments)
    repeated = sorted({n for n, _ in assignments if [m for m, _ in assignments].count(n) > 1})
    if repeated:
        raise ParameterError(f"parameter {', '.join(repeated)} given more than once with -p")
    both = sorted(set(overrides) & {n for n, _ in grids})
    if both:
        raise ParameterError(f"parameter {', '.join(both)} given both with -p and as a grid")
    for name in dict.fromkeys(args.only or NOTEBOOKS):
        check_paired(notebook_source(name))
    runs = []
    for point in points:
        output_dir = inside(layout.executed / point_folder(point), layout.executed) if grids else layout.executed
        for name in sorted(dict.fromkeys(args.only), key=NOTEBOOKS.index) if args.only else NOTEBOOKS:
            parameters = {**PROFILES[args.profile].get(name, {}), **overrides, **point}
            runs.append((name, check_parameters(name, parameters), output_dir))
    return runs


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are a :class:`ParameterError` (one line from :func:`main`), not usage + exit."""

    def error(self, message: str):
        raise ParameterError(message)


def compile_kernel_first() -> None:
    """Compile the training kernel into Numba's on-disk cache in one process (:data:`COMPILE_KERNEL`),
    before chapters start side by side and each loads it; a failure is reported, not fatal (each
    chapter then compiles the kernel itself, and reports its own error if it cannot), and so is a
    compile that takes longer than :data:`COMPILE_TIMEOUT_S`."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", COMPILE_KERNEL], cwd=REPO_ROOT, capture_output=True, text=True,
                              timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"[runner] compiling the training kernel first took over {COMPILE_TIMEOUT_S} s; each chapter compiles "
              "it", flush=True)
        return
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"[runner] could not compile the training kernel first (each chapter compiles it): {last}", flush=True)
    else:
        print(f"[runner] training kernel compiled (or loaded from Numba's cache) in "
              f"{time.perf_counter() - started:.1f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(description="Execute the book's notebooks with papermill.")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full")
    parser.add_argument("--only", nargs="+", choices=NOTEBOOKS, help="run only these notebooks")
    parser.add_argument("-p", "--parameter", action="append", default=[],
                        help="override a parameter: name=value, value a Python literal (repeatable)")
    parser.add_argument("--grid", action="append", default=[],
                        help="sweep a parameter: name=v1,v2,... (repeatable; the cartesian product is run, "
                             "each point into its own sub-folder of --output-dir)")
    parser.add_argument("--grid-spec", default="", help="several grids in one string: \"seed=0,1 schedule=ET,LR\"")
    parser.add_argument("--output-dir", default=None,
                        help="where executed notebooks go (default: the profile's book folder; never the published "
                             "book/executed except for --profile full without -p/--grid)")
    parser.add_argument("--results-dir", default=None,
                        help="the results cache to read and fill (default: the profile's: $REPRO_RESULTS_DIR or results/ "
                             "for full, _build/quick/results for quick)")
    parser.add_argument("--force", action="store_true", help="execute even notebooks that are up to date")
    parser.add_argument("--jobs", type=int, default=1,
                        help="notebooks run side by side, each in its own process (0: one per usable core; in the full "
                             "profile, chapters whose Dask sweeps keep every core busy run alone; see "
                             "lib.book.concurrent_runs); "
                             "default 1: in order")
    parser.add_argument("--allow-large", action="store_true",
                        help="run sizes and iteration counts above the notebooks' sane bounds (may take days)")
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as done:  # --help
            return done.code if isinstance(done.code, int) else 0
        if args.jobs < 0:
            raise ParameterError(f"--jobs must be an integer >= 1, or 0 for one per usable core; got {args.jobs}")
        check_cpu_features()  # $NUMBA_CPU_FEATURES, which every notebook's kernel inherits
        output_dir = check_output_dir(args.output_dir) if args.output_dir is not None else None
        results_folder = check_output_dir(args.results_dir, "--results-dir") if args.results_dir is not None else None
        layout = profile_layout(args.profile, output_dir)
        if (args.grid or args.grid_spec) and \
                layout.executed.resolve() == profile_layout(args.profile).executed.resolve():
            raise ParameterError("a grid needs an --output-dir of its own (sweeps never overwrite the book)")
        runs = plan_runs(args, layout)  # parameter names and types
        overrides = bool(args.parameter or args.grid or args.grid_spec)
        check_book_untouched([layout.executed, *sorted({folder for _, _, folder in runs})], args.profile, overrides)
        check_ranges(runs, args.allow_large)
        resolve_results_env()
    except (ParameterError, CacheError, ValueError) as err:
        print(f"[runner] error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:
        print(f"[runner] error: {err}", file=sys.stderr)
        return 1
    results = results_folder or (layout.results if args.profile != "full" else None)
    if args.profile == "quick" and output_dir is None:
        stage_book_sources(QUICK_DIR / "src")
    jobs = max(1, min(args.jobs or usable_cores(), len(runs)))
    run_one = functools.partial(execute, force=args.force, profile=args.profile, results=results,
                                allow_large=args.allow_large, **({} if jobs == 1 else {"progress_bar": False}))
    start, build_started = time.perf_counter(), time.time()
    if jobs > 1:
        compile_kernel_first()
    times, errors = run_all(runs, run_one, jobs, report=lambda line: print(line, flush=True),
                           alone=ALONE_IN_PROFILE[args.profile])
    for err in errors:
        known = isinstance(err, (ParameterError, NotebookFailed, PairMismatch, RunDied))
        print(f"[runner] error: {err}" if known else "[runner] error:\n" + "".join(traceback.format_exception(err)),
              file=sys.stderr)
    if errors:
        return 2 if any(isinstance(err, (ParameterError, PairMismatch)) for err in errors) else 1
    print("[runner] time per notebook: " + ", ".join(f"{n} {s:.0f} s" for n, _, s in times), flush=True)
    for folder in sorted({folder for _, _, folder in runs}):
        print(f"[runner] execution report: {write_report(folder, NOTEBOOKS, build_started)}", flush=True)
    print(f"[runner] all notebooks executed in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
