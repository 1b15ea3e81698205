"""The verdicts page as Markdown: the tally, one entry per claim and the other numbers of a build.

Fed by :func:`lib.book.summary.claim_verdicts` (entries) and :func:`lib.book.summary.load` (rows);
chapter 07 displays what these functions return. An entry gives the verdict, the criterion it was
judged by, our number beside the paper's, the control, the evidence, and when the criterion was
declared relative to its data (:mod:`lib.analyses.claim_provenance`); a changed criterion shows
every earlier version's verdict, and a claim with a replication block (:mod:`lib.analyses.replication`)
that block's verdict and whether it agrees. The tally counts a claim with a replication block under
the criterion in force (declared before that block existed): its verdict when both blocks give it,
"does not replicate" otherwise; every other claim under its latest version that is not post hoc,
and counts apart the claims whose every version is post hoc.
"""

from __future__ import annotations

from typing import Any

from ..analyses.claims import VERDICTS
from ..analyses.replication import DOES_NOT_REPLICATE
from .names import VERDICT_SYMBOLS
from .notebook_sources import chapter_title

HOLDS = {None: "", True: "\u2714 holds", False: "\u2718 does not hold"}
POST_HOC_ONLY = "post hoc only"  # the tally's column for claims whose every version is post hoc
DECLARED_WORDS = {"before the data": "declared before its numbers existed",
                  "with the data": "declared with its numbers (the same commit, or after part of them was shown)",
                  "post hoc": "POST HOC: declared after its numbers had been shown"}


def text(value: Any) -> str:
    """``value`` as one line of text."""
    return str(value).replace("\n", " ").strip()


def verdict_text(verdict: str, qualification: str, stability: str = "") -> str:
    """The verdict with its symbol, in bold, the seed count of a borderline one and the qualification."""
    out = f"{VERDICT_SYMBOLS[verdict]} **{verdict}**"
    if verdict == "borderline" and stability:
        out += f" ({stability})"
    return out + (f": {text(qualification)}" if qualification else "")


def one_draw_text(entry: dict) -> str:
    """Where the verdict rests on a seeded resampling (permutation, sign-flip or bootstrap draws) and
    the chapter's first draw alone (seed 0, the draw it shows), as the claim was judged before every
    draw was, gives another verdict: one sentence (no final stop) saying which verdict counts and
    what that draw gives; "" otherwise."""
    if not entry.get("one_draw"):
        return ""
    return (f"The verdict that counts is the commonest over 20 resampling draws; the chapter's first draw alone "
            f"(seed 0), as this claim was judged before every draw was, gives "
            f"{VERDICT_SYMBOLS[entry['one_draw']]} {entry['one_draw']}")


def with_intervals(ours: str, interval: str) -> str:
    """Each part of ``ours`` ("a x; b y") beside its own interval ("a [..]; b [..]") when both have
    the same parts, else the two side by side."""
    parts, bounds = text(ours).split("; "), text(interval).split("; ")
    if not interval or len(parts) != len(bounds):
        return text(ours) + (f" {text(interval)}" if interval else "")
    out = []
    for part, bound in zip(parts, bounds):
        words, bound_words = part.split(" "), bound.split(" ")
        shared = next((i for i, (a, b) in enumerate(zip(words, bound_words)) if a != b), len(bound_words))
        out.append(" ".join(words + bound_words[shared:]))  # the label the two share, once
    return "; ".join(out)


def number_text(entry: dict) -> str:
    """"paper: .. · ours: .. (n = .., same verdict under k/20 resampling seeds)"."""
    ours = with_intervals(entry["ours"], entry.get("interval", ""))
    paper = text(entry["paper"])
    extra = [f"n = {entry['n']}" if entry.get("n") else "",
             f"same verdict under {entry['stability']} resampling seeds" if entry.get("stability") else ""]
    extra = "; ".join(e for e in extra if e)
    return f"paper: {paper or '–'} · ours: {ours or '–'}" + (f" ({extra})" if extra else "")


