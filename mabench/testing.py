"""The generic checks every algorithm plugin must pass (``mabench check PLUGIN``; importable in a pytest).

::

    from mabench.testing import assert_plugin_passes

    def test_my_method():
        assert_plugin_passes("algorithms/my_method.py")   # or a registered name: "mdav"

Each check runs the plugin's ``run`` directly on small data sets made to break methods (tiny, tie-heavy,
duplicated records, one column), at each k of ``ks`` and with each parameter set (the defaults and the
plugin's own ``test_params``):

* the partition is valid (one integer label per record, labels 0..g-1, every group ≥ k) and no group
  is larger than the plugin's declared ``max_group_size``;
* the plugin's warm-up (its ``warm_up`` hook, else a run on a tiny problem) runs at each data set's
  shape and at 10⁵ records;
* the same seed gives the same labels (two runs), and the input array is left unchanged;
* with ``deterministic=True`` other seeds give the same labels; with ``deterministic=False`` some seed
  changes them (a randomized method that ignores its ``rng`` argument is caught);
* the declared parameters resolve (every default in its declared range) and an unknown one is refused;
* optionally (``memory=True``), a run on 10⁵ records stays within the plugin's memory estimate.

A plugin may refuse data it cannot handle with a :class:`~mabench.errors.UserError` (e.g. a univariate
method on two columns): that is a pass. :func:`check_plugin` returns one line per failed check.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mabench.errors import PluginContractError, UserError
from mabench.plugin import Algorithm

DEFAULT_KS = (2, 3, 5)
SEEDS = (1, 2, 3, 4, 5, 6, 7)
MEMORY_RECORDS = 100_000
SEED_RECORDS = 300  # a randomized method must show its randomness by this size


@dataclass(frozen=True)
class Case:
    name: str
    values: np.ndarray  # original units (the plugin sees z-scores, and raw= these when it asks)


def cases() -> list[Case]:
    """The small data sets every plugin is run on (fixed, so a failure can be replayed)."""
    rng = np.random.default_rng(20261127)
    distinct = rng.standard_normal((8, 3))
    ties = rng.integers(0, 3, size=(24, 3)).astype(np.float64)
    ties[:3] = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]  # no constant column
    return [
        Case("tiny", rng.standard_normal((23, 3))),
        Case("tie-heavy", ties),
        Case("duplicated", np.repeat(distinct, 3, axis=0)),
        Case("one-column", rng.standard_normal((23, 1))),
    ]


def load(plugin: str | Path | Algorithm) -> Algorithm:
    """An ``Algorithm``: itself, a registered name, or the ``ALGORITHM`` of a plugin file."""
    if isinstance(plugin, Algorithm):
        return plugin
    text = str(plugin)
    if text.endswith(".py") or Path(text).is_file():
        path = Path(text)
        if not path.is_file():
            raise UserError(f"plugin file {text!r} does not exist; give a plugin file or an algorithm name")
        name = f"mabench_checked_plugins.{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        algo = getattr(module, "ALGORITHM", None)
        if not isinstance(algo, Algorithm):
            raise UserError(f"{text} defines no ALGORITHM = Algorithm(...); see docs/method-authors.md")
        _FILES[id(algo)] = str(path)
        return algo
    from mabench import discovery

    return discovery.algorithm(text)


def _z(values: np.ndarray) -> np.ndarray:
    from mabench.data.standardize import zscore

    return np.ascontiguousarray(zscore(values))


def _run(algo: Algorithm, values: np.ndarray, k: int, params: dict, seed: int) -> np.ndarray:
    """The plugin's labels (validated) on ``values`` with the rng of ``seed``."""
    from mabench import partition
    from mabench.bench.runner import call_run
    from mabench.data.seeds import rng_for
    from mabench.plugin import split_output

    z = _z(values)
    raw = np.ascontiguousarray(values, dtype=np.float64)
    before = z.copy(), raw.copy()
    labels, _ = split_output(call_run(algo, z, k, params, rng_for(seed, f"algorithm:{algo.name}"), raw=raw))
    if not (np.array_equal(z, before[0]) and np.array_equal(raw, before[1])):
        raise _Problem("changes its input array in place (copy it before changing it)")
    n, d = values.shape
    bound = algo.max_group_size(k, params)
    if labels.ndim == 2:
        partition.check_columns(labels, n, d, k, bound, who="partition")
    else:
        partition.check(labels, n, k, bound, who="partition")
    return partition.canonical_labels(labels) if labels.ndim == 1 else labels


