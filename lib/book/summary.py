"""Headline numbers of every chapter, saved where they are computed, for the summary page.

Each chapter notebook ends by calling :func:`record` with its rows. A claim of the registry
(:data:`lib.analyses.claims.CLAIMS`) gets a :func:`claim_row`: the verdict that
:func:`lib.analyses.claims.judge` gave under the criterion in force, the verdicts of its earlier
criterion versions, the ``control`` that could have failed it and the ``evidence`` (a MyST
reference to the figure or table, see :func:`evidence`). Other numbers get a :func:`row`. The verdicts page reads all records with :func:`load`, so it is
generated from saved results and shows the parameters each chapter ran with.

Records live in ``$REPRO_SUMMARY_DIR`` (the runner stages them per run and moves them next to
the executed notebooks only when the run succeeds) or ``results/summary``. Each record names
the profile (``$REPRO_PROFILE``: full, quick, or interactive outside the runner) and the
execution that wrote it; :func:`load` refuses to mix profiles on one page. Each record also
carries the SHA-256 of its own content (:func:`lib.book.page_outputs.record_digest`), and the
runner writes that digest into the executed chapter's metadata (``repro.summary_sha256``);
:func:`load` refuses a record whose content does not match its digest, or whose chapter, executed
beside the summary folder, was not the run that wrote it (:func:`lib.book.page_outputs.verified`),
so a hand-edited record is never published.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..analyses.claim_provenance import PROVENANCE, counts
from ..analyses.claims import CLAIMS, VERDICTS, Judgement, criterion
from ..analyses.replication import REPLICATES, replication_status
from ..core.results import _jsonable, results_dir
from .page_outputs import record_digest, verified

COLUMNS = ("chapter", "quantity", "paper", "ours", "interval", "agrees", "criterion")


def summary_dir() -> Path:
    return Path(os.environ.get("REPRO_SUMMARY_DIR", results_dir() / "summary"))


def profile() -> str:
    """The profile this kernel runs under (set by the runner), ``interactive`` otherwise."""
    return os.environ.get("REPRO_PROFILE", "interactive")


def row(quantity: str, paper: Any, ours: Any, agrees: bool | None, criterion: str, interval: str = "") -> dict:
    """One comparison that judges no claim (a check of our own code, a cost, a new number).
    ``agrees`` is None where there is nothing to agree with."""
    return {"quantity": quantity, "paper": paper, "ours": ours, "interval": interval,
            "agrees": None if agrees is None else bool(agrees), "criterion": criterion}


def _judgement_fields(j: Judgement) -> dict:
    return {"version": j.version, "verdict": j.verdict, "ours": j.ours, "interval": j.interval, "n": j.n,
            "qualification": j.qualification, "stability": j.stability, "criterion": j.criterion,
            "one_draw": j.one_draw}


def claim_row(quantity: str, paper: Any, judgement: Judgement, *, control: str, evidence: str,
              earlier: tuple[Judgement, ...] | list[Judgement] = (), replication: Judgement | None = None,
              replication_block: str = "", precision: str = "") -> dict:
    """The row of a claim of the registry (:data:`lib.analyses.claims.CLAIMS`): ``judgement`` from
    :func:`lib.analyses.claims.judge` under the criterion in force, and ``earlier``: the judgements of
    every earlier version of that criterion (the verdicts page shows them beside the current one),
    ``control``: what could have failed the claim, ``evidence``: a reference from :func:`evidence`.

    ``replication``: the same criterion's judgement on the claim's replication block
    (:mod:`lib.analyses.replication`), whose seeds ``replication_block`` names; ``precision``: the
    sentence of :func:`lib.analyses.replication.precision_note`. The row records whether the
    verdict replicates."""
    c = criterion(judgement.claim)
    if judgement.version != c.version:
        raise ValueError(f"judgement of {judgement.claim!r} must use the criterion in force (version {c.version}), "
                         f"got version {judgement.version}")
    if replication is not None and not replication_block:
        raise ValueError(f"replication_block must name the seeds of {judgement.claim!r}'s replication block")
    versions = [j.version for j in earlier]
    if any(j.claim != judgement.claim for j in earlier) or versions != list(range(1, c.version)):
        raise ValueError(f"earlier must hold the judgements of {judgement.claim!r} under versions "
                         f"{list(range(1, c.version))} in order (every changed criterion shows its old verdicts), got "
                         f"{[(j.claim, j.version) for j in earlier]}")
    history = {v.version: v for v in CLAIMS[judgement.claim].criteria}
    agrees = {"reproduced": True, "reproduced with qualification": True, "not reproduced": False}.get(judgement.verdict)
    return {"quantity": quantity, "paper": paper, "agrees": agrees, "claim": judgement.claim,
            **_judgement_fields(judgement), "control": control, "evidence": evidence,
            "earlier": [_judgement_fields(j) | {"commit": history[j.version].commit,
                                                "replaced_because": history[j.version + 1].reason}
                        for j in earlier],
            "replication": None if replication is None else {
                **_judgement_fields(replication), "block": replication_block, "precision": precision,
                "status": replication_status(judgement, replication)}}


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
    payload = json.loads(json.dumps({"chapter": chapter, "profile": profile(), "parameters": parameters,
                                     "execution_key": os.environ.get("REPRO_EXECUTION_KEY"),
                                     "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "rows": rows},
                                    default=_jsonable))  # as it will be read back
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({**payload, "sha256": record_digest(payload)}, indent=2))
    os.replace(tmp, path)
    return path


def load(chapters: list[str]) -> tuple[list[dict], dict[str, dict], str]:
    """(rows with their chapter, chapter -> parameters, profile) for ``chapters``, in that order.
    A missing record is an error naming the notebook to run, a record that is not what its
    chapter's run wrote a :class:`lib.book.page_outputs.RecordMismatch`; records of different profiles
    (e.g. a quick CI run beside paper-scale ones) are an error naming them."""
    rows, parameters, profiles = [], {}, {}
    for chapter in chapters:
        path = summary_dir() / f"{chapter}.json"
        if not path.exists():
            raise FileNotFoundError(f"no summary record {path}: execute notebooks/{chapter}.py first")
        payload = verified(path)
        parameters[chapter] = payload["parameters"]
        profiles[chapter] = payload.get("profile", "unknown")
        rows += [{"chapter": chapter, **r} for r in payload["rows"]]
    if len(set(profiles.values())) > 1:
        raise ValueError(f"summary records of different profiles cannot share a page: {profiles}; "
                         "re-run the chapters with one profile (python -m lib.book.runner --profile ...)")
    return rows, parameters, next(iter(profiles.values()))


class HeadlineCheckFailed(AssertionError):
    """A headline number at the paper-scale defaults left its expected range (a regression)."""


def ran_with(notebook: str, namespace: Mapping[str, Any]) -> dict:
    """Every parameter of ``notebooks/<notebook>.py``'s ``parameters`` cell with the value it has in
    ``namespace`` (the notebook's ``globals()``: the cell's defaults with papermill's overrides), in
    the cell's order: what :func:`check_headline` and :func:`record` take, each parameter named once,
    in its cell. A parameter missing from ``namespace`` is an error naming it."""
    from .notebook_sources import notebook_parameters

    names = list(notebook_parameters(notebook))
    missing = [name for name in names if name not in namespace]
    if missing:
        raise ValueError(f"namespace lacks parameters {missing} of {notebook}; pass the notebook's globals() "
                         "after its parameters cell ran")
    return {name: namespace[name] for name in names}


def check_headline(notebook: str, parameters: dict, quantity: str, value: float, low: float, high: float) -> bool:
    """Whether ``low <= value <= high``; a regression check only at the paper-scale defaults.

    ``parameters`` are all of the notebook's parameters as it ran. At the defaults of its
    ``parameters`` cell a value outside the range raises :class:`HeadlineCheckFailed` naming the
    quantity, value, range and parameters; under other parameters the number is reported (and
    the result returned), never asserted — other parameters may legitimately move it."""
    from .notebook_sources import notebook_parameters

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
    """One entry per claim of :data:`lib.analyses.claims.CLAIMS`, in the registry's order, from loaded ``rows``.

    A claim's entry is its recorded row (verdict, paper, ours, control, evidence, criterion) with
    the claim's section, figure and text; a claim no chapter tests is "not tested" with the reason
    the registry gives, and a claim whose chapter is not among ``chapters`` is "not tested" (not
    in this build). A chapter that ran but recorded no row, or two rows, for one of its claims is
    an error naming them: every claim gets exactly one verdict.

    Each entry, and each of its ``earlier`` versions, carries the version's provenance
    (:data:`lib.analyses.claim_provenance.PROVENANCE`: ``declared``, ``data_shown``, ``status``,
    ``history``).
    ``counted_verdict`` and ``counted_version`` are those of the latest version that is not post
    hoc and tests its claim, the one the tallies count (None when there is none)."""
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
                                                 "criterion", "interval", "version", "stability", "n",
                                                 "one_draw")}
            entry["earlier"] = r.get("earlier", [])
            entry["replication"] = r.get("replication")
        else:
            reason = claim.untested or f"{claim.chapter} is not part of this build"
            entry |= {"verdict": "not tested", "qualification": reason, "paper": "", "ours": "", "control": "",
                      "evidence": "", "criterion": claim.current.text if claim.criteria else "", "interval": "",
                      "version": claim.current.version if claim.criteria else "", "stability": "", "n": "",
                      "one_draw": "", "earlier": [], "replication": None}
        out.append(with_provenance(entry))
    return out


def _provenance(claim: str, version: Any) -> dict:
    """A version's provenance as entry fields (``history``: what the repository's history shows)."""
    found = PROVENANCE.get(f"{claim}@v{version}")
    if found is None:
        return {"declared": "", "data_shown": "", "status": "", "history": "", "not_a_test": ""}
    return {"declared": found.declared, "data_shown": found.data_shown, "status": found.status,
            "history": found.evidence, "not_a_test": found.not_a_test}


def with_provenance(entry: dict) -> dict:
    """``entry`` (of :func:`claim_verdicts`) with each version's provenance and the counted verdict.

    With a replication block, the criterion in force was declared before that block's networks
    existed, so it is the one counted: its verdict when both blocks give it, else "does not
    replicate" (:data:`lib.analyses.replication.DOES_NOT_REPLICATE`). Without one, the counted
    verdict is that of the latest version not declared post hoc and not marked as judging another
    quantity than its claim (``not_a_test``); None if there is none."""
    entry = {**entry, **_provenance(entry["claim"], entry["version"]),
             "earlier": [{**old, **_provenance(entry["claim"], old["version"])} for old in entry["earlier"]]}
    entry.setdefault("replication", None)
    if entry["replication"] is not None:
        status = entry["replication"]["status"]
        entry["counted_verdict"] = entry["verdict"] if status == REPLICATES else status
        entry["counted_version"] = entry["version"]
        return entry
    versions = [*entry["earlier"], entry]  # oldest first
    counted = [v for v in versions if counts(entry["claim"], v["version"])]
    entry["counted_verdict"] = counted[-1]["verdict"] if counted else None
    entry["counted_version"] = counted[-1]["version"] if counted else None
    return entry