def declared_text(version: dict) -> str:
    """When a criterion version was declared relative to its data, with the commits; "" if unknown."""
    if not version.get("status"):
        return ""
    shown = version.get("data_shown", "")
    when = f"at {version['declared']}" + (f"; its numbers first shown at {shown}" if shown and shown != "after" else "")
    return f"{DECLARED_WORDS[version['status']]} ({when})"


def uncounted_reason(e: dict) -> str:
    """Why a claim counts under no version (``counted_version`` None): each version is post hoc or,
    declared before its numbers, judges another quantity than the claim (its ``not_a_test``)."""
    versions = [*e["earlier"], e]
    if not any(v.get("not_a_test") for v in versions):
        return "every version of this criterion is post hoc."
    return "no version declared before its numbers tests this claim: " + "; ".join(
        f"version {v['version']} " + (f"does not test it ({text(v['not_a_test'])})" if v.get("not_a_test")
                                      else "is post hoc") for v in versions) + "."


def entry_lines(number: int, e: dict) -> list[str]:
    """The numbered Markdown list item of one claim entry (a target ``verdict-<claim>`` above it)."""
    where = e["section"] + (f", {e['figure']}" if e["figure"] else "")
    lines = [f"(verdict-{e['claim']})=", f"{number}. **{text(e['text'])}** ({where})", "",
             f"   {verdict_text(e['verdict'], e['qualification'], e.get('stability', ''))}", ""]
    if e.get("one_draw"):
        lines += [f"   *{one_draw_text(e)}*", ""]
    if e.get("replication"):
        pass  # its replication line says how it counts
    elif e.get("status") == "post hoc" and e.get("counted_version") is not None:
        lines += [f"   *Counted in the tally under version {e['counted_version']}, the latest declared before its "
                  f"numbers:* {verdict_text(e['counted_verdict'], '')}", ""]
    elif e.get("status") == "post hoc" or e.get("not_a_test"):
        lines += [f"   *Not counted in the tally: {uncounted_reason(e)}*", ""]
    if e["criterion"]:
        version = f" (version {e['version']})" if e["earlier"] else ""
        lines += [f"   - *Criterion{version}:* {text(e['criterion'])}"]
        if declared_text(e):
            lines += [f"   - *Declared:* {declared_text(e)}"]
    if e["ours"] or e["paper"]:
        lines += [f"   - {number_text(e)}"]
    if e.get("replication"):
        lines += [f"   - {replication_text(e)}"]
    if e["control"]:
        lines += [f"   - *Control:* {text(e['control'])}"]
    if e["evidence"]:
        lines += [f"   - *Evidence:* {e['evidence']}"]
    for old in e["earlier"]:
        declared = declared_text(old)
        in_force = f", last in force at commit `{old['commit']}`" if old.get("commit") else ""
        lines += [f"   - *Earlier criterion, version {old['version']}*" + (f" ({declared}{in_force})" if declared
                                                                              or in_force else "")
                  + f": {text(old['criterion'])} — {verdict_text(old['verdict'], old['qualification'], old['stability'])}"
                  f" (ours: {text(old['ours'])}{' ' + text(old['interval']) if old['interval'] else ''}). "
                  + (f"{one_draw_text(old)}. " if old.get("one_draw") else "")
                  + f"*Replaced because:* {text(old['replaced_because'])}"]
    return lines + [""]


def replication_text(e: dict) -> str:
    """The replication block's line of an entry: whether the verdict replicates, the block's
    verdict and numbers, its seeds and the precision both blocks reached."""
    r = e["replication"]
    mark = "\u2714 replicates" if r["status"] != DOES_NOT_REPLICATE else f"{VERDICT_SYMBOLS[DOES_NOT_REPLICATE]} " \
                                                                          f"**{DOES_NOT_REPLICATE}**"
    return (f"*Replication block* ({text(r['block'])}; the criterion in force was declared before these networks "
            f"were trained): {mark} — {verdict_text(r['verdict'], r['qualification'], r['stability'])} "
            f"(ours: {with_intervals(r['ours'], r['interval'])}; n = {r['n']})"
            + (f". {one_draw_text(r)}" if r.get("one_draw") else "")
            + (f". *Precision:* {text(r['precision'])}" if r.get("precision") else ""))


