"""The execution report page: one row per executed chapter with the run that computed its page."""

import json
import time

import nbformat

from lib.book import execution_report
from lib.book.execution_report import chapter_runs, report_markdown, run_provenance, write_report


def chapter(folder, name, title, run=None):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"Intro\n\n# {title}\n\ntext")])
    notebook.metadata["repro"] = {"execution_key": "k", "profile": "quick", **({"run": run} if run else {})}
    nbformat.write(notebook, folder / f"{name}.ipynb")


def test_run_provenance_records_when_where_and_from_which_code():
    p = run_provenance(1_700_000_000.0, 12.34)
    assert p["started_utc"] == "2023-11-14 22:13:20" and p["wall_time_s"] == 12.3 and p["started_s"] == 1.7e9
    assert len(p["commit"]) == 40 or p["commit"] == "unknown"
    assert "cores" in p["machine"] and p["python"].count(".") == 2


def test_the_report_says_which_chapters_this_build_executed_and_which_it_kept(tmp_path):
    build_started = time.time()
    now = run_provenance(build_started + 1, 61.0) | {"lib_dirty": False}
    earlier = run_provenance(build_started - 3600, 5.0) | {"commit": "a" * 40, "lib_dirty": True}
    chapter(tmp_path, "00_quickstart", "Quick start", now)
    chapter(tmp_path, "03_epntk", "The ePNTK", earlier)
    chapter(tmp_path, "05_old", "Written before runs were recorded")
    (tmp_path / "06_stub.ipynb").write_text("not a notebook")
    runs = chapter_runs(tmp_path, ["00_quickstart", "01_missing", "03_epntk", "05_old", "06_stub"], build_started)
    assert [(r.name, r.title, r.executed_now) for r in runs] == [
        ("00_quickstart", "Quick start", True), ("03_epntk", "The ePNTK", False),
        ("05_old", "Written before runs were recorded", False), ("06_stub", "06_stub", False)]
    page = report_markdown(runs)
    assert page.startswith("# Execution report\n")
    assert "```{list-table} Each chapter's run" in page  # a titled table
    rows = page.split("* - ")[2:]
    assert rows[0].splitlines()[:5] == ["{doc}`Quick start <00_quickstart>`", f"  - {now['started_utc']}", "  - 61 s",
                                         "  - executed", f"  - `{now['commit'][:10]}`"]
    assert "  - kept" in rows[1] and "`aaaaaaaaaa` (with uncommitted changes to lib/)" in rows[1]
    assert rows[2].count("not recorded") == 2 and "  - kept" in rows[2]
    assert "of which this build executed 1 and kept 3" in page and "66 s in all" in page


def test_write_report_replaces_the_page_atomically(tmp_path):
    chapter(tmp_path, "00_quickstart", "Quick start", run_provenance(time.time(), 1.0))
    path = write_report(tmp_path, ["00_quickstart"], 0.0)
    assert path.name == execution_report.REPORT_NAME and "executed" in path.read_text()
    assert write_report(tmp_path, ["00_quickstart"], time.time() + 10).read_text().count("  - kept") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00_quickstart.ipynb", "execution_report.md"]
    assert report_markdown([]).endswith("No chapter has been executed in this folder.\n")
    assert json.loads(json.dumps(run_provenance(0, 0)))["wall_time_s"] == 0  # stored in the notebook's metadata
