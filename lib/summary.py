"""Headline numbers of every chapter, saved where they are computed, for the summary page.

Each chapter notebook ends by calling :func:`record` with its rows (the paper's value, ours,
an interval and whether they agree by a stated criterion). The summary page reads all
records with :func:`load`, so the "paper vs this reproduction" table is generated from
saved results and shows the parameters each chapter ran with.

Records live in ``$REPRO_SUMMARY_DIR`` (the runner points it next to the executed notebooks)
or ``results/summary``.
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
    folder = summary_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{chapter}.json"
    payload = {"chapter": chapter, "parameters": parameters, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "rows": rows}
    path.write_text(json.dumps(payload, indent=2, default=_jsonable))
    return path


def load(chapters: list[str]) -> tuple[list[dict], dict[str, dict]]:
    """(rows with their chapter, chapter -> parameters) for ``chapters``, in that order;
    a missing record is an error naming the notebook to run."""
    rows, parameters = [], {}
    for chapter in chapters:
        path = summary_dir() / f"{chapter}.json"
        if not path.exists():
            raise FileNotFoundError(f"no summary record {path}: execute notebooks/{chapter}.py first")
        payload = json.loads(path.read_text())
        parameters[chapter] = payload["parameters"]
        rows += [{"chapter": chapter, **r} for r in payload["rows"]]
    return rows, parameters
