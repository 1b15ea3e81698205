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
# # Paper vs this reproduction
#
# Every row below was saved by the chapter that computed it, in the same build (see
# `lib.summary`); nothing here is typed in. "Agrees" applies the criterion stated in the
# row; an empty cell marks a number the paper does not report. The parameters each chapter
# ran with are listed at the end; rows from different build profiles are never mixed.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `chapters` | chapter notebooks whose records are collected, in order | list of notebook names |

# %% tags=["parameters"]
chapters = ["01_one_step_entk", "02_smg_validation", "03_epntk", "04_multitask_representations",
            "05_multitask_performance", "06_correlation_analysis"]

# %% tags=["remove-cell"]
from lib.runner import NOTEBOOKS

if not isinstance(chapters, list) or not chapters or any(c not in NOTEBOOKS for c in chapters):
    raise ValueError(f"chapters must be a non-empty list of notebook names from {list(NOTEBOOKS)}, got {chapters!r}")

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from lib import summary

rows, parameters, profile = summary.load(chapters)
glue("summary_profile", profile, display=False)
table = pd.DataFrame(rows)
verdict = {True: "**yes**", False: "**no**", None: "–"}
compared = table[table["agrees"].notna()]
glue("summary_agree", f"{int(compared['agrees'].sum())} of {len(compared)}", display=False)
glue("summary_disagree", "; ".join(compared.loc[~compared["agrees"].astype(bool), "quantity"]) or "none",
     display=False)


def cell(value) -> str:
    return str(value).replace("|", "\\|")


lines = []
for chapter, group in table.groupby("chapter", sort=False):
    lines += [f"### {{doc}}`{chapter}`", "",
              "| quantity | paper | this reproduction | agrees? | criterion; interval |", "|---|---|---|---|---|"]
    lines += [f"| {cell(r.quantity)} | {cell(r.paper)} | {cell(r.ours)} | {verdict[r.agrees]} | "
              f"{cell(r.criterion)}{'; ' + cell(r.interval) if r.interval else ''} |" for r in group.itertuples()]
    lines.append("")
display(Markdown("\n".join(lines)))

# %% [markdown]
# All rows come from one build profile, {glue:text}`summary_profile` (`full` is the paper
# scale; `quick` is the small test build), with the parameters listed at the end.
# By the stated criteria, {glue:text}`summary_agree` comparisons agree with the paper.
# Those that do not: {glue:text}`summary_disagree`. Each chapter discusses its
# disagreements; the largest caveat is in {doc}`06_correlation_analysis`: the reported
# correlations reproduce, but the init label alone gives the same correlations.
#
# ## Parameters of this build

# %% tags=["hide-input"]
display(Markdown("\n".join(["| chapter | parameters |", "|---|---|"] + [
    f"| {c} | {cell(', '.join(f'{k}={v}' for k, v in p.items()))} |" for c, p in parameters.items()])))
