"""Headline numbers of every chapter, saved where they are computed, for the summary page.

Each chapter notebook ends by calling :func:`record` with its rows (the paper's value, ours,
an interval and whether they agree by a stated criterion). The summary page reads all
records with :func:`load`, so the "paper vs this reproduction" table is generated from
saved results and shows the parameters each chapter ran with.

Records live in ``$REPRO_SUMMARY_DIR`` (the runner stages them per run and moves them next to
the executed notebooks only when the run succeeds) or ``results/summary``. Each record names
the profile (``$REPRO_PROFILE``: full, quick, or interactive outside the runner) and the
execution that wrote it; :func:`load` refuses to mix profiles on one page.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from .results import _jsonable, results_dir

COLUMNS = ("chapter", "quantity", "paper", "ours", "interval", "agrees", "criterion")


def summary_dir() -> Path:
    return Path(os.environ.get("REPRO_SUMMARY_DIR", results_dir() / "summary"))


def profile() -> str:
    """The profile this kernel runs under (set by the runner), ``interactive`` otherwise."""
    return os.environ.get("REPRO_PROFILE", "interactive")


def row(quantity: str, paper: Any, ours: Any, agrees: bool | None, criterion: str, interval: str = "") -> dict:
    """One comparison. ``agrees`` is None where there is nothing to agree with (a new number)."""
    return {"quantity": quantity, "paper": paper, "ours": ours, "interval": interval,
            "agrees": None if agrees is None else bool(agrees), "criterion": criterion}


def record(chapter: str, parameters: dict, rows: list[dict]) -> Path:
    """Write a chapter's rows (overwriting its previous record)."""
    for r in rows:
        missing = set(COLUMNS) - {"chapter"} - set(r)
        if missing:
            raise ValueError(f"summary row {r!r} lacks {sorted(missing)}; build rows with lib.summary.row")
    folder = Path(os.environ.get("REPRO_SUMMARY_STAGING") or summary_dir())  # the runner stages a run's record
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{chapter}.json"
    payload = {"chapter": chapter, "profile": profile(), "parameters": parameters,
               "execution_key": os.environ.get("REPRO_EXECUTION_KEY"),
               "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "rows": rows}
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=_jsonable))
    os.replace(tmp, path)
    return path


def load(chapters: list[str]) -> tuple[list[dict], dict[str, dict], str]:
    """(rows with their chapter, chapter -> parameters, profile) for ``chapters``, in that order.
    A missing record is an error naming the notebook to run; records of different profiles
    (e.g. a quick CI run beside paper-scale ones) are an error naming them."""
    rows, parameters, profiles = [], {}, {}
    for chapter in chapters:
        path = summary_dir() / f"{chapter}.json"
        if not path.exists():
            raise FileNotFoundError(f"no summary record {path}: execute notebooks/{chapter}.py first")
        payload = json.loads(path.read_text())
        parameters[chapter] = payload["parameters"]
        profiles[chapter] = payload.get("profile", "unknown")
        rows += [{"chapter": chapter, **r} for r in payload["rows"]]
    if len(set(profiles.values())) > 1:
        raise ValueError(f"summary records of different profiles cannot share a page: {profiles}; "
                         "re-run the chapters with one profile (python -m lib.runner --profile ...)")
    return rows, parameters, next(iter(profiles.values()))


class HeadlineCheckFailed(AssertionError):
    """A headline number at the paper-scale defaults left its expected range (a regression)."""


def check_headline(notebook: str, parameters: dict, quantity: str, value: float, low: float, high: float) -> bool:
    """Whether ``low <= value <= high``; a regression check only at the paper-scale defaults.

    ``parameters`` are all of the notebook's parameters as it ran. At the defaults of its
    ``parameters`` cell a value outside the range raises :class:`HeadlineCheckFailed` naming the
    quantity, value, range and parameters; under other parameters the number is reported (and
    the result returned), never asserted — other parameters may legitimately move it."""
    from .runner import notebook_parameters

    defaults = notebook_parameters(notebook)
    if set(parameters) != set(defaults):
        raise ValueError(f"check_headline needs every parameter of {notebook} ({sorted(defaults)}), "
                         f"got {sorted(parameters)}")
    inside = bool(low <= value <= high)
    changed = {k: v for k, v in parameters.items() if _jsonable_equal(v, defaults[k]) is False}
    if not changed and not inside:
        raise HeadlineCheckFailed(f"{notebook}: {quantity} = {value:.4g}, expected in [{low}, {high}] at the "
                                  f"paper-scale defaults {parameters}; the code or its dependencies changed a "
                                  "headline number")
    if changed:
        print(f"[check] {quantity} = {value:.4g} (expected range [{low}, {high}] applies to the paper-scale "
              f"defaults; reported, not checked, under {changed})")
    return inside


def _jsonable_equal(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=_jsonable) == json.dumps(b, sort_keys=True, default=_jsonable)
