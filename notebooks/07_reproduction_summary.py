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
# One line per claim of the paper — every claim of Sections 3-5 and of the appendix
# figures — with our verdict, our number beside the paper's, the control that could have
# failed it, and a link to the figure or table that is the evidence. Every line was saved
# by the chapter that computed it, in the same build (`lib.book.summary`), with its verdict
# decided there from the saved numbers by the stated criterion; nothing here is typed in.
#
# Verdicts: **reproduced** (the claim holds by its criterion); **reproduced with
# qualification** (it holds, but a control or a caveat changes what it means — the
# qualification is named); **not reproduced** (the criterion fails); **not tested** (with
# the reason). The criteria and intervals are listed under the table.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `chapters` | chapter notebooks whose records are collected, in order | list of notebook names |

# %% tags=["parameters"]
chapters = ["01_one_step_entk", "02_smg_validation", "03_epntk", "04_multitask_representations",
            "05_multitask_performance", "06_correlation_analysis", "08_entk_over_training",
            "10_rich_lazy_continuum"]

# %% tags=["remove-cell"]
from lib.book.runner import NOTEBOOKS

if not isinstance(chapters, list) or not chapters or any(c not in NOTEBOOKS for c in chapters):
    raise ValueError(f"chapters must be a non-empty list of notebook names from {list(NOTEBOOKS)}, got {chapters!r}")

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from lib.book import summary

rows, parameters, profile = summary.load(chapters)
verdicts = pd.DataFrame(summary.claim_verdicts(rows, chapters))
glue("summary_profile", profile, display=False)
counts = verdicts["verdict"].value_counts()
for verdict in summary.VERDICTS:
    glue(f"count_{verdict.replace(' ', '_')}", f"{int(counts.get(verdict, 0))}", display=False)
glue("count_claims", f"{len(verdicts)}", display=False)
STYLE = {"reproduced": "**reproduced**", "reproduced with qualification": "**reproduced with qualification**",
         "not reproduced": "**not reproduced**", "not tested": "not tested"}


def cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def qualification(entry) -> str:
    return f": {cell(entry.qualification)}" if entry.qualification else ""


lines = ["| # | claim | paper | ours | verdict | control | evidence |", "|---|---|---|---|---|---|---|"]
for number, e in enumerate(verdicts.itertuples(), start=1):
    where = f"{e.section}" + (f", {e.figure}" if e.figure else "")
    evidence = f"{e.evidence} ({{doc}}`{e.chapter}`)" if e.evidence else f"{{doc}}`{e.chapter}`"
    lines.append(f"| {number} | {cell(e.text)} ({where}) | {cell(e.paper)} | {cell(e.ours)} | "
                 f"{STYLE[e.verdict]}{qualification(e)} | {cell(e.control)} | {evidence} |")
display(Markdown("\n".join(lines)))

# %% [markdown]
# Of {glue:text}`count_claims` claims, {glue:text}`count_reproduced` are reproduced,
# {glue:text}`count_reproduced_with_qualification` reproduced with a qualification,
# {glue:text}`count_not_reproduced` not reproduced and {glue:text}`count_not_tested` not
# tested. All rows come from one build profile, {glue:text}`summary_profile` (`full` is the
# paper scale; `quick` is the small test build, whose verdicts do not count).
#
# ## Criteria and intervals

# %% tags=["hide-input"]
criteria = [f"| {n} | {cell(e.criterion)} | {cell(e.interval) if e.interval else ''} |"
            for n, e in enumerate(verdicts.itertuples(), start=1) if e.verdict != "not tested"]
display(Markdown("\n".join(["| # | criterion for the verdict | interval |", "|---|---|---|"] + criteria)))

# %% [markdown]
# ## Other numbers of this build
#
# Numbers the reproduction chapters report that are not claims of the paper: checks of our
# own code against ground truth, and costs.

# %% tags=["hide-input"]
BEYOND = ("08_entk_over_training", "10_rich_lazy_continuum")


def number_table(records) -> Markdown:
    return Markdown("\n".join(["| chapter | quantity | paper | value | criterion | holds? |", "|---|---|---|---|---|---|"] + [
        f"| {{doc}}`{r['chapter']}` | {cell(r['quantity'])} | {cell(r['paper'])} | {cell(r['ours'])} | "
        f"{cell(r['criterion'])} | {'–' if r['agrees'] is None else ('yes' if r['agrees'] else 'no')} |"
        for r in records]))


display(number_table([r for r in rows if not r.get("claim") and r["chapter"] not in BEYOND]))

# %% [markdown]
# ## Beyond the paper
#
# What the chapters that go beyond the paper found, in the same form: the ePNTK of the
# multitask network, and the rich-to-lazy continuum with rival predictors. The "paper"
# column gives what the paper says or implies, where it says anything; "holds?" applies the
# stated criterion to our number.

# %% tags=["hide-input"]
display(number_table([r for r in rows if r["chapter"] in BEYOND]))

# %% [markdown]
# ## Parameters of this build

# %% tags=["hide-input"]
display(Markdown("\n".join(["| chapter | parameters |", "|---|---|"] + [
    f"| {c} | {cell(', '.join(f'{k}={v}' for k, v in p.items()))} |" for c, p in parameters.items()])))
