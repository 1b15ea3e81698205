"""The built book as a reader sees it, in headless Chromium (Debian's chromium + chromium-driver).

``REPRO_BOOK_HTML`` names the built HTML folder; ``make test`` builds the quick-profile book
and sets it, so there this test must run. Without it (pytest alone) the test is skipped.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.book_check import (SCREENSHOT_PAGES, book_pages, browser_available, check_book, chromium,
                              expected_figures, serve)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

BOOK = os.environ.get("REPRO_BOOK_HTML")
needs_browser = pytest.mark.skipif(not browser_available() and not BOOK,
                                   reason="Chromium not installed (make test installs it)")


@pytest.mark.skipif(not BOOK, reason="REPRO_BOOK_HTML not set: build the book first (make test does)")
def test_every_page_loads_with_its_figures_and_no_tracebacks():
    html_root = Path(BOOK)
    screenshots = Path(os.environ.get("REPRO_SCREENSHOTS", html_root.parent / "screenshots"))
    expected = expected_figures(NOTEBOOKS)
    problems, counts = check_book(html_root, screenshots, expected=expected)
    assert not problems, "\n".join(problems)
    assert set(expected) <= set(counts), counts  # every chapter rendered
    assert {p.stem for p in screenshots.glob("*.png")} >= {p.replace("/", "_") for p in SCREENSHOT_PAGES}


@pytest.mark.skipif(not BOOK, reason="REPRO_BOOK_HTML not set: build the book first (make test does)")
def test_site_search_ranks_the_books_pages_above_the_api_reference():
    """A search for a term the chapters are about lists chapters first, then API functions."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with serve(Path(BOOK)) as base, chromium() as driver:
        driver.get(f"{base}search.html?q=silhouette")
        WebDriverWait(driver, 60).until(
            lambda d: "found" in d.find_element(By.CSS_SELECTOR, "#search-results .search-summary").text)
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#search-results ul.search li a")]
    pages = [link for link in links if "/book/api/" not in link]
    assert pages and any("/book/api/" in link for link in links), links[:20]  # both kinds are found
    assert all("/book/api/" not in link for link in links[:len(pages)]), links[:20]


def test_every_chapter_declares_its_figures():
    """The declaration matches the notebook: one figure per cell with figure metadata."""
    import jupytext

    for source in sorted(NOTEBOOKS.glob("*.py")):
        cells = jupytext.read(source).cells
        figure_cells = sum(1 for c in cells if "figure" in c.metadata.get("mystnb", {}))
        assert expected_figures(NOTEBOOKS)[f"book/executed/{source.stem}.html"] == figure_cells, source.name


def wide_png(path: Path, width: int = 1600) -> None:
    """A white PNG ``width`` pixels wide (wider than any text column)."""
    from PIL import Image

    Image.new("RGB", (width, 20), "white").save(path)


@needs_browser
def test_checker_reports_a_missing_figure_and_a_traceback(tmp_path):
    """The checker can fail: a page with a broken figure and an error output is reported."""
    (tmp_path / "book").mkdir()
    wide_png(tmp_path / "book" / "ok.png")
    (tmp_path / "index.html").write_text("<html><body><p>" + "index page text " * 10 + "</p></body></html>")
    (tmp_path / "book" / "page.html").write_text(
        "<html><head><title>t</title></head><body><p>" + "some text " * 20 + "</p>"
        "<figure id='good'><img src='ok.png'><figcaption>fine</figcaption></figure>"
        "<figure id='gone'><img src='missing.png'><figcaption>removed</figcaption></figure>"
        "<div class='output traceback'><pre>Traceback (most recent call last):\nValueError</pre></div>"
        "</body></html>")
    assert book_pages(tmp_path) == ["book/page.html", "index.html"]
    problems, _ = check_book(tmp_path, expected={"book/page.html": 3, "book/gone.html": 1})
    assert any("missing.png" in p for p in problems), problems
    assert "book/page.html: 2 figures, expected at least 3" in problems, problems
    assert "book/gone.html: missing from the built book" in problems, problems
    assert any("figure gone has no rendered image" in p for p in problems), problems
    assert any("traceback" in p for p in problems), problems
    assert not any("figure good" in p for p in problems), problems


