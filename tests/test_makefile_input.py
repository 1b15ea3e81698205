"""The Makefile's handling of what users type and of a busy package manager, run with stand-ins.

``make sweep`` and ``make lab`` run with ``PY`` / ``VENV`` pointing at a recorder script, so each test
sees the exact arguments and environment the real program would get, without running a sweep or a
server. ``make browser`` runs with ``APT_GET`` pointing at a fake apt-get that answers like apt does
while another process holds its lock; nothing is installed and no real lock is touched.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
USER_VARS = ("NOTEBOOK", "FUNCTION", "GRID", "WORKERS", "SCHEDULER", "TABLE", "LAB_ARGS", "LAB_PORT")
MAKE_TIMEOUT_S = 60

# A recorder: writes its argv (without the interpreter) and the user variables it was given to $RECORD_TO.
RECORDER = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["RECORD_TO"], "w") as f:
    json.dump({{"argv": sys.argv[1:], "env": {{k: os.environ.get(k) for k in {USER_VARS!r}}}}}, f)
"""

# apt-get as it answers while another process holds the dpkg frontend lock, on the calls listed in
# $FAKE_APT_LOCKED (1-based); $FAKE_APT_FAIL makes every call fail with a different apt error.
FAKE_APT = f"""#!{sys.executable}
import os, sys
from pathlib import Path
log = Path(os.environ["FAKE_APT_LOG"])
calls = log.read_text().splitlines() if log.exists() else []
log.write_text("\\n".join(calls + [" ".join(sys.argv[1:])]) + "\\n")
if os.environ.get("FAKE_APT_FAIL"):
    sys.exit(print("E: Unable to locate package chromium-driver", file=sys.stderr) or 100)
if str(len(calls) + 1) in os.environ.get("FAKE_APT_LOCKED", "").split(","):
    print("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)", file=sys.stderr)
    print("E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), "
          "is another process using it?", file=sys.stderr)
    sys.exit(100)
"""

