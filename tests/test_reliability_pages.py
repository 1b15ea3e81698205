"""Published pages that are never stale, tampered with or showing a run's internals, and one source
per notebook (issue 39): pages re-rendered by content, not modification time; summary records
verified against the run that wrote them; lock waits kept out of pages and reported with their real
cause; the runner, sweeps, papermill and JupyterLab all running the ``.py``; the explorer's widgets
never blocking a headless run; scratch folders of dead runs removed by the next run.

Most runner tests execute a tiny notebook (``zz_tiny``, written into a temporary notebooks folder)
instead of a chapter: a few seconds of kernel start each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from lib.book import kernel_manager, notebook_sources, page_outputs, runner, summary
from lib.core.cache_entry import LOCK_WAIT_NOTICE

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted((REPO / "notebooks").glob("*.py"))
NOTICE = (f"{LOCK_WAIT_NOTICE} /r/pair/abc: its lock /r/pair/abc.lock is held by pid 4242 on host other "
          "(python -m lib.book.sweep_command); giving up after 7200 s (REPRO_LOCK_TIMEOUT)")
TINY = f'''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
x = 1
notice = False

# %%
import sys

from lib.book import summary

if notice:
    print({NOTICE!r}, file=sys.stderr, flush=True)
print(f"value {{x}}")
_ = summary.record("zz_tiny", {{"x": x}}, [summary.row("q", 1, x, True, "c")])
'''


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A notebooks folder holding only ``zz_tiny.py`` and its paired ``.ipynb``, known to the runner;
    the code digest fixed (other work on lib/ must not change the execution key mid-test)."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    source = notebooks / "zz_tiny.py"
    source.write_text(TINY)
    jupytext.write(jupytext.read(source), source.with_suffix(".ipynb"))
    for module in (notebook_sources, runner):  # where the source is looked up, and the runner's command line
        monkeypatch.setattr(module, "NOTEBOOK_DIR", notebooks)
        monkeypatch.setattr(module, "NOTEBOOKS", (*notebook_sources.NOTEBOOKS, "zz_tiny"))
    monkeypatch.setattr(runner, "code_digest", lambda: "fixed")
    monkeypatch.setattr(runner, "check_ranges", lambda runs, allow_large=False, timeout=600: None)
    return source


def stderr_texts(notebook: nbformat.NotebookNode) -> str:
    return "".join(o["text"] for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


# ---------------------------------------------------------------- stale pages


def test_a_page_replaced_by_an_older_file_gets_the_time_of_now(tmp_path):
    page = tmp_path / "chapter.ipynb"
    page.write_text("old numbers")
    assert page_outputs.mark_if_changed(page)  # nothing recorded yet: marked
    assert not page_outputs.mark_if_changed(page)  # same content: left alone
    page.write_text("restored numbers")
    os.utime(page, (1_000_000_000, 1_000_000_000))  # cp -p of an old file: older than any build
    assert page_outputs.mark_if_changed(page)
    assert page.stat().st_mtime > 1_000_000_000
    os.utime(page, (1_000_000_000, 1_000_000_000))  # same content, old time: nothing to re-render
    assert not page_outputs.mark_if_changed(page)
    assert page.stat().st_mtime == 1_000_000_000


def test_the_runner_marks_an_up_to_date_page_whose_content_changed(tiny, tmp_path, capsys):
    page = runner.execute("zz_tiny", {}, tmp_path / "out")
    executed = nbformat.read(page, as_version=4)
    executed.cells[1].outputs[0]["text"] = "value 2\n"  # same run, other content (a restore from elsewhere)
    nbformat.write(executed, page)
    os.utime(page, (1_000_000_000, 1_000_000_000))
    assert runner.execute("zz_tiny", {}, tmp_path / "out") == page
    assert "up to date" in capsys.readouterr().out
    assert page.stat().st_mtime > 1_000_000_000  # the book build re-reads it


# ---------------------------------------------------------------- tampered summary records


def test_a_hand_edited_record_is_refused_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_SUMMARY_DIR", str(tmp_path))
    monkeypatch.delenv("REPRO_SUMMARY_STAGING", raising=False)
    path = summary.record("01_one_step_entk", {"seed": 0}, [summary.row("q", 1.0, 0.98, True, "c")])
    assert summary.load(["01_one_step_entk"])[0][0]["ours"] == 0.98
    path.write_text(path.read_text().replace("0.98", "999"))
    with pytest.raises(page_outputs.RecordMismatch, match=f"summary record {path} does not match its checksum.*re-run"):
        summary.load(["01_one_step_entk"])
    unsealed = {k: v for k, v in json.loads(path.read_text()).items() if k != "sha256"}
    path.write_text(json.dumps(unsealed))
    with pytest.raises(page_outputs.RecordMismatch, match="does not match its checksum"):
        summary.load(["01_one_step_entk"])


def test_a_record_of_another_run_than_the_executed_chapter_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_SUMMARY_DIR", str(tmp_path / "summary"))
    monkeypatch.delenv("REPRO_SUMMARY_STAGING", raising=False)
    path = summary.record("03_epntk", {}, [summary.row("q", 1, 2, True, "c")])
    chapter = nbformat.v4.new_notebook()
    chapter.metadata["repro"] = {"summary_sha256": {"03_epntk": json.loads(path.read_text())["sha256"]}}
    nbformat.write(chapter, tmp_path / "03_epntk.ipynb")
    assert summary.load(["03_epntk"])[0][0]["ours"] == 2
    summary.record("03_epntk", {}, [summary.row("q", 1, 3, True, "c")])  # a valid record, but not that run's
    with pytest.raises(page_outputs.RecordMismatch, match="was not written by the run that produced"):
        summary.load(["03_epntk"])


def test_a_chapter_whose_record_was_edited_is_not_up_to_date(tiny, tmp_path, capsys):
    out = tmp_path / "out"
    runner.execute("zz_tiny", {}, out)
    record = out / "summary" / "zz_tiny.json"
    record.write_text(record.read_text().replace('"ours": 1', '"ours": 999'))
    runner.execute("zz_tiny", {}, out)
    assert "up to date" not in capsys.readouterr().out
    assert json.loads(record.read_text())["rows"][0]["ours"] == 1
    assert page_outputs.verified(record)["rows"][0]["ours"] == 1


# ---------------------------------------------------------------- lock waits and other run notices


def test_run_notices_leave_the_page_and_other_output_stays():
    cached = "[sweep] schedule: 10 of 10 cache entries already cached"
    slow = "[sweep] no point finished for 120 s; assigned to worker tcp://127.0.0.1:1 (name 0): [{'x': 1}]"
    cell = nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=f"{cached}\nr = 0.31 (n = 50)\n"),
        nbformat.v4.new_output("stream", name="stderr", text=f"{NOTICE}\n{slow}\nUserWarning: something is off\n")])
    notebook = nbformat.v4.new_notebook(cells=[cell])
    assert page_outputs.run_notices(notebook) == [cached, NOTICE, slow]
    assert f"cell 0: run notice {cached!r}" in page_outputs.page_problems(notebook)
    outputs = page_outputs.without_run_notices(notebook).cells[0].outputs
    assert [o["text"] for o in outputs] == ["r = 0.31 (n = 50)\n", "UserWarning: something is off\n"]
    only = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "stream", name="stderr", text=NOTICE + "\n"), nbformat.v4.new_output("stream", name="stdout", text=cached)])])
    assert page_outputs.without_run_notices(only).cells[0].outputs == []
    assert page_outputs.page_problems(only) == []


def test_a_wait_for_another_process_is_logged_with_its_cause_and_not_published(tiny, tmp_path, capsys):
    out = tmp_path / "out"
    assert runner.main(["--only", "zz_tiny", "-p", "notice=True", "--output-dir", str(out)]) == 0
    logged = capsys.readouterr()
    page = nbformat.read(out / "zz_tiny.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in page.cells])
    assert LOCK_WAIT_NOTICE not in outputs and stderr_texts(page) == ""
    assert "value 1" in outputs
    assert "waited for a results-cache entry another process was computing" in logged.out
    assert "held by pid 4242 on host other" in logged.out  # the real cause: who computed it
    assert "RUNS_AFTER" not in logged.err + logged.out and "warning" not in logged.err


# ---------------------------------------------------------------- one source per notebook


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_chapter_pair_holds_the_same_cells(source):
    notebook_sources.check_paired(source)


def test_a_pair_that_differs_is_refused_in_one_line_naming_both_files(tiny, tmp_path, capsys):
    paired = tiny.with_suffix(".ipynb")
    notebook = nbformat.read(paired, as_version=4)
    notebook.cells[1].source = notebook.cells[1].source.replace("value", "VALUE")
    nbformat.write(notebook, paired)
    with pytest.raises(notebook_sources.PairMismatch, match=f"{tiny} and {paired} differ"):
        runner.execute("zz_tiny", {}, tmp_path / "out")
    assert runner.main(["--only", "zz_tiny", "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tiny) in err and str(paired) in err, err
    assert not (tmp_path / "out").exists()  # refused before any kernel started


def test_metadata_key_order_alone_is_no_difference(tiny):
    text = tiny.read_text().replace('# %% tags=["parameters"]', '# %% tags=["parameters"] a={"z": 1, "b": 2}')
    tiny.write_text(text)
    notebook = jupytext.read(tiny)
    notebook.cells[0].metadata = {"a": {"b": 2, "z": 1}, "tags": ["parameters"]}
    nbformat.write(notebook, tiny.with_suffix(".ipynb"))
    notebook_sources.check_paired(tiny)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_jupyterlab_opens_a_pair_whose_ipynb_is_newer(source, tmp_path):
    """A checkout or clock skew can leave the .ipynb newer than its .py: jupytext's contents manager then
    compares the two, which must not differ (not even in the order of cell metadata keys)."""
    from jupyter_server.services.contents.largefilemanager import LargeFileManager
    from jupytext.sync_contentsmanager import build_sync_jupytext_contents_manager_class

    for path in (source, source.with_suffix(".ipynb")):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    os.utime(tmp_path / source.name, (1_000_000_000, 1_000_000_000))
    manager = build_sync_jupytext_contents_manager_class(LargeFileManager)(root_dir=str(tmp_path))
    assert manager.get(source.name)["content"]["cells"]


def test_the_readme_papermill_command_runs_the_py_source():
    readme = (REPO / "README.md").read_text()
    command = next(line for line in readme.splitlines() if "papermill" in line and line.strip().startswith("mkdir"))
    assert "jupytext --to ipynb -o - notebooks/" in command and "papermill - " in command, command
    assert ".ipynb sweeps" not in command  # never the paired .ipynb itself


# ---------------------------------------------------------------- the explorer's widgets


class _Kernel:
    def __init__(self, content):
        self.content = content

    def get_parent(self):
        return {"content": self.content}


class _Shell:
    def __init__(self, content):
        self.kernel = _Kernel(content)


def test_only_a_frontend_that_takes_input_counts_as_interactive():
    assert kernel_manager.interactive_frontend(_Shell({"allow_stdin": True}))  # JupyterLab
    assert not kernel_manager.interactive_frontend(_Shell({"allow_stdin": False}))  # papermill, nbclient
    assert not kernel_manager.interactive_frontend(_Shell({}))
    assert not kernel_manager.interactive_frontend(object())  # a shell without a kernel


def test_a_real_kernel_tells_a_lab_request_from_a_headless_one():
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", cwd=str(REPO))
    try:
        seen = {}
        for allow_stdin in (True, False):
            msg_id = client.execute("from lib.book.kernel_manager import interactive_frontend as f; print(f())",
                                    allow_stdin=allow_stdin)
            text = ""
            while True:
                msg = client.get_iopub_msg(timeout=60)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "stream":
                    text += msg["content"]["text"]
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
            seen[allow_stdin] = text.strip()
        assert seen == {True: "True", False: "False"}
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_the_explorer_widget_cell_never_blocks_a_headless_run(monkeypatch):
    """The explorer's widget cell, run the way papermill runs it without a profile (no REPRO_PROFILE,
    no injected parameters): it must finish, with nothing displayed, within the test's time-out."""
    monkeypatch.delenv("REPRO_PROFILE", raising=False)
    cells = jupytext.read(REPO / "notebooks" / "11_explorer.py").cells
    parameters = next(c for c in cells if "parameters" in c.metadata.get("tags", []))
    widgets = next(c for c in cells if "interact(" in c.source)
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(parameters.source + "\nn_iterations = 10"),
        nbformat.v4.new_code_cell("from lib.book import plot_explorer"),
        nbformat.v4.new_code_cell(widgets.source)])
    NotebookClient(notebook, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(REPO / "notebooks")}}).execute()
    assert notebook.cells[2].outputs == []


# ---------------------------------------------------------------- scratch folders of dead runs


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_scratch_folders_of_dead_runs_of_this_chapter_are_removed(tmp_path):
    host, dead = runner._host(), _dead_pid()
    names = {"dead": f".run-zz_tiny-{host}-{dead}-abc", "legacy": ".run-zz_tiny-k3j2_x9q",
             "live": f".run-zz_tiny-{host}-{os.getpid()}-def", "other_host": f".run-zz_tiny-elsewhere-{dead}-ghi",
             "other_chapter": f".run-00_quickstart-{host}-{dead}-jkl"}
    for name in names.values():
        (tmp_path / name).mkdir()
    removed = runner.remove_dead_runs(tmp_path, "zz_tiny")
    assert sorted(p.name for p in removed) == sorted([names["dead"], names["legacy"]])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [names["live"], names["other_host"], names["other_chapter"]])


def test_the_next_run_removes_a_killed_runs_folder(tiny, tmp_path):
    out = tmp_path / "out"
    stale = out / f".run-zz_tiny-{runner._host()}-{_dead_pid()}-abc"
    (stale / "summary").mkdir(parents=True)
    runner.execute("zz_tiny", {}, out)
    assert not list(out.glob(".run-*"))