@needs_browser
def test_checker_reports_untypeset_math_small_figures_wrapped_numbers_and_network_use(tmp_path):
    """The checker can fail on each reader-facing defect: equations MathJax never typeset (as when the
    MathJax script cannot be loaded, e.g. from a CDN offline), TeX left in the text, a figure image with
    fewer pixels than the column, a distorted image, a table cell wrapping an interval, and a request to another
    origin; a page without these defects passes."""
    (tmp_path / "book").mkdir()
    shutil.copy(Path(__file__).with_name("data") / "pixel.png", tmp_path / "book" / "tiny.png")
    wide_png(tmp_path / "book" / "wide.png")
    text = "<p>" + "some text " * 20 + "</p>"
    (tmp_path / "index.html").write_text(
        f"<html><body>{text}<figure id='fine'><img src='book/wide.png'><figcaption>wide</figcaption></figure>"
        "<table><tr><td style='white-space: nowrap'>0.12 [0.03, 0.21]</td><td>a long text cell " + "that may wrap " * 20 + "</td></tr></table>"
        "</body></html>")
    (tmp_path / "book" / "math.html").write_text(
        f"<html><head><script defer src='../_static/mathjax/absent.js'></script></head><body>{text}"
        "<p>inline <span class='math notranslate nohighlight'>\\(x^2\\)</span> and a display</p>"
        "<div class='math notranslate nohighlight'>\\[y = \\frac{1}{2}\\]</div>"
        "<p>and raw $$z = 1$$ left by the parser</p></body></html>")
    (tmp_path / "book" / "layout.html").write_text(
        f"<html><body>{text}<figure id='small'><img src='tiny.png'><figcaption>tiny</figcaption></figure>"
        "<figure id='squeezed'><img src='wide.png' style='width: 400px; height: 200px'><figcaption>s</figcaption></figure>"
        "<table><tr><td style='width: 40px; max-width: 40px'>0.123 [0.045, 0.678]</td><td>text</td></tr></table>"
        "<script>document.write(`<img src='${location.href.replace('127.0.0.1', 'localhost')}/../tiny.png'>`);</script>"
        "</body></html>")
    problems, counts = check_book(tmp_path)
    math = [p for p in problems if p.startswith("book/math.html")]
    assert any("2 of 2 equations not typeset" in p for p in math), problems
    assert any("raw TeX" in p and "$$" in p for p in math), problems
    layout = [p for p in problems if p.startswith("book/layout.html")]
    assert any(re.search(r"figure small: image \d px wide, narrower than the \d+ px text column", p)
               for p in layout), problems
    assert any("table cell '0.123 [0.045, 0.678]' wraps" in p for p in layout), problems
    assert any("figure squeezed: shown with its aspect ratio changed by a factor 0.03" in p for p in layout), problems
    assert any("figure squeezed: scaled to 400/1600 px, its smallest text (10 pt) is shown 7.6 px high" in p
               for p in layout), problems
    assert any("from the network" in p and "localhost" in p for p in layout), problems
    assert not [p for p in problems if p.startswith("index.html")], problems
    assert counts["book/math.html"]["math"] == 2 and counts["index.html"]["narrowest_figure"] == 1600


