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

# %% tags=["parameters", "remove-input"]
chapters = None  # None: every chapter that judges claims

# %% tags=["remove-cell"]
from lib.book import check_chapter

chapters = check_chapter("07_reproduction_summary", globals())

# %% tags=["hide-input"]
from IPython.display import Markdown, display
from myst_nb import glue
from lib.book import summary, verdicts_page as page

rows, parameters, profile = summary.load(chapters)
verdicts = summary.claim_verdicts(rows, chapters)
glue("summary_profile", profile, display=False)
glue("count_claims", f"{len(verdicts)}", display=False)
glue("count_changed", f"{sum(bool(v['earlier']) for v in verdicts)}", display=False)
with_replication, replicating = page.replication_counts(verdicts)
glue("count_with_replication", f"{with_replication}", display=False)
glue("count_replicates", f"{replicating}", display=False)
for kind, n in zip(("paper", "discussion", "related", "beyond"), page.kind_counts(verdicts).values()):
    glue(f"count_{kind}", f"{n}", display=False)
for status, n in page.declaration_counts(verdicts).items():
    glue(f"count_declared_{status.replace(' ', '_')}", f"{n}", display=False)
glue("tally_sentence", page.tally_sentence(verdicts), display=False)  # the introduction's first screen
display(Markdown(page.tally_table(verdicts)))
display(Markdown(page.claim_index(verdicts)))

# %% [markdown]
# {glue:text}`count_paper` claims of the paper's results, {glue:text}`count_discussion`
# speculations of its Discussion, {glue:text}`count_related` claim of a related paper judged on
# its own network, and {glue:text}`count_beyond` claims the book makes beyond the paper
# (applying the paper's tools where the paper did not), each counted in its own column;
# {glue:text}`count_changed` of them had their criterion changed, and show the verdict under
# each version. All entries come from one build profile,
# {glue:text}`summary_profile` (`full` is the paper scale; `quick` is the small test build,
# whose verdicts do not count).
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `chapters` | chapter notebooks whose records are collected, in order | None (every chapter that judges claims) or a list of notebook names |
# :::
#
# **Criteria are declared, versioned and kept.** Every criterion lives in the claims registry
# (`lib/analyses/claim_registry_*.py`) with the quantity, the direction the claim expects, the
# statistical test, its threshold or margin and the smallest sample it accepts; verdicts are
# computed only from it, and a test (`tests/test_claims_registry.py`) fails when a declared
# criterion is changed without a new version. A criterion that was changed keeps its old
# version: the entry then shows the verdict under every version and why it changed.
#
# **Not every criterion was written before its data.** Each entry says when its criterion was
# declared relative to its numbers, with the commits, from an audit of the repository's
# history (`lib/analyses/claim_provenance.py`): of the criterion versions shown here,
# {glue:text}`count_declared_before_the_data` were declared before their numbers existed,
# {glue:text}`count_declared_with_the_data` with them (in the same commit, or after part of
# them was shown, so the order cannot be established) and
# {glue:text}`count_declared_post_hoc` after their numbers had been shown (**post hoc**). The
# tally above counts each claim under its latest version that is not post hoc; a claim whose
# every version is post hoc is counted apart, in the last row, and so is a claim whose versions
# declared before its numbers judge another quantity than the claim names (its entry says which
# and why: a pre-registered test of something else registers nothing). A post-hoc verdict is a
# description of the data it was fitted to, not a test of the claim.
#
# **Replication blocks.** The headline correlation claims are judged twice by the criterion in
# force: on the discovery block the chapter shows and on a replication block of seeds that no
# other chapter uses, declared (with the precision the verdict needs) before its networks were
# trained (`lib/analyses/replication.py`). For that block every criterion in force was written
# before the data, so such a claim counts under it: with its verdict when both blocks give it,
# as **does not replicate** when they differ. {glue:text}`count_replicates` of the
# {glue:text}`count_with_replication` claims with a replication block replicate.
#
# Verdicts: **reproduced** (the criterion holds); **reproduced with qualification** (it
# holds, but a control or a caveat changes what it means — named); **not reproduced** (the
# criterion fails); **inconclusive** (the interval straddles the criterion's threshold: more
# data could decide); **borderline** (the verdict changes with the seed of its resampling,
# a bootstrap or the shuffles of a permutation or sign-flip test: the count says under how
# many of 20 seeds the commonest verdict holds; a verdict resting on such draws was judged on
# the chapter's first draw alone until every draw was, and where that draw alone gives another
# verdict the entry shows it too); **not discriminating** (the
# measure says the same in a negative control where the claim does not apply); **not
# tested** (with the reason).

# %% tags=["hide-input"]
for e in verdicts:  # for the introduction: each finding quotes its verdict, with its qualification, from here
    glue(f"verdict_{e['claim']}", page.quoted_verdict(e), display=False)
    if e.get("replication"):
        glue(f"replication_{e['claim']}", page.with_intervals(e["replication"]["ours"], e["replication"]["interval"]),
             display=False)
    glue(f"ours_{e['claim']}", page.text(e["ours"]), display=False)
    glue(f"ours_interval_{e['claim']}", page.with_intervals(e["ours"], e.get("interval", "")), display=False)
for block in page.chapter_blocks(verdicts):
    display(Markdown(block))

# %% [markdown]
# ## Other numbers of this build
#
# Numbers the reproduction chapters report that are not claims of the paper: checks of our
# own code against ground truth, and costs.

# %% tags=["hide-input"]
BEYOND = ("08_entk_over_training", "10_rich_lazy_continuum")
display(Markdown(page.number_cards([r for r in rows if not r.get("claim") and r["chapter"] not in BEYOND])))

# %% [markdown]
# ## Beyond the paper
#
# What the chapters that go beyond the paper found, in the same form: the ePNTK of the
# multitask network, and the rich-to-lazy continuum with rival predictors. "Paper" gives what
# the paper says or implies, where it says anything; "holds" applies the stated criterion to
# our number.

# %% tags=["hide-input"]
display(Markdown(page.number_cards([r for r in rows if r["chapter"] in BEYOND])))

# %% [markdown]
# ## Parameters of this build

# %% tags=["hide-input"]
display(Markdown(page.parameter_blocks(parameters)))
