"""Open every page of the built HTML book in headless Chromium and report what a reader would see broken.

Used by ``test_book_browser.py``; also runnable by hand:

    python tests/book_check.py _build/html [--screenshots DIR]
"""

from __future__ import annotations

import functools
import http.server
import shutil
import tempfile
import threading
import urllib.request
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--window-size=1400,1000")
SKIP = ("genindex.html", "search.html")


def browser_available() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


def book_pages(html_root: Path) -> list[str]:
    """Relative paths of the content pages (index and every chapter)."""
    pages = [p.relative_to(html_root).as_posix() for p in sorted(html_root.rglob("*.html"))
             if not any(part.startswith(("_", ".")) for part in p.relative_to(html_root).parts)
             and p.name not in SKIP]
    if not pages:
        raise FileNotFoundError(f"no HTML pages under {html_root}")
    return pages


@contextmanager
def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port) for the duration of the block; yields the base URL."""
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # no request log on stderr
            pass

    class QuietServer(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):  # the browser may drop connections it no longer needs
            pass

    handler = functools.partial(QuietHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium():
    """A headless Chromium driven by the system chromedriver (no downloads)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


PAGE_REPORT_JS = """
const images = Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]);
const figures = Array.from(document.querySelectorAll('figure')).map(f => {
  const img = f.querySelector('img');
  return [f.id || '(no id)', img !== null && img.complete && img.naturalWidth > 0,
          (f.querySelector('figcaption') || {innerText: ''}).innerText.trim().length];
});
const tracebacks = document.querySelectorAll('.output.traceback, div.traceback, pre.traceback').length;
const text = document.body ? document.body.innerText : '';
return {images, figures, tracebacks, hasTracebackText: text.includes('Traceback (most recent call last)'),
        title: document.title, readyState: document.readyState, textLength: text.length};
"""


def expected_figures(notebook_dir: Path) -> dict[str, int]:
    """Chapter page -> the number of figures its notebook declares (``chapter: figures:`` in the
    notebook's header), so that a chapter that failed to execute fails the check."""
    import jupytext

    return {f"book/executed/{source.stem}.html": int(jupytext.read(source).metadata["chapter"]["figures"])
            for source in sorted(Path(notebook_dir).glob("*.py"))}


def check_book(html_root: Path, screenshot_dir: Path | None = None, screenshot_pages: int = 2,
               expected: dict[str, int] | None = None) -> tuple[list[str], dict]:
    """Problems found on every page (empty list: all good), and per-page counts. ``expected``
    maps pages to their least number of figures; a missing page or a short one is a problem."""
    html_root = Path(html_root)
    problems, counts = [], {}
    pages = book_pages(html_root)
    with serve(html_root) as base, chromium() as driver:
        for i, page in enumerate(pages):
            url = base + page
            try:
                status = urllib.request.urlopen(url, timeout=30).status
            except OSError as err:
                problems.append(f"{page}: not served ({err})")
                continue
            if status != 200:
                problems.append(f"{page}: HTTP {status}")
            driver.get(url)
            report = driver.execute_script(PAGE_REPORT_JS)
            counts[page] = {"images": len(report["images"]), "figures": len(report["figures"])}
            if report["readyState"] != "complete" or report["textLength"] < 50:
                problems.append(f"{page}: did not load (readyState {report['readyState']}, {report['textLength']} chars)")
            for src, complete, width in report["images"]:
                if not complete or width == 0:
                    problems.append(f"{page}: image {src} is missing or empty")
            for fig_id, ok, caption_length in report["figures"]:
                if not ok:
                    problems.append(f"{page}: figure {fig_id} has no rendered image")
                if caption_length == 0:
                    problems.append(f"{page}: figure {fig_id} has no caption")
            if report["tracebacks"] or report["hasTracebackText"]:
                problems.append(f"{page}: a cell output contains a traceback")
            if expected and page in expected and len(report["figures"]) < expected[page]:
                problems.append(f"{page}: {len(report['figures'])} figures, expected at least {expected[page]}")
            if screenshot_dir is not None and i < screenshot_pages + 1 and page != "index.html":
                screenshot_dir.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(screenshot_dir / (page.replace("/", "_") + ".png")))
    for page in sorted(set(expected or {}) - set(pages)):
        problems.append(f"{page}: missing from the built book")
    return problems, counts


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_root", type=Path)
    parser.add_argument("--screenshots", type=Path, default=None)
    args = parser.parse_args()
    found, per_page = check_book(args.html_root, args.screenshots)
    for page, c in per_page.items():
        print(f"{page}: {c['images']} images, {c['figures']} figures")
    print("\n".join(found) if found else "no problems")
    raise SystemExit(1 if found else 0)