@needs_browser
def test_checker_reports_warnings_paths_and_content_wider_than_the_page(tmp_path):
    """The checker fails a page that shows a warning of the run, an absolute path of the machine that built
    it, a tool's printout (a "[sweep] ..." line), process wording ("(issue 25: ...)", a blank commit), a
    table cell reading "nan", a printout or a table wider than the page at the check's window width; each is reported once, and a
    page whose printout wraps and whose table fits passes."""
    (tmp_path / "book").mkdir()
    text = "<p>" + "some text " * 20 + "</p>"
    wide_row = "".join(f"<td style='white-space: nowrap'>column {i} with a long header</td>" for i in range(12))
    (tmp_path / "book" / "bad.html").write_text(
        f"<html><body><article class='bd-article'>{text}"
        "<div class='cell_output'><pre>/opt/venv/lib/python3.11/site-packages/numpy/lib/_nanfunctions_impl.py:1396: "
        "RuntimeWarning: All-NaN slice encountered</pre></div>"
        "<p>saved to /check/work/main/results/x.npz (see https://github.com/a/b/c, 3.1 it/s)</p>"
        "<div class='cell_output'><pre>[sweep] schedule: 10 of 10 cache entries already cached</pre></div>"
        "<p>a criterion (issue 25: the horizon), in force at commit ``.</p>"
        "<div class='cell_output'><table><tr><td>onset</td><td>nan</td><td>NaN</td></tr></table></div>"
        f"<div class='cell_output'><div class='output text_html' style='overflow-x: auto'><table><tr>{wide_row}"
        "</tr></table></div></div></article></body></html>")
    (tmp_path / "index.html").write_text(
        f"<html><body><article class='bd-article'>{text}"
        "<div class='cell_output'><pre style='white-space: pre-wrap'>" + "a long printout line " * 60 + "</pre></div>"
        "<div class='cell_output'><table><caption>A table that fits</caption><tr><td>0.12 [0.03, 0.21]</td>"
        "<td>fits</td></tr></table></div></article></body></html>")
    problems, _ = check_book(tmp_path)
    bad = [p for p in problems if p.startswith("book/bad.html")]
    assert sum("warning text in the page: 'RuntimeWarning: All-NaN slice encountered'" in p for p in bad) == 1, problems
    assert sum("absolute path in the page: '/opt/venv/lib/python3.11/site-packages/numpy/lib/_nanfunctions_impl.py'"
               in p for p in bad) == 1, problems
    assert sum("absolute path in the page: '/check/work/main/results/x.npz'" in p for p in bad) == 1, problems
    assert sum("absolute path" in p for p in bad) == 2, problems  # not the URL or the rate
    assert sum("scrolls sideways" in p and "column 0 with a long header" in p for p in bad) == 1, problems
    assert sum("scrolls sideways" in p for p in bad) == 1, problems  # the outermost scrolling box only, once
    assert sum("a tool's printout in the page: '[sweep] schedule: 10 of 10" in p for p in bad) == 1, problems
    assert sum("process wording in reader text: '(issue 25: the horizon)'" in p for p in bad) == 1, problems
    assert sum("process wording in reader text: 'commit ``'" in p for p in bad) == 1, problems
    assert sum("a table cell shows a missing value as 'nan'" in p for p in bad) == 1, problems
    assert sum("a table cell shows a missing value as 'NaN'" in p for p in bad) == 1, problems
    assert not [p for p in problems if p.startswith("index.html")], problems


@needs_browser
def test_checker_reports_untitled_tables_broken_lists_and_an_answer_below_the_first_screen(tmp_path):
    """A table a notebook shows without a title, a numbered item whose content rendered after its list, and a
    chapter whose answer box is missing or begins below the first screen fail the check; a chapter that
    opens with its answer box and titles its tables passes."""
    executed = tmp_path / "book" / "executed"
    executed.mkdir(parents=True)
    text = "<p>" + "some text " * 20 + "</p>"
    box = "<div class='admonition tip'><p class='admonition-title'>The answer</p><p>Yes.</p></div>"
    (executed / "12_prediction_horizon.html").write_text(
        f"<html><body><article class='bd-article'>{text}<div style='height: 1500px'></div>{box}"
        "<div class='cell_output'><table><tr><td>untitled cell</td></tr></table></div>"
        "<ol start='10'><li>a claim</li></ol><ul><li>its verdict, fallen out of the item</li></ul>"
        "</article></body></html>")
    (executed / "13_rival_theories.html").write_text(f"<html><body><article class='bd-article'>{text}</article></body></html>")
    (executed / "06_correlation_analysis.html").write_text(
        f"<html><body><article class='bd-article'><h1>A chapter</h1>{box}{text}"
        "<div class='cell_output'><table><caption>What it shows</caption><tr><td>1</td></tr></table></div>"
        "<ol><li>one</li><li>two</li></ol><p>text</p><ol start='3'><li>three, after a label</li></ol>"
        "</article></body></html>")
    problems, _ = check_book(tmp_path)
    late = [p for p in problems if p.startswith("book/executed/12_prediction_horizon.html")]
    assert sum("a table without a title (caption): 'untitled cell'" in p for p in late) == 1, problems
    assert sum("content of a numbered list item rendered after the list (broken list nesting): 'its verdict, fallen "
               "out of the item'" in p for p in late) == 1, problems
    assert any(re.search(r"'.admonition .admonition-title The answer' begins 1\d{3} px down: less than 150 px of it on "
                         r"the first screen", p) for p in late), problems
    assert any("13_rival_theories.html: no '.admonition .admonition-title The answer' on the page" in p
               for p in problems), problems
    assert not [p for p in problems if p.startswith("book/executed/06_correlation_analysis.html")], problems