def replication_counts(verdicts: list[dict]) -> tuple[int, int]:
    """(claims with a replication block, those of them whose verdict replicates)."""
    blocks = [e["replication"] for e in verdicts if e.get("replication")]
    return len(blocks), sum(r["status"] != DOES_NOT_REPLICATE for r in blocks)


def quoted_verdict(e: dict) -> str:
    """A claim's verdict as the introduction quotes it: the verdict in force (the seed count of a
    borderline one, the qualification) and, when its criterion is post hoc, the verdict it is
    counted under (that of the latest version declared before its numbers) or that it is not
    counted."""
    out = e["verdict"] + (f" ({e['stability']})" if e["verdict"] == "borderline" else "") \
        + (f": {text(e['qualification'])}" if e["qualification"] else "")
    if e.get("replication"):
        r = e["replication"]
        return (f"{out} on the discovery block; {r['verdict']} on the replication block ({text(r['block'])}): "
                f"{'replicates' if r['status'] != DOES_NOT_REPLICATE else DOES_NOT_REPLICATE}")
    if e.get("status") != "post hoc":
        return out
    if e.get("counted_verdict") is None:
        return f"{out} (a post-hoc criterion; not counted in the tally)"
    return (f"{out} (a post-hoc criterion; counted in the tally under version {e['counted_version']}, declared "
            f"before its numbers: {e['counted_verdict']})")


def chapter_blocks(verdicts: list[dict]) -> list[str]:
    """One Markdown block per judging chapter: its title line and its numbered entries (numbering
    runs on across chapters)."""
    blocks, number = [], 0
    for chapter in dict.fromkeys(e["chapter"] for e in verdicts):
        lines = [f"**Judged in {{doc}}`{chapter}`**", ""]
        for e in (e for e in verdicts if e["chapter"] == chapter):
            number += 1
            lines += entry_lines(number, e)
        blocks.append("\n".join(lines))
    return blocks


def claim_index(verdicts: list[dict]) -> str:
    """Every claim in one line, grouped by the chapter that judges it: the counted verdict, the
    claim (a link to its entry) and, where it differs, the verdict of the version in force."""
    lines = []
    for chapter in dict.fromkeys(e["chapter"] for e in verdicts):
        lines += [f"**{chapter_title(chapter)}**", ""]
        for e in (e for e in verdicts if e["chapter"] == chapter):
            counted = e["counted_verdict"]
            shown = f"{VERDICT_SYMBOLS[counted]} {counted}" if counted else f"{POST_HOC_ONLY} (not counted)"
            if e.get("replication"):
                latest = f" (discovery block: {e['verdict']}; replication block: {e['replication']['verdict']})"
            elif counted and counted != e["verdict"]:
                latest = f" (version {e['version']}, post hoc: {e['verdict']})"
            else:
                latest = ""
            lines.append(f"- {shown}{latest}: {{ref}}`{text(e['text'])} <verdict-{e['claim']}>`")
        lines.append("")
    return "\n".join(lines)


KINDS = ("the paper's results", "the paper's Discussion", "related papers' claims", "beyond the paper")


def claim_kind(entry: dict) -> str:
    """Which of :data:`KINDS` a claim is, from where it is made: a result of the paper (its
    Sections and appendix), a speculation of its Discussion, a claim of a related paper (e.g. van
    Rossem & Saxe's), or the book's own."""
    section = entry["section"]
    if section.startswith("beyond the paper"):
        return KINDS[3]
    if "(Discussion)" in section:
        return KINDS[1]
    return KINDS[0] if section.startswith(("Sec", "App")) else KINDS[2]


def kind_counts(verdicts: list[dict]) -> dict[str, int]:
    """How many claims of each of :data:`KINDS`."""
    return {kind: sum(claim_kind(e) == kind for e in verdicts) for kind in KINDS}


TALLY_TITLE = "The tally: claims per verdict, each counted under its latest criterion declared before its numbers"


