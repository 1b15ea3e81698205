"""Open every page of the built HTML book in headless Chromium and report what a reader would see broken:
pages that do not load, missing figures or captions, tracebacks, math left as raw TeX (MathJax
must come from the book itself: any request leaving the local server is reported), figure
images with fewer pixels than the text column is wide, distorted, or scaled down so far that their
text is unreadable (figures follow lib.book.plot_style: 2x PNGs, smallest text MIN_FONT_PT), table
cells that wrap a number or show a missing value raw ("nan"), and the project's process wording
("(issue 25: ...)", a blank "commit ``") in reader text.

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

from lib.book.plot_style import FIGURE_DPI, MIN_FONT_PT, MIN_TEXT_PX

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WINDOW_WIDTH = 1280  # a normal laptop window: nothing a reader needs may lie sideways beyond it
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", f"--window-size={WINDOW_WIDTH},900")
SKIP = ("genindex.html", "search.html")
# kept by the browser test: the verdicts page and the two chapters with the most tables
# what a reader must see on the first screen (1280 x FIRST_SCREEN_PX) of a page: the tally on the landing page and the
# verdicts page, the answer box on a chapter that answers a question (page -> (CSS selector, text it starts with))
FIRST_SCREEN_PX = 900
FIRST_SCREEN_LINES_PX = 150  # of the marked block visible on the first screen: its title and a few lines
ANSWER_BOX = (".admonition .admonition-title", "The answer")
FIRST_SCREEN = {"book/intro.html": ("p", "The verdicts at a glance"),
                "book/executed/07_reproduction_summary.html": (".cell_output table", ""),
                **{f"book/executed/{chapter}.html": ANSWER_BOX
                   for chapter in ("05_multitask_performance", "06_correlation_analysis", "08_entk_over_training",
                                   "10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories")}}
# kept by the browser test (its first screen): the landing page, the verdicts page and the chapters of FIRST_SCREEN
SCREENSHOT_PAGES = tuple(FIRST_SCREEN)


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


# MathJax typesets asynchronously: wait for its startup promise (pages without math do not load it)
WAIT_FOR_MATH_JS = """
const done = arguments[arguments.length - 1];
const started = Date.now();
(function poll() {
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    window.MathJax.startup.promise.then(() => done(true), () => done(false));
  } else if (document.querySelector('script[src*="mathjax"]') && Date.now() - started < 20000
             && (document.readyState !== 'complete' || window.MathJax)) {
    setTimeout(poll, 100);  // MathJax is loading or starting (a script that failed to load: done)
  } else {
    done(false);
  }
})();
"""

PAGE_REPORT_JS = r"""
const images = Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]);
const figures = Array.from(document.querySelectorAll('figure')).map(f => {
  const img = f.querySelector('img');
  return [f.id || '(no id)', img !== null && img.complete && img.naturalWidth > 0,
          (f.querySelector('figcaption') || {innerText: ''}).innerText.trim().length];
});
const tracebacks = document.querySelectorAll('.output.traceback, div.traceback, pre.traceback').length;
const text = document.body ? document.body.innerText : '';

// math: Sphinx marks every equation with class "math"; MathJax puts an mjx-container in it
const mathElements = Array.from(document.querySelectorAll('.math'));
const untypeset = mathElements.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.trim().slice(0, 60));
const texErrors = Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent.slice(0, 60));
// raw TeX in the visible text outside code listings
let prose = '';
if (document.body) {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight').forEach(e => e.remove());
  prose = copy.textContent;
}
const rawTex = (prose.match(/\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$/g) || []).slice(0, 5);

// the text column: the article's content box
const article = document.querySelector('article.bd-article') || document.querySelector('article') || document.body;
const style = getComputedStyle(article);
const columnWidth = article.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
const figureImages = Array.from(document.querySelectorAll('figure img')).map(i => {
  const f = i.closest('figure');
  const box = i.getBoundingClientRect();
  return [f.id || i.getAttribute('src'), i.naturalWidth, Math.round(box.width),
          i.naturalHeight > 0 && box.height > 0 ? (box.width / box.height) / (i.naturalWidth / i.naturalHeight) : 1];
});

// a table cell holding a number (or an interval of numbers) must fit on one line
const numeric = /^[-+\u2212\u2013]?[\d.,]+(e[-+]?\d+)?%?(\s*(\u00b1|\+-|[\[(,;\])]|\u2013|to|x|\u00d7)\s*[-+\u2212\u2013]?[\d.,]*(e[-+]?\d+)?%?)*$/i;
const wrapped = [];
document.querySelectorAll('td, th').forEach(cell => {
  const value = cell.innerText.trim();
  if (!value || !/\d/.test(value) || !numeric.test(value)) return;
  // one rectangle per line of each text node (element boxes such as a <p> are not lines)
  const tops = [];
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0).forEach(r => tops.push(r.top));
  }
  tops.sort((a, b) => a - b);
  const lines = tops.filter((top, i) => i === 0 || top - tops[i - 1] > 3).length;
  if (lines > 1) wrapped.push([value, lines]);
});