# Strings make or the shell would interpret if they were not passed verbatim.
NASTY = {
    "shell": "seed=$(shell touch {marker})",
    "dollar_digit": "tag=cost$5,free",
    "double_dollar": "x=$$y",
    "quote_backslash_backtick": "tag='a\\b' `touch {marker}` \"c\" $(touch {marker}) #d",
}


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def _clean_env(**extra: str) -> dict:
    """This process's environment without make's own variables or user input from an enclosing make."""
    env = {k: v for k, v in os.environ.items()
           if k not in USER_VARS and k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    return env | extra


def _make(args: list, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=MAKE_TIMEOUT_S)


def _pass_input(how: str, values: dict, make_args: list, env: dict):
    """``make target NAME=value`` (command line) or ``NAME=value make target`` (environment)."""
    if how == "command_line":
        return make_args + [f"{k}={v}" for k, v in values.items()], env
    return make_args, env | values


@pytest.fixture
def recorder(tmp_path):
    """(recorder script, file it writes, an existing stand-in for the setup stamp)."""
    stamp = tmp_path / "installed-stamp"
    stamp.touch()
    return _script(tmp_path / "recorder", RECORDER), tmp_path / "record.json", stamp


@pytest.mark.parametrize("how", ["command_line", "environment"])
@pytest.mark.parametrize("case", sorted(NASTY))
def test_make_sweep_passes_the_grid_verbatim(tmp_path, recorder, how, case):
    script, record, stamp = recorder
    marker = tmp_path / "expanded"
    grid = NASTY[case].format(marker=marker)
    args, env = _pass_input(how, {"NOTEBOOK": "00_quickstart", "GRID": grid},
                            ["sweep", f"PY={script}", f"STAMP={stamp}"], _clean_env(RECORD_TO=str(record)))
    done = _make(args, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), "make or the shell ran a command written in GRID"
    argv = json.loads(record.read_text())["argv"]
    assert argv[argv.index("--grid-spec") + 1] == grid


@pytest.mark.parametrize("how", ["command_line", "environment"])
def test_make_sweep_passes_every_user_variable_verbatim(tmp_path, recorder, how):
    script, record, stamp = recorder
    marker = tmp_path / "expanded"
    values = {name: f"{name.lower()}$(shell touch {marker})$$x$1'`touch {marker}`"
              for name in ("NOTEBOOK", "FUNCTION", "GRID", "WORKERS", "SCHEDULER", "TABLE")}
    args, env = _pass_input(how, values, ["sweep", f"PY={script}", f"STAMP={stamp}"],
                            _clean_env(RECORD_TO=str(record)))
    done = _make(args, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), "make or the shell ran a command written in a user variable"
    seen = json.loads(record.read_text())
    argv = seen["argv"]
    for option, name in [("--function", "FUNCTION"), ("--notebook", "NOTEBOOK"), ("--grid-spec", "GRID"),
                         ("--workers", "WORKERS"), ("--scheduler", "SCHEDULER"), ("--table", "TABLE")]:
        assert argv[argv.index(option) + 1] == values[name]
        assert seen["env"][name] == values[name]
    assert argv[argv.index("--output-dir") + 1] == "sweeps/" + values["NOTEBOOK"]


# make lab's file browser lists each chapter once: the paired .ipynb files are hidden
LAB_HIDES_PAIRED_NOTEBOOKS = '--ContentsManager.hide_globs=["__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", "*.ipynb"]'


@pytest.mark.parametrize("how", ["command_line", "environment"])
def test_make_lab_passes_port_and_args_verbatim_split_at_spaces(tmp_path, how):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    _script(venv / "bin" / "jupyter", RECORDER)
    (venv / "stamp").touch()
    record, marker = tmp_path / "record.json", tmp_path / "expanded"
    lab_args = f"--no-browser --a=$(shell touch {marker}) --b=`touch {marker}` --c='x\\y' --d=* --e=$$f$5"
    args, env = _pass_input(how, {"LAB_PORT": "88$5", "LAB_ARGS": lab_args},
                            ["lab", f"VENV={venv}", f"STAMP={venv / 'stamp'}"], _clean_env(RECORD_TO=str(record)))
    done = _make(args, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), "make or the shell ran a command written in LAB_ARGS"
    argv = [a for a in json.loads(record.read_text())["argv"] if a != "--allow-root"]
    assert argv == ["lab", "--ServerApp.root_dir=notebooks", "--ServerApp.port=88$5", LAB_HIDES_PAIRED_NOTEBOOKS,
                    *lab_args.split(" ")]


def test_make_lab_port_defaults_to_8888(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    _script(venv / "bin" / "jupyter", RECORDER)
    (venv / "stamp").touch()
    record = tmp_path / "record.json"
    done = _make(["lab", f"VENV={venv}", f"STAMP={venv / 'stamp'}"], _clean_env(RECORD_TO=str(record)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--ServerApp.port=8888" in json.loads(record.read_text())["argv"]


def _browser(tmp_path, lock_wait_s: int, **fake: str) -> tuple:
    """``make browser`` as if Chromium were missing, with the fake apt-get; (result, apt-get calls)."""
    apt, log = _script(tmp_path / "apt-get", FAKE_APT), tmp_path / "apt-calls"
    done = _make(["browser", "BROWSER_COMMANDS=no-such-command-repro", f"APT_GET={apt}",
                  f"APT_LOCK_WAIT={lock_wait_s}", "APT_LOCK_POLL=0"], _clean_env(FAKE_APT_LOG=str(log), **fake))
    return done, log.read_text().splitlines() if log.exists() else []


def test_make_browser_waits_while_another_process_holds_the_package_lock(tmp_path):
    done, calls = _browser(tmp_path, lock_wait_s=600, FAKE_APT_LOCKED="1,2,4")
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == ["update -qq"] * 3 + ["install -y -qq chromium chromium-driver"] * 2
    waiting = [line for line in done.stderr.splitlines() if "waits up to 600 s for the package lock" in line]
    assert len(waiting) == 2, done.stderr  # one line per wait (update, then install), not one per retry
    assert all("/var/lib/dpkg/lock-frontend" in line for line in waiting)


def test_make_browser_gives_up_naming_the_lock_when_the_wait_runs_out(tmp_path):
    done, calls = _browser(tmp_path, lock_wait_s=0, FAKE_APT_LOCKED="1")
    assert done.returncode != 0
    assert calls == ["update -qq"]
    message = [line for line in done.stderr.splitlines() if line.startswith("[browser]")]
    assert len(message) == 1, done.stderr
    assert "gave up" in message[0] and "APT_LOCK_WAIT" in message[0]
    assert "Could not get lock /var/lib/dpkg/lock-frontend" in message[0]


def test_make_browser_fails_at_once_on_other_apt_errors(tmp_path):
    done, calls = _browser(tmp_path, lock_wait_s=600, FAKE_APT_FAIL="1")
    assert done.returncode != 0
    assert calls == ["update -qq"]
    assert "Unable to locate package chromium-driver" in done.stderr
