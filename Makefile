# Two entry points (see README):  make book   |   make test
# Both create .venv from requirements.txt on first use (or when it changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REQ_HASH := $(shell sha256sum requirements.txt pyproject.toml | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(REQ_HASH)
JB_FLAGS := -W --keep-going

.PHONY: setup book test notebooks notebooks-quick build-book benchmark clean-results clean

$(STAMP):
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

setup: $(STAMP)

## The main job: execute every notebook at paper scale, then build the HTML book.
book: setup
	@start=$$(date +%s); \
	$(PY) -m lib.runner --profile full && \
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS) && \
	echo "[book] built _build/html/index.html in $$(( $$(date +%s) - start )) s"

## The tests: unit tests, then every notebook in the quick profile and a book build.
test: setup
	$(PY) -m lib.runner --profile quick --output-dir book/executed
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS) --path-output _build/quick
	$(PY) -m pytest tests

benchmark: setup
	$(PY) benchmarks/entk_speed.py
	$(PY) benchmarks/train_speed.py

clean-results:
	rm -rf results

clean:
	rm -rf _build book/executed
