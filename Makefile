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
export NOTEBOOK FUNCTION GRID WORKERS SCHEDULER TABLE

# uv installs the pinned requirements (the same versions pip would) several times faster than pip
$(STAMP):
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --python $(PY) -r requirements.txt
	$(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps --no-build-isolation -e .
	touch $@

setup: $(STAMP)

## Headless Chromium and its driver from Debian, for the browser test of the built book.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

## The main job: execute every notebook at paper scale, then build the HTML book.
book: setup
	@start=$$(date +%s); \
	$(PY) -m lib.book.runner --profile full --jobs 0 && \
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS) && \
	echo "[book] built _build/html/index.html in $$(( $$(date +%s) - start )) s"

## The tests: every notebook in the quick profile, a book build, then pytest (unit tests and
## the browser test of that build; screenshots in _build/quick/_build/screenshots). Everything
## the quick profile writes (executed notebooks, summary records, results) stays in _build/quick/,
## so make test never changes what make book publishes.
test: setup browser
	$(PY) -m lib.book.runner --profile quick --jobs 0
	$(VENV)/bin/jupyter-book build _build/quick/src $(JB_FLAGS) --path-output _build/quick
	REPRO_BOOK_HTML=_build/quick/_build/html $(PY) -m pytest tests

## The training and kernel tests again with the CPU kernel compiled for a generic x86-64/ARM
## target (no AVX, no FMA): a test that holds only on this machine's CPU fails here first.
GENERIC_CPU_TESTS := tests/test_training_fast.py tests/test_faults_kernel.py tests/test_determinism.py tests/test_sweep.py
test-generic-cpu: setup
	NUMBA_CPU_NAME=generic $(PY) -m pytest $(GENERIC_CPU_TESTS)

## A sweep on Dask (python -m lib.book.sweep_command): a LocalCluster on this machine unless SCHEDULER (or
## $$REPRO_DASK_SCHEDULER) names one; every point is cached, so a re-run resumes. E.g.
##   make sweep NOTEBOOK=00_quickstart GRID="seed=0,1,2"
##   make sweep FUNCTION=lib.experiments.sweep_points:pair_final_losses GRID="seed=0,1,2,3 n_hidden=50,200" [WORKERS=2] [SCHEDULER=tcp://host:8786] [TABLE=grid.nc]
## User input goes through the environment, never expanded by make or the shell.
sweep: setup
	@test -n "$$NOTEBOOK$$FUNCTION" -a -n "$$GRID" || { echo 'usage: make sweep NOTEBOOK=<name> | FUNCTION=<module:function> GRID="param=v1,v2 [param2=...]" [WORKERS=n] [SCHEDULER=address] [TABLE=file.csv|file.nc]'; exit 2; }
	$(PY) -m lib.book.sweep_command $${FUNCTION:+--function "$$FUNCTION"} $${NOTEBOOK:+--notebook "$$NOTEBOOK" --output-dir "sweeps/$$NOTEBOOK"} --grid-spec "$$GRID" $${WORKERS:+--workers "$$WORKERS"} $${SCHEDULER:+--scheduler "$$SCHEDULER"} $${TABLE:+--table "$$TABLE"}

## JupyterLab on notebooks/ in the project's environment: the percent .py sources open as notebooks and
## stay paired (jupytext); the kernel reads and fills the same results cache as make book. LAB_ARGS adds
## options, e.g. make lab LAB_ARGS="--no-browser" (as root, e.g. in a container, Jupyter needs --allow-root,
## which is added).
LAB_PORT ?= 8888
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
lab: setup
	@mkdir -p $(dir $(LAB_SETTINGS))
	@echo '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": "Jupytext Notebook"}}}' > $(LAB_SETTINGS)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks --ServerApp.port=$(LAB_PORT) \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

benchmark: setup
	$(PY) benchmarks/entk_speed.py
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
