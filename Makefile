# `make repro`: set up .venv and run the full pipeline.  `make test`: set up and run the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
# The CPU build of PyTorch on these machines; any other spec pulls GBs of CUDA packages.
TORCH_SPEC ?= torch==2.13.0
export PATH := $(abspath $(VENV))/bin:$(PATH)
export DVC_NO_ANALYTICS := 1

.PHONY: setup repro test lint bench clean-venv

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

repro: setup
	dvc repro

lint: setup
	ruff check src stages tests benchmarks

test: lint
	pytest

bench: setup
	python benchmarks/bench_foundation.py

clean-venv:
	rm -rf $(VENV)