class _Problem(Exception):
    pass


def _param_sets(algo: Algorithm) -> list[dict]:
    return [{}] + [dict(p) for p in getattr(algo, "test_params", ()) or ()]


def check_plugin(plugin, ks=DEFAULT_KS, memory: bool = False) -> list[str]:
    """One line per failed check (empty: the plugin passes). A plugin that cannot be found or loaded
    raises :class:`~mabench.errors.UserError` (bad input, not a failed check)."""
    problems: list[str] = []
    algo = load(plugin)
    name = algo.name
    problems += _check_params(algo)
    if problems:
        return problems
    seen: set[str] = set()  # one line per kind of failure, the first case that shows it

    def fail(kind: str, line: str) -> None:
        if kind not in seen:
            seen.add(kind)
            problems.append(f"{name}: {line}")

    seed_varies = False
    for given in _param_sets(algo):
        params = algo.resolve(given)
        from mabench.plugin import split_aggregation

        own, _ = split_aggregation(params, algo.params)
        shown = f" params {given}" if given else ""
        for case in cases():
            n, d = case.values.shape
            if algo.max_columns is not None and d > algo.max_columns:
                continue
            for k in ks:
                if n < 2 * k:
                    continue
                where = f"on {case.name} data ({n}x{d}) k={k}{shown}"
                try:
                    for size in (n, MEMORY_RECORDS):
                        algo.warm(size, d, k, own)
                except UserError:
                    pass  # refusing the data it cannot handle is allowed (as below)
                except Exception as exc:  # noqa: BLE001 - one line, as every defect
                    fail("warm-up", f"the warm-up fails {where}: {_one_line(exc)}")
                    continue
                try:
                    first = _run(algo, case.values, k, own, 0)
                except PluginContractError as exc:  # the engine refuses what the plugin returned or did
                    fail("input" if "input array" in str(exc) else "partition", f"invalid partition {where}: "
                         f"{_one_line(exc)}")
                    continue
                except UserError:
                    continue  # a refusal of data it cannot handle is allowed
                except _Problem as exc:
                    fail("input", f"{exc} {where}")
                    continue
                except Exception as exc:  # noqa: BLE001 - every defect is reported, one line each
                    fail("partition", f"invalid partition {where}: {_one_line(exc)}")
                    continue
                try:
                    again = _run(algo, case.values, k, own, 0)
                except Exception as exc:  # noqa: BLE001
                    fail("determinism", f"the same seed fails the second time {where}: {_one_line(exc)}")
                    continue
                if not np.array_equal(first, again):
                    fail("determinism", f"the same seed gave different labels {where} (use only the rng argument "
                                        "for randomness, never np.random's global state or the clock)")
                    continue
                for seed in SEEDS:
                    try:
                        other = _run(algo, case.values, k, own, seed)
                    except Exception as exc:  # noqa: BLE001
                        fail("partition", f"invalid partition {where} seed={seed}: {_one_line(exc)}")
                        break
                    if not np.array_equal(first, other):
                        seed_varies = True
                        if algo.deterministic:
                            fail("seed", f"labels change with the seed {where} but it declares deterministic=True "
                                         "(declare deterministic=False, or do not use the rng)")
                        break
    if not algo.deterministic and not seed_varies and "determinism" not in seen and "partition" not in seen:
        seed_varies = _varies_on_larger_data(algo)
        if not seed_varies:
            fail("seed", f"declares deterministic=False (randomized) but no seed of {len(SEEDS) + 1} changed its "
                         f"labels on any data, {SEED_RECORDS} normal and uniform records included (does it use "
                         "the rng argument?)")
    if memory and not problems:
        problems += _check_memory(algo, max(ks))
    return problems


