# Two entry points (see README):  make book   |   make test
# Both create .venv from requirements.txt on first use (or when it changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REQ_HASH := $(shell sha256sum requirements.txt pyproject.toml | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(REQ_HASH)
JB_FLAGS := -W --keep-going

.PHONY: setup browser book test sweep benchmark prune-results clean-results clean
export NOTEBOOK GRID

$(STAMP):
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

setup: $(STAMP)

## Headless Chromium and its driver from Debian, for the browser test of the built book.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

## The main job: execute every notebook at paper scale, then build the HTML book.
book: setup
	@start=$$(date +%s); \
	$(PY) -m lib.runner --profile full && \
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS) && \
	echo "[book] built _build/html/index.html in $$(( $$(date +%s) - start )) s"

## The tests: every notebook in the quick profile, a book build, then pytest (unit tests and
## the browser test of that build; screenshots in _build/quick/_build/screenshots). Everything
## the quick profile writes (executed notebooks, summary records, results) stays in _build/quick/,
## so make test never changes what make book publishes.
test: setup browser
	$(PY) -m lib.runner --profile quick
	$(VENV)/bin/jupyter-book build _build/quick/src $(JB_FLAGS) --path-output _build/quick
	REPRO_BOOK_HTML=_build/quick/_build/html $(PY) -m pytest tests

## A papermill sweep of one notebook over a grid, into sweeps/ (the book is untouched), e.g.
##   make sweep NOTEBOOK=00_quickstart GRID="seed=0,1,2 schedule=ET,LR"
## GRID is passed through the environment, never expanded by make or the shell.
sweep: setup
	@test -n "$$NOTEBOOK" -a -n "$$GRID" || { echo 'usage: make sweep NOTEBOOK=<name> GRID="param=v1,v2 [param2=...]"'; exit 2; }
	$(PY) -m lib.runner --only "$$NOTEBOOK" --grid-spec "$$GRID" --output-dir "sweeps/$$NOTEBOOK"

benchmark: setup
	$(PY) benchmarks/entk_speed.py
	$(PY) benchmarks/train_speed.py

## Remove cache entries written by other versions of lib/ or requirements.txt (never the current ones).
prune-results: setup
	$(PY) -m lib.results prune

## Force recomputation: the results cache and the executed notebooks built from it.
clean-results:
	rm -rf results book/executed

clean:
	rm -rf _build book/executed
