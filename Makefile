# Two entry points (see README): `make reproduce` and `make test`.
# Both create .venv with only the system Python if it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CORES  ?= 2
CONFIG ?= config/config.yaml

.PHONY: reproduce test bench env clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

env: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES) --configfile $(CONFIG)
	$(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES) --configfile $(CONFIG) \
		--report results/report.html

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pytest -m bench --benchmark-enable tests/benchmarks

clean:
	rm -rf results/* .snakemake
