# ---
# jupyter:
#   chapter:
#     figures: 0
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: chapter
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Verdicts: which of the paper's claims hold
#
# One entry per claim of the paper — every claim of Sections 3-5 and of the appendix
# figures — and per claim the book makes beyond it, grouped by the chapter that judges it.
# Each entry gives the verdict, then the **criterion** it was judged by, then our number
# beside the paper's, the control that could have failed it, and a link to the evidence.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `chapters` | chapter notebooks whose records are collected, in order | list of notebook names |
# :::

# %% tags=["parameters"]
chapters = ["01_one_step_entk", "02_smg_validation", "03_epntk", "04_multitask_representations",
            "05_multitask_performance", "06_correlation_analysis", "08_entk_over_training",
            "10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories"]

# %% tags=["remove-cell"]
from lib.book.chapter_parameters import check_reproduction_summary

check_reproduction_summary(chapters)

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from lib.analyses.claims import VERDICTS
from lib.book import summary
from lib.book.names import VERDICT_SYMBOLS as SYMBOL

rows, parameters, profile = summary.load(chapters)
verdicts = summary.claim_verdicts(rows, chapters)
glue("summary_profile", profile, display=False)
counts = pd.Series([v["verdict"] for v in verdicts]).value_counts()
glue("count_claims", f"{len(verdicts)}", display=False)
glue("count_changed", f"{sum(bool(v['earlier']) for v in verdicts)}", display=False)
beyond = [v["section"].startswith("beyond the paper") for v in verdicts]
paper_counts = pd.Series([v["verdict"] for v, b in zip(verdicts, beyond) if not b]).value_counts()
beyond_counts = pd.Series([v["verdict"] for v, b in zip(verdicts, beyond) if b]).value_counts()
glue("count_paper", f"{len(verdicts) - sum(beyond)}", display=False)
glue("count_beyond", f"{sum(beyond)}", display=False)
display(Markdown("\n".join(["| verdict | claims of the paper | claims beyond the paper |", "|---|---|---|"] + [
    f"| {SYMBOL[v]} {v} | {int(paper_counts.get(v, 0))} | {int(beyond_counts.get(v, 0))} |" for v in VERDICTS])))

# %% [markdown]
# {glue:text}`count_paper` claims of the paper and {glue:text}`count_beyond` the book makes
# beyond it (applying the paper's tools where the paper did not); {glue:text}`count_changed` of them had their criterion
# changed, and show the verdict under each version. All entries come from one build profile,
# {glue:text}`summary_profile` (`full` is the paper scale; `quick` is the small test build,
# whose verdicts do not count).
#
# **Criteria are declared, versioned and kept.** Every criterion lives in the claims registry
# (`lib/analyses/claims.py`) with the quantity, the direction the claim expects, the
# statistical test, its threshold or margin and the smallest sample it accepts; verdicts are
# computed only from it, and a test (`tests/test_claims_registry.py`) fails when a declared
# criterion is changed without a new version. A criterion that was changed keeps its old
# version: the entry then shows the verdict under every version, why it changed, and the
# commit at which the old one was in force. Not every criterion was written before its data
# existed: the first versions were written alongside the ten-pair results, and the current
# versions of the 50-pair claims after those pairs had been trained (some of their numbers
# are quoted in the reasons). Written before their numbers were computed were the speed
# measure (version 3 of "large init acquires multitasking faster"), the paired test of large
# init's eNTK and the expected signs of the continuum chapter. A changed criterion is a
# reason to read both verdicts, not only the current one.
#
# Verdicts: **reproduced** (the criterion holds); **reproduced with qualification** (it
# holds, but a control or a caveat changes what it means — named); **not reproduced** (the
# criterion fails); **inconclusive** (the interval straddles the criterion's threshold: more
# data could decide); **borderline** (the verdict changes with the bootstrap seed: the count
# says under how many of 20 seeds the commonest verdict holds); **not discriminating** (the
# measure says the same in a negative control where the claim does not apply); **not
# tested** (with the reason).

# %% tags=["hide-input"]
def text(value) -> str:
    return str(value).replace("\n", " ").strip()


def verdict_text(verdict: str, qualification: str, stability: str = "") -> str:
    out = f"{SYMBOL[verdict]} **{verdict}**"
    if verdict == "borderline" and stability:
        out += f" ({stability})"
    return out + (f": {text(qualification)}" if qualification else "")


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


def number_text(entry) -> str:
    ours = with_intervals(entry["ours"], entry.get("interval", ""))
    paper = text(entry["paper"])
    extra = [f"n = {entry['n']}" if entry.get("n") else "",
             f"same verdict under {entry['stability']} bootstrap seeds" if entry.get("stability") else ""]
    extra = "; ".join(e for e in extra if e)
    return f"paper: {paper or '–'} · ours: {ours or '–'}" + (f" ({extra})" if extra else "")