def tally_table(verdicts: list[dict]) -> str:
    """The tally as a Markdown table titled :data:`TALLY_TITLE` (a MyST ``table`` directive): per
    verdict, the claims of each of :data:`KINDS` counted under their latest version not declared
    post hoc, and a last row for the claims whose every version is post hoc (counted apart)."""
    def count(verdict: str | None, kind: str) -> int:
        return sum(e["counted_verdict"] == verdict for e in verdicts if claim_kind(e) == kind)

    def row(label: str, verdict: str | None) -> str:
        return f"| {label} | " + " | ".join(str(count(verdict, kind)) for kind in KINDS) + " |"

    lines = ["| verdict | " + " | ".join(KINDS) + " |", "|---" * (len(KINDS) + 1) + "|"]
    lines += [row(f"{VERDICT_SYMBOLS[v]} {v}", v) for v in (*VERDICTS, DOES_NOT_REPLICATE)]
    return "\n".join([f":::{{table}} {TALLY_TITLE}", *lines, row(f"{POST_HOC_ONLY} (not counted)", None), ":::"])


def _counted_words(verdict: str | None, n: int) -> str:
    """How the tally sentence names ``n`` claims counted under ``verdict`` (None: post hoc only)."""
    if verdict is None:
        return POST_HOC_ONLY + " (not counted)"
    return "do not replicate" if verdict == DOES_NOT_REPLICATE and n != 1 else verdict


def tally_sentence(verdicts: list[dict]) -> str:
    """The tally in one sentence per kind of claim, counted as :func:`tally_table` counts them
    (verdicts that no claim of a kind got are left out)."""
    parts = []
    for kind in KINDS:
        mine = [e for e in verdicts if claim_kind(e) == kind]
        if not mine:
            continue
        counts = [(v, sum(e["counted_verdict"] == v for e in mine)) for v in (*VERDICTS, DOES_NOT_REPLICATE, None)]
        words = ", ".join(f"{n} {_counted_words(v, n)}" for v, n in counts if n)
        parts.append(f"{kind} ({len(mine)} claim{'' if len(mine) == 1 else 's'}): {words}")
    return "; ".join(parts) + "."


def declaration_counts(verdicts: list[dict]) -> dict[str, int]:
    """How many criterion versions of the entries (current and earlier) were declared before, with
    and after (post hoc) their data."""
    versions = [v for e in verdicts for v in (*e["earlier"], e) if v.get("status")]
    return {status: sum(v["status"] == status for v in versions) for status in DECLARED_WORDS}


def number_line(r: dict) -> str:
    """One number of a chapter as a list item: the quantity, our value, the paper's and the criterion."""
    details = [f"paper: {text(r['paper'])}" if text(r["paper"]) else "",
               f"criterion: {text(r['criterion'])}" if text(r["criterion"]) else ""]
    details = "; ".join(d for d in details if d)
    holds = HOLDS[r["agrees"]]
    return (f"- **{text(r['quantity'])}**: {text(r['ours']) or '–'}" + (f" — {holds}" if holds else "")
            + (f" ({details})" if details else ""))


def number_cards(records: list[dict]) -> str:
    """The records grouped by chapter, one collapsible block per chapter (open), one list item per number."""
    blocks = []
    for chapter in dict.fromkeys(r["chapter"] for r in records):
        mine = [r for r in records if r["chapter"] == chapter]
        held = [r["agrees"] for r in mine if r["agrees"] is not None]
        title = f"{chapter_title(chapter)}: {len(mine)} numbers" + (f", {sum(held)} of {len(held)} criteria hold"
                                                                     if held else "")
        blocks += [f":::{{dropdown}} {title}", ":open:", "", f"From {{doc}}`{chapter}`.", "",
                   *[number_line(r) for r in mine], ":::", ""]
    return "\n".join(blocks)


def parameter_blocks(parameters: dict[str, dict]) -> str:
    """Each chapter's parameters of this build in a collapsible block."""
    return "\n".join(line for c, p in parameters.items() for line in (
        f":::{{dropdown}} {chapter_title(c)}", "", *[f"- `{k}` = `{v}`" for k, v in p.items()], ":::", ""))
