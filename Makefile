# Two entry points (see README): `make reproduce` and `make test`.
# Both create .venv with only the system Python if it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CORES  ?= 2
CONFIG ?= config/config.yaml
# Methods whose kernels the install compiles into Numba's cache (`mabench warmup`), so that their first
# call (the README's example) loads them instead of compiling; `make env WARMUP=` leaves it to that call.
WARMUP ?= mdav
# pip installs without byte-compiling (--no-compile: it compiles all 8,300 modules in one process,
# 29 s of a 49 s install); the first process that imports a module writes its byte code into .venv
# or __pycache__ and every later one reads it, also where the shell sets PYTHONDONTWRITEBYTECODE
# (with it, each of the workflow's processes compiled what it imports anew, about 2.5 s apiece).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: lock lock-check reproduce record-time test slurm-test slurm-stop bench bench-baseline bench-compare regress regress-time regress-baseline env clean best-known

# The harness installs from the lock file (every package pinned, with hashes), so a fresh clone runs
# the versions the regression baseline was made with; pyproject.toml keeps ranges for library users.
LOCK   := requirements.lock
LOCK_CMD = uv pip compile pyproject.toml --extra all --extra test --extra slurm --generate-hashes \
	--universal --python-version 3.11

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-compile --no-deps -e .
	$(if $(WARMUP),-$(BIN)/mabench warmup $(WARMUP))
	touch $(STAMP)

env: $(STAMP)

# Refresh the lock to the newest versions the registry offers (commit it after `make lock-check`).
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/$(LOCK_CMD) --upgrade --quiet -o $(LOCK)

# Would a refresh change a number? Resolves the newest versions into results/lock/, installs them in a
# venv of their own and runs the regression cells there against the tracked baseline: the report lists
# every IL change (0 expected; each other one needs its cause in docs/regression.md before the lock moves).
lock-check: $(STAMP)
	$(BIN)/python -m pip install --quiet uv
	mkdir -p results/lock
	$(BIN)/$(LOCK_CMD) --upgrade --quiet -o results/lock/requirements.lock
	$(PYTHON) -m venv results/lock/venv
	results/lock/venv/bin/python -m pip install --quiet --no-compile --require-hashes -r results/lock/requirements.lock
	results/lock/venv/bin/python -m pip install --quiet --no-compile --no-deps .
	results/lock/venv/bin/mabench regress --out results/lock/current.csv
	$(BIN)/mabench compare $(REGRESS_BASELINE) results/lock/current.csv --no-time-gate \
		--out results/lock/report.md --cells-out results/lock/cells.csv

# results/timing.json: wall and CPU time of the run, jobs, and the share that was not the algorithms'
# and metrics' own work; `make record-time` appends it to the tracked docs/workflow-time.csv.
reproduce: $(STAMP)
	$(BIN)/python -m mabench.bench.timing --out results/timing.json --config $(CONFIG) -- \
		$(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES) --configfile $(CONFIG)
	$(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES) --configfile $(CONFIG) \
		--report results/report.html

record-time:
	$(BIN)/python -c "import json, pathlib; from mabench.bench import timing; \
	timing.append(json.loads(pathlib.Path('results/timing.json').read_text()), pathlib.Path('docs/workflow-time.csv'))"

# Two workers (CI has 2 cores), one test file per worker at a time so module fixtures are built once;
# the files in the order tests/conftest.py gives (those with slow tests first), not xdist's (most tests first).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=25

bench: $(STAMP)
	$(BIN)/python -m pytest -m bench --benchmark-enable tests/benchmarks

# The smoke workflow through a real one-node SLURM cluster started on this machine (as root:
# installs Debian's slurm-wlm and munge if missing), compared with a local run.
slurm-test: $(STAMP)
	bash workflow/slurm/local-cluster.sh
	$(BIN)/python -m pytest -m slurm tests/bench/test_slurm.py

slurm-stop:
	bash workflow/slurm/local-cluster.sh stop

# Speed regressions of the kernels: save a baseline before a change, compare after it
# (fails when a benchmark's median is more than 25 % slower; same machine, same load).
bench-baseline: $(STAMP)
	$(BIN)/python -m pytest -m bench --benchmark-enable --benchmark-save=baseline tests/benchmarks

bench-compare: $(STAMP)
	$(BIN)/python -m pytest -m bench --benchmark-enable --benchmark-compare \
		--benchmark-compare-fail=median:25% tests/benchmarks

# Regression check of every number: every algorithm id of the default configuration on the fixed
# data sets, compared cell by cell with the tracked baseline (IL, verdicts, time; docs/regression.md).
REGRESS_BASELINE := registry/regress/baseline.csv
# Its times come from the day the baseline was recorded: listed, not gated (--no-time-gate).
regress: $(STAMP)
	$(BIN)/mabench regress --out results/regress/current.csv
	$(BIN)/mabench compare $(REGRESS_BASELINE) results/regress/current.csv $(if $(CHANGED),--changed $(CHANGED)) \
		--no-time-gate --out results/regress/report.md --cells-out results/regress/cells.csv

# The time gate on two commits timed side by side in one session: BASE=<commit> (a clone with its own
# environment under results/regress/time), ALGOS=a,b to time only those ids, ROUNDS alternations (3).
regress-time: $(STAMP)
	$(if $(BASE),,$(error give the commit to time against: make regress-time BASE=<commit>))
	$(BIN)/python workflow/scripts/regress_time.py $(BASE) $(if $(ALGOS),--algorithms $(ALGOS)) \
		$(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(CHANGED),--changed $(CHANGED))

# Refresh the baseline on purpose (after an intended change; commit the new file with it).
regress-baseline: $(STAMP)
	$(BIN)/mabench regress --out $(REGRESS_BASELINE)

clean:
	rm -rf results/* .snakemake

# Long searches for the best-known registry (registry/best_known); not part of `make reproduce`.
# BUDGET = seconds per cell (12 cells: tarragona, census, eia x k = 3, 4, 5, 10); an entry is
# replaced only when the search lowers its IL. SEED varies the perturbations between sessions.
# METHOD = icsm | ls | lns | merge | region (lns: regions re-partitioned exactly; merge: local optima recombined
# by a set-partitioning IP; region: one IP over the costliest groups' region, docs/algorithms/merge.md; each
# entry's params record its command).
# The certified lower bounds (registry/best_known/bounds.csv) are recomputed from the data every time:
# the pair bound, and the LP bound by column generation (BOUND_BUDGET seconds per k; a stored bound
# is replaced only by a larger one of the same method).
BUDGET ?= 60
BOUND_BUDGET ?= 90
SEED   ?= 0
METHOD ?= lns
best-known: $(STAMP)
	for ds in tarragona census eia; do for k in 3 4 5 10; do \
		NUMBA_NUM_THREADS=1 $(BIN)/mabench best-known improve $$ds -k $$k --method $(METHOD) --budget $(BUDGET) --seed $(SEED) || exit 1; \
	done; done
	for ds in tarragona census eia; do $(BIN)/mabench bound $$ds -k 3,4,5,10 --store > /dev/null || exit 1; \
		NUMBA_NUM_THREADS=1 $(BIN)/mabench bound $$ds -k 3,4,5,10 --method lp --budget $(BOUND_BUDGET) --store > /dev/null || exit 1; done
	$(BIN)/mabench best-known verify > /dev/null
	$(BIN)/mabench best-known table --out-dir results/tables
