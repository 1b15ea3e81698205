"""Book plumbing (the notebook runner, summary records, figures, the sweep command) and the one
place a chapter imports from.

A chapter's notebook takes every name of ``lib`` it uses from ``lib.book``: the book's own modules
(``from lib.book import summary, plot_horizon``) and the names of :data:`PUBLIC`, the functions,
classes, constants and lower-layer modules the chapters use (``from lib.book import
TaskEnvironment, check_chapter, glue_texts``). A name of :data:`PUBLIC` is imported when first
read (a module ``__getattr__``, PEP 562), so a chapter loads only the modules it uses and importing
``lib.book`` costs nothing. ``tests/test_notebooks.py`` checks that every notebook imports from
here only, and that every name here resolves and none hides a module of ``lib.book``.
"""

from __future__ import annotations

import importlib

# module -> the names it gives the chapters
_EXPORTS: dict[str, tuple[str, ...]] = {
    "lib.book.chapter_parameters": ("check_chapter",),  # a chapter's checks of its parameters
    "lib.book.glued": ("glue_texts",),
    "lib.book.kernel_manager": ("interactive_frontend",),
    "lib.book.tables": ("long_view", "reading_table", "visible"),
    "lib.analyses.explorer": ("G_RANGE", "STRIP_SCALES", "explore", "scale_strip"),
    "lib.analyses.initial_loadings": ("leading_loadings_at_init",),
    "lib.experiments.schedules": ("SCHEDULES", "run_pairs"),
    "lib.core.engines": ("DEFAULT_ENGINE",),
    "lib.core.models": ("MultitaskNet",),
    "lib.core.tasks": ("ARCHITECTURES", "TaskEnvironment"),
}
# lower-layer modules a chapter uses whole
_MODULES = ("lib.analyses.attribution", "lib.analyses.claims", "lib.analyses.continuum_facts",
            "lib.analyses.continuum_sweeps", "lib.analyses.correlation_verdicts", "lib.analyses.entk_vectors",
            "lib.analyses.horizon", "lib.analyses.horizon_checks", "lib.analyses.horizon_points",
            "lib.analyses.kernel_analysis", "lib.analyses.one_step", "lib.analyses.replication",
            "lib.analyses.structure_report", "lib.core.kernel_reference", "lib.core.results")

# public name -> (its module, its attribute there; None for the module itself)
PUBLIC: dict[str, tuple[str, str | None]] = {
    **{name: (module, name) for module, names in _EXPORTS.items() for name in names},
    **{module.rsplit(".", 1)[1]: (module, None) for module in _MODULES},
}


def __getattr__(name: str):
    """The object a name of :data:`PUBLIC` stands for, imported on first use; AttributeError for any
    other name (so ``from lib.book import summary`` imports the submodule)."""
    if name not in PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attribute = PUBLIC[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
