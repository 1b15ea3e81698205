"""Headline numbers of every chapter, saved where they are computed, for the summary page.

Each chapter notebook ends by calling :func:`record` with its rows (the paper's value, ours,
an interval and whether they agree by a stated criterion). A row that judges one of the paper's
claims (:data:`lib.experiments.paper.CLAIMS`) also names the ``claim``, a ``verdict`` (one of
:data:`VERDICTS`, decided in the notebook from the saved numbers by the stated criterion), the
``control`` that could have failed it and the ``evidence`` (a MyST reference to the figure or
table, see :func:`evidence`). The verdicts page reads all records with :func:`load`, so it is
generated from saved results and shows the parameters each chapter ran with.

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
from typing import Any, NamedTuple

from ..core.results import _jsonable, results_dir

COLUMNS = ("chapter", "quantity", "paper", "ours", "interval", "agrees", "criterion")
VERDICTS = ("reproduced", "reproduced with qualification", "not reproduced", "not tested")


def summary_dir() -> Path:
    return Path(os.environ.get("REPRO_SUMMARY_DIR", results_dir() / "summary"))


def profile() -> str:
    """The profile this kernel runs under (set by the runner), ``interactive`` otherwise."""
    return os.environ.get("REPRO_PROFILE", "interactive")


class Verdict(NamedTuple):
    """A verdict (one of :data:`VERDICTS`) and, for "reproduced with qualification", the qualification
    (for "not tested", optionally the reason)."""

    verdict: str
    qualification: str = ""


def verdict_of(holds: bool, qualification: str | None = None) -> Verdict:
    """"reproduced" if ``holds`` (or "reproduced with qualification" when a ``qualification`` applies),
    else "not reproduced"."""
    if not holds:
        return Verdict("not reproduced")
    return Verdict("reproduced with qualification", qualification) if qualification else Verdict("reproduced")


def row(quantity: str, paper: Any, ours: Any, agrees: bool | None, criterion: str, interval: str = "", *,
        claim: str | None = None, verdict: Verdict | str | None = None, control: str = "", evidence: str = "") -> dict:
    """One comparison. ``agrees`` is None where there is nothing to agree with (a new number).

    A row judging a claim of the paper names it (``claim``, a key of :data:`lib.experiments.paper.CLAIMS`)
    with its ``verdict`` (from :func:`verdict_of`, or "not tested"), the ``control`` that could
    have failed it and the ``evidence`` (from :func:`evidence`)."""
    out = {"quantity": quantity, "paper": paper, "ours": ours, "interval": interval,
           "agrees": None if agrees is None else bool(agrees), "criterion": criterion}
    if claim is not None or verdict is not None:
        from ..experiments.paper import CLAIMS

        if claim not in CLAIMS:
            raise ValueError(f"claim must be one of {sorted(CLAIMS)}, got {claim!r}")
        verdict = Verdict(verdict) if isinstance(verdict, str) else verdict
        if not isinstance(verdict, Verdict) or verdict.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {list(VERDICTS)}, got {verdict!r}")
        needs = {"reproduced with qualification": True, "reproduced": False, "not reproduced": False}
        if needs.get(verdict.verdict, bool(verdict.qualification)) != bool(verdict.qualification):
            raise ValueError(f"a qualification is required for 'reproduced with qualification' (a reason for 'not "
                             f"tested') and not allowed otherwise, got {verdict!r}")
        out |= {"claim": claim, "verdict": verdict.verdict, "qualification": verdict.qualification,
                "control": control, "evidence": evidence}
    return out


def evidence(label: str, text: str) -> str:
    """A MyST reference to the figure or table ``label`` (a figure's ``name`` or a ``(label)=``
    target) shown as ``text``; the book build (``-W``) fails on a label that does not exist."""
    if not label or any(c in label + text for c in "`<>"):
        raise ValueError(f"label and text must be non-empty and free of backticks and angle brackets, got "
                         f"{label!r}, {text!r}")
    return f"{{ref}}`{text} <{label}>`"


def record(chapter: str, parameters: dict, rows: list[dict]) -> Path:
    """Write a chapter's rows (overwriting its previous record)."""
    for r in rows:
        missing = set(COLUMNS) - {"chapter"} - set(r)
        if missing:
            raise ValueError(f"summary row {r!r} lacks {sorted(missing)}; build rows with lib.book.summary.row")
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
                         "re-run the chapters with one profile (python -m lib.book.runner --profile ...)")
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


def claim_verdicts(rows: list[dict], chapters: list[str]) -> list[dict]:
    """One entry per claim of :data:`lib.experiments.paper.CLAIMS`, in the paper's order, from loaded ``rows``.

    A claim's entry is its recorded row (verdict, paper, ours, control, evidence, criterion) with
    the claim's section, figure and text; a claim no chapter tests is "not tested" with the reason
    the registry gives, and a claim whose chapter is not among ``chapters`` is "not tested" (not
    in this build). A chapter that ran but recorded no row, or two rows, for one of its claims is
    an error naming them: every claim gets exactly one verdict."""
    from ..experiments.paper import CLAIMS

    recorded: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("claim"):
            recorded.setdefault(r["claim"], []).append(r)
    unknown = sorted(set(recorded) - set(CLAIMS))
    twice = sorted(c for c, rs in recorded.items() if len(rs) > 1)
    missing = sorted(c for c, claim in CLAIMS.items()
                     if claim.chapter in chapters and not claim.untested and c not in recorded)
    if unknown or twice or missing:
        raise ValueError(f"claim records inconsistent: unknown {unknown}, recorded twice {twice}, "
                         f"missing from chapters that ran {missing}")
    out = []
    for key, claim in CLAIMS.items():
        entry = {"claim": key, "section": claim.section, "figure": claim.figure, "text": claim.text,
                 "chapter": claim.chapter}
        if key in recorded:
            r = recorded[key][0]
            entry |= {k: r.get(k, "") for k in ("verdict", "qualification", "paper", "ours", "control", "evidence",
                                                 "criterion", "interval")}
        else:
            reason = claim.untested or f"{claim.chapter} is not part of this build"
            entry |= {"verdict": "not tested", "qualification": reason, "paper": "", "ours": "", "control": "",
                      "evidence": "", "criterion": "", "interval": ""}
        out.append(entry)
    return out
