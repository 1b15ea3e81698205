"""The API reference has one page per module of lib, current with the package (lib.book.api_pages)."""

from pathlib import Path

import pytest

from lib.book import api_pages

REPO = Path(__file__).resolve().parents[1]


def test_the_committed_api_pages_are_current():
    assert api_pages.stale_pages(REPO / "book" / "api") == []
    assert api_pages.main(["--check"]) == 0


def test_every_module_of_lib_has_a_page_in_its_layer():
    modules = {path.relative_to(REPO / "lib").with_suffix("") for path in (REPO / "lib").glob("*/*.py")
               if path.stem != "__init__"}
    pages = {Path(name).with_suffix("") for name in api_pages.pages() if "/" in name}
    assert pages == modules
    toc = (REPO / "_toc.yml").read_text()
    for layer, _, _ in api_pages.LAYERS:
        assert f"file: book/api/{layer}\n" in toc and f"glob: book/api/{layer}/*\n" in toc


def test_a_new_module_makes_the_pages_stale_until_written(tmp_path):
    lib = tmp_path / "lib"
    for layer, _, _ in api_pages.LAYERS:
        (lib / layer).mkdir(parents=True)
        (lib / layer / "__init__.py").write_text("")
    (lib / "core" / "tasks.py").write_text('"""The tasks: ``x`` and :func:`f`.\n\nMore."""\n')
    api_dir = tmp_path / "api"
    assert "core/tasks.md" in api_pages.stale_pages(api_dir, lib)
    api_pages.write_pages(api_dir, lib)
    assert api_pages.stale_pages(api_dir, lib) == []
    assert "| {doc}`tasks <core/tasks>` | The tasks: `x` and {func}`f`. |" in (api_dir / "core.md").read_text()
    (lib / "core" / "losses.py").write_text('"""Losses."""\n')
    (lib / "core" / "tasks.py").unlink()
    assert api_pages.stale_pages(api_dir, lib) == ["core.md", "core/losses.md", "core/tasks.md"]
    api_pages.write_pages(api_dir, lib)
    assert not (api_dir / "core" / "tasks.md").exists() and api_pages.stale_pages(api_dir, lib) == []


def test_an_unknown_layer_is_refused():
    with pytest.raises(ValueError, match="layer must be one of"):
        api_pages.layer_modules("plots")


def docstring_errors(doc: str) -> list[str]:
    """The reStructuredText errors of a docstring as the API pages render it (napoleon's Google
    sections first), leaving out Sphinx's own roles and directives, which plain docutils does not know."""
    import io

    import docutils.core
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring

    stream = io.StringIO()
    docutils.core.publish_doctree(str(GoogleDocstring(doc, Config())),
                                  settings_overrides={"report_level": 3, "halt_level": 5, "warning_stream": stream})
    return [line for line in stream.getvalue().splitlines() if ("ERROR" in line or "SEVERE" in line)
            and "Unknown interpreted text role" not in line and "Unknown directive type" not in line]


def test_every_docstring_in_lib_is_valid_restructured_text():
    """A docstring the book build would reject (`|r|` read as a substitution, a broken list) fails
    here, in seconds, rather than in the book build."""
    import importlib
    import inspect
    import pkgutil

    import lib

    assert docstring_errors("the largest |r| of a cell")  # the control: the error this test exists for
    problems = []
    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        module = importlib.import_module(info.name)
        documented = [(info.name, module.__doc__ or "")] + [
            (f"{info.name}.{name}", inspect.getdoc(obj) or "") for name, obj in vars(module).items()
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name and obj.__doc__]
        problems += [f"{where}: {error}" for where, doc in documented for error in docstring_errors(doc)]
    assert not problems, "\n".join(problems)
