# Two entry points (see README):  make book   |   make test
# Both create .venv from requirements.txt on first use (or when it changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REQ_HASH := $(shell sha256sum requirements.txt pyproject.toml | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(REQ_HASH)
JB_FLAGS := -W --keep-going
UV_VERSION := 0.13.9

.PHONY: setup browser book test test-generic-cpu sweep benchmark lab prune-results clean-results clean

## What users pass (make sweep GRID=..., GRID=... make sweep, make lab LAB_ARGS=...) reaches the recipes
## verbatim: each variable is pinned to its literal text (simply expanded, so make never expands a $,
## $$ or $(shell ...) in it) and the recipes read it only from the environment, inside double quotes
## (so the shell never expands it either; LAB_ARGS alone is split at spaces, without globbing).
LAB_PORT ?= 8888
USER_VARS := NOTEBOOK FUNCTION GRID WORKERS SCHEDULER TABLE LAB_ARGS LAB_PORT
$(foreach var,$(USER_VARS),$(eval override $(var) := $$(value $(var))))
export $(USER_VARS)

# uv installs the pinned requirements (the same versions pip would) several times faster than pip.
# --compile-bytecode writes every package's .pyc once, as pip does by default: without them each
# kernel, Dask worker and test process compiles the modules it imports from source, again and again
# where PYTHONDONTWRITEBYTECODE is set (benchmarks/import_cost.py measures the difference).
$(STAMP):
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -r requirements.txt
	$(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps --no-build-isolation -e .
	touch $@

setup: $(STAMP)

## Headless Chromium and its driver from Debian, for the browser test of the built book. While another
## process holds a package lock (apt's "Could not get lock ..."), each apt-get step says so once and
## retries every APT_LOCK_POLL s for up to APT_LOCK_WAIT s, then fails naming the lock; other apt
## errors fail at once. Nothing is installed when every command in BROWSER_COMMANDS is on the PATH.
BROWSER_COMMANDS := chromium chromedriver
APT_GET := apt-get
APT_LOCK_WAIT := 600
APT_LOCK_POLL := 5
browser:
	@missing=; for c in $(BROWSER_COMMANDS); do command -v $$c >/dev/null || missing=1; done; [ -z "$$missing" ] || { \
	  apt_get() { \
	    deadline=$$(( $$(date +%s) + $(APT_LOCK_WAIT) )); said=; \
	    until err=$$(DEBIAN_FRONTEND=noninteractive LC_ALL=C "$(APT_GET)" "$$@" 2>&1 >&3); do \
	      lock=$$(printf '%s\n' "$$err" | sed -n '/^E: Could not get lock /{s/^E: //p;q;}'); \
	      [ -n "$$lock" ] || { printf '%s\n' "$$err" >&2; return 1; }; \
	      [ $$(date +%s) -lt $$deadline ] || { echo "[browser] gave up on apt-get $$1 after $(APT_LOCK_WAIT) s (APT_LOCK_WAIT) waiting for the package lock: $$lock" >&2; return 1; }; \
	      [ -n "$$said" ] || echo "[browser] apt-get $$1 waits up to $(APT_LOCK_WAIT) s for the package lock another process holds: $$lock" >&2; said=1; \
	      sleep $(APT_LOCK_POLL); \
	    done; \
	    [ -z "$$err" ] || printf '%s\n' "$$err" >&2; \
	  } 3>&1; \
	  apt_get update -qq && apt_get install -y -qq chromium chromium-driver >/dev/null; }

## The main job: execute every notebook at paper scale, then build the HTML book.
book: setup
	@start=$$(date +%s); \
	$(PY) -m lib.book.runner --profile full --jobs 0 && \
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS) && \
	echo "[book] built _build/html/index.html in $$(( $$(date +%s) - start )) s"