def entry_lines(number: int, e: dict) -> list[str]:
    where = e["section"] + (f", {e['figure']}" if e["figure"] else "")
    lines = [f"(verdict-{e['claim']})=", f"{number}. **{text(e['text'])}** ({where})", "",
             f"   {verdict_text(e['verdict'], e['qualification'], e.get('stability', ''))}", ""]
    if e["criterion"]:
        version = f" (version {e['version']})" if e["earlier"] else ""
        lines += [f"   - *Criterion{version}:* {text(e['criterion'])}"]
    if e["ours"] or e["paper"]:
        lines += [f"   - {number_text(e)}"]
    if e["control"]:
        lines += [f"   - *Control:* {text(e['control'])}"]
    if e["evidence"]:
        lines += [f"   - *Evidence:* {e['evidence']}"]
    for old in e["earlier"]:
        lines += [f"   - *Earlier criterion, version {old['version']}* (in force at commit `{old['commit']}`): "
                  f"{text(old['criterion'])} — {verdict_text(old['verdict'], old['qualification'], old['stability'])}"
                  f" (ours: {text(old['ours'])}{' ' + text(old['interval']) if old['interval'] else ''}). "
                  f"*Replaced because:* {text(old['replaced_because'])}"]
    return lines + [""]


for e in verdicts:  # for the introduction: each finding quotes its verdict, with its qualification, from here
    glue(f"verdict_{e['claim']}", e["verdict"] + (f" ({e['stability']})" if e["verdict"] == "borderline" else "")
         + (f": {text(e['qualification'])}" if e["qualification"] else ""), display=False)
    glue(f"ours_{e['claim']}", text(e["ours"]), display=False)
    glue(f"ours_interval_{e['claim']}", with_intervals(e["ours"], e.get("interval", "")), display=False)

number = 0
for chapter in dict.fromkeys(e["chapter"] for e in verdicts):
    lines = [f"**Judged in {{doc}}`{chapter}`**", ""]
    for e in (e for e in verdicts if e["chapter"] == chapter):
        number += 1
        lines += entry_lines(number, e)
    display(Markdown("\n".join(lines)))

# %% [markdown]
# ## Other numbers of this build
#
# Numbers the reproduction chapters report that are not claims of the paper: checks of our
# own code against ground truth, and costs.

# %% tags=["hide-input"]
BEYOND = ("08_entk_over_training", "10_rich_lazy_continuum")


HOLDS = {None: "", True: "\u2714 holds", False: "\u2718 does not hold"}


def number_line(r) -> str:
    """One number of a chapter as a list item: the quantity, our value, the paper's and the criterion."""
    details = [f"paper: {text(r['paper'])}" if text(r["paper"]) else "",
               f"criterion: {text(r['criterion'])}" if text(r["criterion"]) else ""]
    details = "; ".join(d for d in details if d)
    holds = HOLDS[r["agrees"]]
    return (f"- **{text(r['quantity'])}**: {text(r['ours']) or '–'}" + (f" — {holds}" if holds else "")
            + (f" ({details})" if details else ""))


def number_cards(records) -> Markdown:
    """The records grouped by chapter, one collapsible block per chapter (open), one list item per number."""
    blocks = []
    for chapter in dict.fromkeys(r["chapter"] for r in records):
        mine = [r for r in records if r["chapter"] == chapter]
        held = [r["agrees"] for r in mine if r["agrees"] is not None]
        title = f"{chapter}: {len(mine)} numbers" + (f", {sum(held)} of {len(held)} criteria hold" if held else "")
        blocks += [f":::{{dropdown}} {title}", ":open:", "", f"From {{doc}}`{chapter}`.", "",
                   *[number_line(r) for r in mine], ":::", ""]
    return Markdown("\n".join(blocks))


display(number_cards([r for r in rows if not r.get("claim") and r["chapter"] not in BEYOND]))

# %% [markdown]
# ## Beyond the paper
#
# What the chapters that go beyond the paper found, in the same form: the ePNTK of the
# multitask network, and the rich-to-lazy continuum with rival predictors. "Paper" gives what
# the paper says or implies, where it says anything; "holds" applies the stated criterion to
# our number.

# %% tags=["hide-input"]
display(number_cards([r for r in rows if r["chapter"] in BEYOND]))

# %% [markdown]
# ## Parameters of this build

# %% tags=["hide-input"]
display(Markdown("\n".join(line for c, p in parameters.items() for line in (
    f":::{{dropdown}} {c}", "", *[f"- `{k}` = `{v}`" for k, v in p.items()], ":::", ""))))
