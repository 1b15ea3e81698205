"""The API reference's pages, one per module of ``lib``, written from the package itself.

``book/api/<layer>.md`` lists a layer's modules, each with the first line of its docstring and a
link to ``book/api/<layer>/<module>.md`` (the module's last name), which renders the module's docstrings (Sphinx autodoc).
``_toc.yml`` takes every page of a layer's folder (a glob), so a new module needs only
``python -m lib.book.api_pages`` (and ``--check`` says whether the pages are current:
``tests/test_api_pages.py`` runs it).

Book layer; reads the modules' source files (it imports none of them).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

LIB = Path(__file__).resolve().parents[1]
# (layer package, page title, what the layer holds), in import order: each layer imports only those before it
LAYERS = (
    ("core", "Core", "the task environment, networks, losses, the training engines and their steps, independent "
     "jobs on every core, the kernels (NTK, eNTK, ePNTK, the eNTK of one discrete step, kernel statistics and their "
     "check against neural-tangents), parameter checks, and the results cache (here because every layer above "
     "caches its results through it)"),
    ("experiments", "Experiments", "the paper's schedules and runs, the SMG validation problem, the init-scale "
     "continuum, the streamed ePNTK and the eNTK over training, the paper's numbers, sweeps on Dask and their tables"),
    ("analyses", "Analyses", "eNTK structure and its controls, partitions, grouped representations, statistics and "
     "the claims registry, per-network measures and the continuum's sweeps, the prediction horizon, the rival "
     "theories, M-PHATE"),
    ("book", "Book", "the notebook runner, chapter parameters, summary records, the chapters' tables, sentences and "
     "figures, the sweep command line"),
)


def layer_modules(layer: str, lib: Path = LIB) -> list[str]:
    """Dotted names of the modules of ``lib.<layer>`` (its ``*.py`` files but ``__init__``), sorted."""
    folder = lib / layer
    if not folder.is_dir():
        raise ValueError(f"layer must be one of {[name for name, _, _ in LAYERS]}, got {layer!r} (no folder {folder})")
    return sorted(f"lib.{layer}.{path.stem}" for path in folder.glob("*.py") if path.stem != "__init__")


def as_markdown(rst: str) -> str:
    """Inline reStructuredText of a docstring as MyST Markdown: double-backquoted code as single-backquoted
    code, a Sphinx role (colon, name, colon, backquoted target) as the same MyST role (name in braces)."""
    text = re.sub(r":(\w+):`([^`]+)`", r"{\1}`\2`", rst)
    return re.sub(r"``([^`]+)``", r"`\1`", text).replace("|", "\\|")


def summary_line(module: str, lib: Path = LIB) -> str:
    """The first paragraph of ``module``'s docstring on one line, as Markdown ("" when it has none)."""
    path = lib.joinpath(*module.split(".")[1:]).with_suffix(".py")
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    if not docstring:
        return ""
    first = " ".join(docstring.strip().split("\n\n")[0].split())
    return as_markdown(first[:-1] if first.endswith("::") else first)  # "text::" introduces a literal block


def module_page(module: str) -> str:
    """The Markdown page of one module: its name as title and its autodoc."""
    return f"# `{module}`\n\n```{{eval-rst}}\n.. automodule:: {module}\n   :members:\n```\n"


def layer_page(layer: str, title: str, holds: str, lib: Path = LIB) -> str:
    """The Markdown page of one layer: what it holds and a table of its modules, each linked to its page."""
    rows = "\n".join(f"| {{doc}}`{module.split('.')[-1]} <{layer}/{module.split('.')[-1]}>` | {summary_line(module, lib)} |"
                     for module in layer_modules(layer, lib))
    return (f"# {title}: `lib.{layer}`\n\nThis layer holds {holds}.\n\n| module | what it holds |\n|---|---|\n"
            f"{rows}\n")


def pages(lib: Path = LIB) -> dict[str, str]:
    """Every page, relative path under ``book/api`` -> content."""
    out = {}
    for layer, title, holds in LAYERS:
        out[f"{layer}.md"] = layer_page(layer, title, holds, lib)
        out |= {f"{layer}/{module.split('.')[-1]}.md": module_page(module) for module in layer_modules(layer, lib)}
    return out


def stale_pages(api_dir: Path, lib: Path = LIB) -> list[str]:
    """Pages under ``api_dir`` that are missing, differ from :func:`pages`, or belong to no module."""
    expected = pages(lib)
    present = {str(path.relative_to(api_dir)) for path in api_dir.rglob("*.md")} if api_dir.is_dir() else set()
    differing = [name for name, text in expected.items()
                 if name not in present or (api_dir / name).read_text() != text]
    return sorted(differing + [name for name in present if name not in expected])


def write_pages(api_dir: Path, lib: Path = LIB) -> None:
    """Write :func:`pages` under ``api_dir`` and remove pages of modules that no longer exist."""
    expected = pages(lib)
    for name in stale_pages(api_dir, lib):
        path = api_dir / name
        if name in expected:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(expected[name])
        else:
            path.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the pages are current (exit 1 if not)")
    parser.add_argument("--api-dir", type=Path, default=LIB.parent / "book" / "api")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages(args.api_dir)
        if stale:
            print(f"API pages out of date (run python -m lib.book.api_pages): {', '.join(stale)}", file=sys.stderr)
            return 1
        return 0
    write_pages(args.api_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
