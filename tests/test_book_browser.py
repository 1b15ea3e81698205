"""The built book as a reader sees it, in headless Chromium (Debian's chromium + chromium-driver).

``REPRO_BOOK_HTML`` names the built HTML folder; ``make test`` builds the quick-profile book
and sets it, so there this test must run. Without it (pytest alone) the test is skipped.
"""

import os
import shutil
from pathlib import Path

import pytest

from tests.book_check import book_pages, browser_available, check_book

BOOK = os.environ.get("REPRO_BOOK_HTML")
needs_browser = pytest.mark.skipif(not browser_available() and not BOOK,
                                   reason="Chromium not installed (make test installs it)")


@pytest.mark.skipif(not BOOK, reason="REPRO_BOOK_HTML not set: build the book first (make test does)")
def test_every_page_loads_with_its_figures_and_no_tracebacks():
    html_root = Path(BOOK)
    screenshots = Path(os.environ.get("REPRO_SCREENSHOTS", html_root.parent / "screenshots"))
    problems, counts = check_book(html_root, screenshots)
    assert not problems, "\n".join(problems)
    chapters = [p for p in counts if p.startswith("book/executed/")]
    assert len(chapters) >= 7, counts
    assert sum(c["figures"] for c in counts.values()) >= 20, counts  # the chapters' captioned figures
    assert len(list(screenshots.glob("*.png"))) >= 2


@needs_browser
def test_checker_reports_a_missing_figure_and_a_traceback(tmp_path):
    """The checker can fail: a page with a broken figure and an error output is reported."""
    (tmp_path / "book").mkdir()
    good_png = Path(__file__).with_name("data") / "pixel.png"
    shutil.copy(good_png, tmp_path / "book" / "ok.png")
    (tmp_path / "index.html").write_text("<html><body><p>" + "index page text " * 10 + "</p></body></html>")
    (tmp_path / "book" / "page.html").write_text(
        "<html><head><title>t</title></head><body><p>" + "some text " * 20 + "</p>"
        "<figure id='good'><img src='ok.png'><figcaption>fine</figcaption></figure>"
        "<figure id='gone'><img src='missing.png'><figcaption>removed</figcaption></figure>"
        "<div class='output traceback'><pre>Traceback (most recent call last):\nValueError</pre></div>"
        "</body></html>")
    assert book_pages(tmp_path) == ["book/page.html", "index.html"]
    problems, _ = check_book(tmp_path)
    assert any("missing.png" in p for p in problems), problems
    assert any("figure gone has no rendered image" in p for p in problems), problems
    assert any("traceback" in p for p in problems), problems
    assert not any("figure good" in p for p in problems), problems