def seed_cases() -> list[Case]:
    """Larger data on which a randomized method must show its seed: a method may use its rng only
    beyond a size (CLARA samples 40 + 2·nc records, so below that it is exact), and random starts may
    all reach the same answer where the data have a clear core (FastMCD's h-subsets on normal data)
    but not on flat data (uniform: rmd and mcdpca)."""
    return [Case("normal", np.random.default_rng(20261128).standard_normal((SEED_RECORDS, 3))),
            Case("uniform", np.random.default_rng(20261128).uniform(size=(SEED_RECORDS, 3)))]


def _varies_on_larger_data(algo: Algorithm) -> bool:
    """Whether some seed changes a randomized method's labels on one of :func:`seed_cases`."""
    own = {key: v for key, v in algo.resolve({}).items() if key in algo.params}
    try:
        for case in seed_cases():
            first = _run(algo, case.values, 3, own, 0)
            if any(not np.array_equal(first, _run(algo, case.values, 3, own, seed)) for seed in SEEDS):
                return True
        return False
    except Exception:  # noqa: BLE001 - its failures are reported by the small cases
        return True


def _check_params(algo: Algorithm) -> list[str]:
    out = []
    for pname, param in algo.params.items():
        try:
            param.check(f"algorithm {algo.name}", pname, param.default)
        except UserError as exc:
            out.append(f"{algo.name}: the default of parameter {pname} is outside its declared range ({exc})")
    for given in _param_sets(algo):
        try:
            algo.resolve(given)
        except UserError as exc:
            out.append(f"{algo.name}: its parameters {given or '(defaults)'} are refused: {exc}")
    try:
        algo.resolve({"no_such_parameter": "1"})
        out.append(f"{algo.name}: an unknown parameter is accepted (declare parameters with Param)")
    except UserError:
        pass
    return out


def _check_memory(algo: Algorithm, k: int) -> list[str]:
    """A run on 10⁵ × 3 records in a fresh process: its peak memory above the process's own before the
    run must not exceed the plugin's estimate (``memory_bytes``, else the linear default)."""
    import json
    import subprocess

    from mabench.plugin import linear_bytes

    n, d = MEMORY_RECORDS, 3
    estimate = (algo.memory_bytes(n, d, k, algo.resolve({})) if algo.memory_bytes else linear_bytes(n, d))
    script = (
        "import json, sys, numpy as np\n"
        "from mabench import testing\n"
        "from mabench.bench.runner import peak_rss_mb\n"
        f"algo = testing.load({str(_source(algo))!r})\n"
        f"values = np.random.default_rng(0).standard_normal(({n}, {d}))\n"
        f"testing._run(algo, values[:{4 * k}], {k}, algo.resolve({{}}), 0)\n"  # imports and compiles first
        # ... and the kernels of the size being measured (index=auto takes the k-d tree at 10^5 records)
        "from mabench.plugin import split_aggregation\n"
        f"algo.warm({n}, {d}, {k}, split_aggregation(algo.resolve({{}}), algo.params)[0])\n"
        "before = peak_rss_mb()\n"
        f"testing._run(algo, values, {k}, algo.resolve({{}}), 0)\n"
        "print(json.dumps({'grew_mb': peak_rss_mb() - before}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        return [f"{algo.name}: the memory run on {n}x{d} records failed: {_one_line(proc.stderr.strip().splitlines()[-1:] or ['?'])}"]
    grew = json.loads(proc.stdout.strip().splitlines()[-1])["grew_mb"] * 2**20
    if grew > estimate:
        return [f"{algo.name}: a run on {n}x{d} records at k={k} grew the process by {grew / 2**20:.0f} MB, above "
                f"its estimate of {estimate / 2**20:.0f} MB (raise memory_bytes)"]
    return []


# The plugin files :func:`load` read, by the id of their ALGORITHM: the memory check's fresh process
# loads the same file (a declaration may come from a factory, so run's module is not the plugin's file).
_FILES: dict[int, str] = {}


def _source(algo: Algorithm) -> str:
    return _FILES.get(id(algo), algo.name)


def _one_line(exc) -> str:
    text = str(exc) if not isinstance(exc, list) else " ".join(exc)
    return " ".join(text.split()) or type(exc).__name__


def assert_plugin_passes(plugin, ks=DEFAULT_KS, memory: bool = False) -> None:
    """``check_plugin`` for a pytest: raises AssertionError with one line per failed check."""
    problems = check_plugin(plugin, ks, memory)
    assert not problems, "\n".join(problems)