// a table cell that shows a missing value raw instead of a dash or a word
const rawMissing = Array.from(document.querySelectorAll('td, th')).map(c => c.innerText.trim())
  .filter(v => /^(nan|NaN|None|<NA>|NaT|inf|-inf)$/.test(v)).slice(0, 3);

// what a reader must not see in the page's text: warnings of the run and paths of the machine that built it
const visible = document.body ? document.body.innerText : '';
const warnings = (visible.match(/\b\w*Warning\b:[^\n]{0,60}/g) || []).slice(0, 3);
const notices = (visible.match(/^\[(?:sweep|results|runner)\] [^\n]{0,60}/gm) || []).slice(0, 3);  // a tool's printout
// the project's own process leaking into reader text: issue numbers, review labels, blank commits
const process = (visible.match(/\(issue \d+[^)]{0,40}\)|\bthe rigor issue\b|commit ``|in force at commit\s*(?:[.,;)]|$)/gm) || []).slice(0, 3);
const paths = (visible.match(/(?<![\w.:\/~])\/(?:(?:home|root|tmp|work|usr|opt|var|Users|srv|mnt)\/[\w.\-\/]+|[\w.\-]+\/[\w.\-]+\/[\w.\-\/]*)/g) || []).slice(0, 3);

// anything in the article that scrolls sideways at this window width (a table or a printout wider than the page)
const wide = Array.from(article.querySelectorAll('table, pre, .output, .cell_output, .pst-scrollable-table-container'))
  .filter(e => e.scrollWidth > e.clientWidth + 2 && e.clientWidth > 0)
  .filter((e, _, all) => !all.some(o => o !== e && o.contains(e)))  // the outermost scrolling box only
  .map(e => [e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : ''),
             e.scrollWidth, e.clientWidth, (e.innerText || '').trim().slice(0, 60)]);