## The tests: every notebook in the quick profile, a book build, then pytest on every core (pytest-xdist;
## unit tests and the browser test of that build; screenshots in _build/quick/_build/screenshots), then the
## few tests marked "alone" (they stop or kill Dask workers) with the machine to themselves. Everything
## the quick profile writes (executed notebooks, summary records, results) stays in _build/quick/,
## so make test never changes what make book publishes.
test: setup browser
	$(PY) -m lib.book.runner --profile quick --jobs 0
	$(VENV)/bin/jupyter-book build _build/quick/src $(JB_FLAGS) --path-output _build/quick
	REPRO_BOOK_HTML=_build/quick/_build/html $(PY) -m pytest -n auto -m "not alone" tests
	$(PY) -m pytest -m alone tests

## The training and kernel tests again with the CPU kernel compiled for a generic x86-64/ARM
## target (no AVX, no FMA): a test that holds only on this machine's CPU fails here first.
GENERIC_CPU_TESTS := tests/test_training_fast.py tests/test_faults_kernel.py tests/test_determinism.py tests/test_sweep.py
test-generic-cpu: setup
	NUMBA_CPU_NAME=generic $(PY) -m pytest -n auto -m "not alone" $(GENERIC_CPU_TESTS)
	NUMBA_CPU_NAME=generic $(PY) -m pytest -m alone $(GENERIC_CPU_TESTS)

## A sweep on Dask (python -m lib.book.sweep_command): a LocalCluster on this machine unless SCHEDULER (or
## $$REPRO_DASK_SCHEDULER) names one; every point is cached, so a re-run resumes. E.g.
##   make sweep NOTEBOOK=00_quickstart GRID="seed=0,1,2"
##   make sweep FUNCTION=lib.experiments.sweep_points:pair_final_losses GRID="seed=0,1,2,3 n_hidden=50,200" [WORKERS=2] [SCHEDULER=tcp://host:8786] [TABLE=grid.nc]
## User input goes through the environment, never expanded by make or the shell (see USER_VARS).
sweep: setup
	@test -n "$$NOTEBOOK$$FUNCTION" -a -n "$$GRID" || { echo 'usage: make sweep NOTEBOOK=<name> | FUNCTION=<module:function> GRID="param=v1,v2 [param2=...]" [WORKERS=n] [SCHEDULER=address] [TABLE=file.csv|file.nc]'; exit 2; }
	$(PY) -m lib.book.sweep_command $${FUNCTION:+--function "$$FUNCTION"} $${NOTEBOOK:+--notebook "$$NOTEBOOK" --output-dir "sweeps/$$NOTEBOOK"} --grid-spec "$$GRID" $${WORKERS:+--workers "$$WORKERS"} $${SCHEDULER:+--scheduler "$$SCHEDULER"} $${TABLE:+--table "$$TABLE"}

## JupyterLab on notebooks/ in the project's environment: the percent .py sources open as notebooks and
## stay paired (jupytext; the paired .ipynb files are hidden from the file browser, so each chapter is
## listed once); jupyterlab_myst renders the chapters' MyST markup (admonitions, dropdowns, roles); the
## kernel reads and fills the same results cache as make book. LAB_ARGS adds
## options, split at spaces, e.g. make lab LAB_ARGS="--no-browser" [LAB_PORT=8888] (as root, e.g. in a
## container, Jupyter needs --allow-root, which is added).
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
lab: setup
	@mkdir -p $(dir $(LAB_SETTINGS))
	@echo '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": "Jupytext Notebook"}}}' > $(LAB_SETTINGS)
	set -f; $(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks --ServerApp.port="$$LAB_PORT" \
	  --ContentsManager.hide_globs='["__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", "*.ipynb"]' \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) $$LAB_ARGS

benchmark: setup
	$(PY) benchmarks/import_cost.py
	$(PY) benchmarks/kernel_compile_first.py
	$(PY) benchmarks/entk_speed.py
	$(PY) benchmarks/leading_vector_speed.py
	$(PY) benchmarks/permutation_speed.py
	$(PY) benchmarks/train_speed.py
	$(PY) benchmarks/sweep_speed.py
	$(PY) benchmarks/blas_threads.py
	$(PY) benchmarks/network_memory.py

## Remove cache entries written by other versions of lib/ or requirements.txt (never the current ones).
prune-results: setup
	$(PY) -m lib.core.results prune

## Force recomputation: the results cache and the executed notebooks built from it.
clean-results:
	rm -rf results book/executed

clean:
	rm -rf _build book/executed
