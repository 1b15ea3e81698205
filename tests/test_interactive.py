"""Interactive use: `make lab` serves the notebooks with the percent sources opened as notebooks, and
chapters run the way Jupyter runs them (a kernel in notebooks/, no papermill, no injected parameters)
without errors, reusing the results cache and never touching what the book publishes."""

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from lib.book.page_outputs import page_problems, without_progress_bars
from lib.core import results

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
PUBLISHED = (REPO / "book" / "executed", REPO / "results" / "summary")
INTERACTIVE_CHAPTERS = ("00_quickstart", "01_one_step_entk")  # seconds each at their book defaults


def tree_digest(folders) -> str:
    """SHA-256 over the relative paths and contents of every file under ``folders``."""
    return results.digest_files(sorted(p for folder in folders for p in Path(folder).rglob("*") if p.is_file()), REPO)


def run_as_jupyter(name: str) -> nbformat.NotebookNode:
    """``notebooks/<name>.py`` executed as JupyterLab would (jupytext's notebook, a python3 kernel started in
    notebooks/ with this process's environment, no parameters injected)."""
    notebook = jupytext.read(NOTEBOOKS / f"{name}.py")
    NotebookClient(notebook, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return notebook


def problems(notebook: nbformat.NotebookNode) -> list[str]:
    """What the page would show that it must not: errors, stderr other than progress bars, warnings,
    paths (:mod:`lib.book.page_outputs`)."""
    return page_problems(without_progress_bars(notebook))


def cache_entries(results: Path) -> dict[str, float]:
    return {str(p.relative_to(results)): p.stat().st_mtime for p in results.rglob("arrays.npz")}


def test_chapters_run_as_in_jupyter_reuse_the_cache_and_leave_the_book_untouched(tmp_path, monkeypatch):
    published = tree_digest(PUBLISHED)
    results = tmp_path / "results"
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(results))  # inherited by the kernels
    monkeypatch.delenv("REPRO_PROFILE", raising=False)
    for name in INTERACTIVE_CHAPTERS:
        executed = run_as_jupyter(name)
        assert not problems(executed), f"{name} run as in Jupyter: {problems(executed)}"
    first = cache_entries(results)
    assert first, "the interactive runs cached nothing"
    started = time.perf_counter()
    assert not problems(run_as_jupyter(INTERACTIVE_CHAPTERS[0]))
    assert cache_entries(results) == first, "a second interactive run recomputed a cached result"
    assert time.perf_counter() - started < 120, "a second interactive run of the quickstart should only read the cache"
    assert tree_digest(PUBLISHED) == published, "an interactive run changed book/executed or the published records"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture
def lab_server():
    """``make lab`` on a free port, without a browser; (base URL, token); stopped afterwards."""
    port, token = _free_port(), "repro-test-token"
    process = subprocess.Popen(
        ["make", "-s", "lab", f"LAB_PORT={port}", f"LAB_ARGS=--no-browser --IdentityProvider.token={token}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                _get(f"{base}/api/status", token)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read() if process.poll() is not None else "(still running)"
                    pytest.fail(f"make lab did not answer on port {port}: {output[-2000:]}")
                time.sleep(0.5)
        yield base, token
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_make_lab_serves_the_percent_sources_as_paired_notebooks(lab_server):
    base, token = lab_server
    listing = _get(f"{base}/api/contents/", token)
    names = {item["name"] for item in listing["content"]}
    assert {f"{n}.py" for n in INTERACTIVE_CHAPTERS} <= names  # the server's root is notebooks/
    opened = _get(f"{base}/api/contents/00_quickstart.py?type=notebook&content=1", token)
    assert opened["type"] == "notebook"
    cells = opened["content"]["cells"]
    assert any("parameters" in cell["metadata"].get("tags", []) for cell in cells)
    assert opened["content"]["metadata"]["jupytext"]["formats"] == "ipynb,py:percent"
    assert not {name for name in names if name.endswith(".ipynb")}  # each chapter listed once: its .py
    kernels = _get(f"{base}/api/kernelspecs", token)
    # the environment's own kernel: jupyter_client starts "python" with the server's interpreter (.venv's)
    assert kernels["kernelspecs"]["python3"]["spec"]["argv"][:3] == ["python", "-m", "ipykernel_launcher"]


def test_make_lab_renders_myst_with_the_jupyterlab_myst_extension(lab_server):
    """JupyterLab's page configuration loads the pinned jupyterlab-myst extension (it replaces the
    Markdown renderer, so admonitions, dropdowns and roles render instead of showing as raw text)."""
    base, token = lab_server
    request = urllib.request.Request(f"{base}/lab", headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        page = response.read().decode()
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page,
                                  re.S).group(1))
    extensions = {extension["name"] for extension in config["federated_extensions"]}
    assert "jupyterlab-myst" in extensions
    assert not any(name.startswith("jupyterlab-myst") for name in config.get("disabledExtensions", []))