const remote = performance.getEntriesByType('resource').map(r => r.name)
  .filter(u => !u.startsWith(location.origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
// a table a notebook shows must say what it shows: a caption (lib.book.tables.reading_table's title)
const untitled = Array.from(document.querySelectorAll('.cell_output table'))
  .filter(t => !(t.caption && t.caption.innerText.trim())).map(t => (t.innerText || '').trim().slice(0, 60)).slice(0, 3);
// broken list nesting: a numbered list item's content (its nested list, a quote, text indented into a code block)
// rendered after the list instead of inside the item
const fellOut = Array.from(article.querySelectorAll('ol')).map(o => o.nextElementSibling)
  .filter(n => n && n.matches('ul, blockquote, pre, div[class^="highlight"]'))
  .map(n => (n.innerText || '').trim().slice(0, 60)).slice(0, 3);
// where the first-screen marker (arguments[0]: [CSS selector, text it starts with]) begins, in page pixels
let firstScreenTop = null;
if (arguments.length && arguments[0]) {
  const [selector, start] = arguments[0];
  const found = Array.from(document.querySelectorAll(selector)).find(e => (e.innerText || '').trim().startsWith(start));
  if (found) firstScreenTop = found.getBoundingClientRect().top + window.scrollY;
}
return {images, figures, tracebacks, hasTracebackText: text.includes('Traceback (most recent call last)'),
        title: document.title, readyState: document.readyState, textLength: text.length,
        math: mathElements.length, untypeset, texErrors, rawTex, columnWidth, figureImages, wrapped, remote,
        warnings, notices, process, rawMissing, paths, wide, untitled, fellOut, firstScreenTop,
        viewportHeight: window.innerHeight};
"""


def expected_figures(notebook_dir: Path) -> dict[str, int]:
    """Chapter page -> the number of figures its notebook declares (``chapter: figures:`` in the
    notebook's header), so that a chapter that failed to execute fails the check."""
    import jupytext

    expected = {}
    for source in sorted(Path(notebook_dir).glob("*.py")):
        declared = jupytext.read(source).metadata.get("chapter", {}).get("figures")
        if declared is None:
            raise ValueError(f"{source.name} declares no figure count: add 'chapter: figures: N' to its jupytext "
                             "header (and 'notebook_metadata_filter: chapter')")
        expected[f"book/executed/{source.stem}.html"] = int(declared)
    return expected


def page_problems(report: dict) -> list[str]:
    """What the page report shows broken in math, figure resolution, tables and offline use."""
    problems = []
    if report["untypeset"]:
        problems.append(f"{len(report['untypeset'])} of {report['math']} equations not typeset by MathJax "
                        f"(first: {report['untypeset'][0]!r})")
    for error in report["texErrors"]:
        problems.append(f"MathJax error in {error!r}")
    if report["rawTex"]:
        problems.append(f"raw TeX in the text: {report['rawTex']}")
    for name, natural, shown, stretch in report["figureImages"]:
        text_px = MIN_FONT_PT / 72 * 2 * FIGURE_DPI * shown / natural if natural else 0.0
        if natural and text_px < MIN_TEXT_PX:
            problems.append(f"figure {name}: scaled to {shown}/{natural} px, its smallest text ({MIN_FONT_PT} pt) is "
                            f"shown {text_px:.1f} px high, below {MIN_TEXT_PX} px")
        if 0 < natural < report["columnWidth"]:
            problems.append(f"figure {name}: image {natural} px wide, narrower than the {report['columnWidth']:.0f} px "
                            "text column (blurry at full width)")
        if abs(stretch - 1) > 0.02:
            problems.append(f"figure {name}: shown with its aspect ratio changed by a factor {stretch:.2f}")
    for value, lines in report["wrapped"]:
        problems.append(f"table cell {value!r} wraps over {lines} lines")
    for text in report.get("warnings", []):
        problems.append(f"warning text in the page: {text!r}")
    for text in report.get("notices", []):
        problems.append(f"a tool's printout in the page: {text!r}")
    for text in report.get("process", []):
        problems.append(f"process wording in reader text: {text!r}")
    for value in report.get("rawMissing", []):
        problems.append(f"a table cell shows a missing value as {value!r} (show a dash or a word, the reason in a note)")
    for start in report.get("untitled", []):
        problems.append(f"a table without a title (caption): {start!r}")
    for start in report.get("fellOut", []):
        problems.append(f"content of a numbered list item rendered after the list (broken list nesting): {start!r}")
    for path in report.get("paths", []):
        problems.append(f"absolute path in the page: {path!r}")
    for element, scroll, width, start in report.get("wide", []):
        problems.append(f"{element} is {scroll} px wide in a {width} px box at a {WINDOW_WIDTH} px window (scrolls "
                        f"sideways): {start!r}")
    for url in report["remote"]:
        problems.append(f"loads {url} from the network (the book must work offline)")
    return problems


def check_book(html_root: Path, screenshot_dir: Path | None = None, screenshot_pages=SCREENSHOT_PAGES,
               expected: dict[str, int] | None = None) -> tuple[list[str], dict]:
    """Problems found on every page (empty list: all good), and per-page counts. ``expected``
    maps pages to their least number of figures; a missing page or a short one is a problem."""
    html_root = Path(html_root)
    problems, counts = [], {}
    pages = book_pages(html_root)
    with serve(html_root) as base, chromium() as driver:
        for page in pages:
            url = base + page
            try:
                status = urllib.request.urlopen(url, timeout=30).status
            except OSError as err:
                problems.append(f"{page}: not served ({err})")
                continue
            if status != 200:
                problems.append(f"{page}: HTTP {status}")
            driver.get(url)
            driver.execute_async_script(WAIT_FOR_MATH_JS)
            report = driver.execute_script(PAGE_REPORT_JS, FIRST_SCREEN.get(page))
            counts[page] = {"images": len(report["images"]), "figures": len(report["figures"]), "math": report["math"],
                            "column_width": report["columnWidth"],
                            "narrowest_figure": min((w for _, w, _, _ in report["figureImages"]), default=None)}
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
            problems.extend(f"{page}: {problem}" for problem in page_problems(report))
            if page in FIRST_SCREEN:
                top = report["firstScreenTop"]
                what = " ".join(filter(None, FIRST_SCREEN[page]))
                if top is None:
                    problems.append(f"{page}: no {what!r} on the page (the answer or the tally must open it)")
                elif top > report["viewportHeight"] - FIRST_SCREEN_LINES_PX:
                    problems.append(f"{page}: {what!r} begins {top:.0f} px down: less than {FIRST_SCREEN_LINES_PX} px "
                                    f"of it on the first screen ({report['viewportHeight']} px high in a "
                                    f"{WINDOW_WIDTH} x {FIRST_SCREEN_PX} window)")
            if expected and page in expected and len(report["figures"]) < expected[page]:
                problems.append(f"{page}: {len(report['figures'])} figures, expected at least {expected[page]}")
            if screenshot_dir is not None and page in screenshot_pages:
                screenshot_dir.mkdir(parents=True, exist_ok=True)
                driver.execute_script("window.scrollTo(0, 0)")
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
        print(f"{page}: {c['images']} images, {c['figures']} figures, {c['math']} equations, column "
              f"{c['column_width']:.0f} px, narrowest figure image {c['narrowest_figure']} px")
    print("\n".join(found) if found else "no problems")
    raise SystemExit(1 if found else 0)
