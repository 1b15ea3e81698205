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
