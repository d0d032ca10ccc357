"""`mabench check` / mabench.testing: every built-in plugin passes; seeded broken plugins fail, one line each."""

from __future__ import annotations

from pathlib import Path

import pytest

from mabench import discovery, testing

HEADER = '''import numpy as np

from mabench.plugin import Algorithm


def good(Z, k):
    n = Z.shape[0]
    order = np.argsort(Z[:, 0], kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, max(n // k, 1) - 1)
    return labels

'''
FOOTER = '''
ALGORITHM = Algorithm(name="broken", title="broken", citation="a test", run=run,
                      max_group_size=lambda k, params: {bound}, deterministic={deterministic})
'''
BROKEN = {
    "short group": ("def run(Z, k, params, rng):\n    labels = good(Z, k)\n    labels[labels == 0] = 1\n"
                    "    labels[0] = 0\n    return labels\n", {}, "has 1 < k="),
    "wrong length": ("def run(Z, k, params, rng):\n    return good(Z, k)[1:]\n", {}, "labels for"),
    "nan label": ("def run(Z, k, params, rng):\n    labels = good(Z, k).astype(float)\n    labels[2] = np.nan\n"
                  "    return labels\n", {}, "invalid partition"),
    "seed ignored": ("def run(Z, k, params, rng):\n    order = np.random.default_rng(7).permutation(Z.shape[0])\n"
                     "    return good(Z[order], k)[np.argsort(order)]\n", {"deterministic": False},
                     "no seed of"),
    "nondeterminism": ("def run(Z, k, params, rng):\n    order = np.random.default_rng().permutation(Z.shape[0])\n"
                       "    return good(Z[order], k)[np.argsort(order)]\n", {"deterministic": False},
                       "the same seed gave different labels"),
    "seed used by a deterministic method": (
        "def run(Z, k, params, rng):\n    order = rng.permutation(Z.shape[0])\n"
        "    return good(Z[order], k)[np.argsort(order)]\n", {}, "declares deterministic=True"),
    "group over bound": ("def run(Z, k, params, rng):\n    labels = good(Z, k)\n    labels[labels == 1] = 0\n"
                         "    return np.unique(labels, return_inverse=True)[1]\n", {"bound": "k + 1"}, "> "),
    "input changed": ("def run(Z, k, params, rng):\n    Z[:, 0] *= 0.001\n    return good(Z, k)\n", {},
                      "writes into its input array"),
}


def _write(tmp_path: Path, case: str) -> Path:
    body, opts, _ = BROKEN[case]
    path = tmp_path / "broken.py"
    path.write_text(HEADER + body + FOOTER.format(bound=opts.get("bound", "2 * k - 1"),
                                                  deterministic=opts.get("deterministic", True)))
    return path


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_plugin_fails_with_one_line(tmp_path, case):
    path = _write(tmp_path, case)
    problems = testing.check_plugin(str(path))
    assert len(problems) == 1, problems
    assert BROKEN[case][2] in problems[0] and problems[0].startswith("broken: ")
    with pytest.raises(AssertionError):
        testing.assert_plugin_passes(str(path))


def test_the_nan_label_is_named(tmp_path):
    problems = testing.check_plugin(str(_write(tmp_path, "nan label")))
    assert "NaN" in problems[0] or "negative label" in problems[0], problems


def test_mabench_check_cli_one_line_per_failure_and_exit_status(tmp_path, cli_main):
    path = _write(tmp_path, "short group")
    proc = cli_main("check", str(path), "-k", "3")
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mabench: check failed: broken: invalid partition")
    good = tmp_path / "good.py"
    good.write_text(HEADER + "def run(Z, k, params, rng):\n    return good(Z, k)\n"
                    + FOOTER.format(bound="2 * k - 1", deterministic=True))
    proc = cli_main("check", str(good))
    assert proc.returncode == 0, proc.stderr
    assert '"passed": true' in proc.stdout
    proc = cli_main("check", str(tmp_path / "none.py"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_unknown_parameters_must_be_refused_and_defaults_in_range(tmp_path):
    path = tmp_path / "p.py"
    path.write_text(HEADER + "def run(Z, k, params, rng):\n    return good(Z, k)\n"
                    "from mabench.plugin import Param\n"
                    "ALGORITHM = Algorithm(name='p', title='p', citation='t', run=run,\n"
                    "    max_group_size=lambda k, params: 2 * k - 1, params={'w': Param(5, 'a weight', max=1)})\n")
    problems = testing.check_plugin(str(path))
    assert len(problems) == 1 and "outside its declared range" in problems[0]


# Methods whose check takes minutes on this machine (searches, exact solvers, MCD): `-m slow`.
HEAVY = {"icsm", "ls", "lns", "omma", "rmd", "mcdpca", "clustmcdpca", "iamat", "kward", "kwd", "kwr", "kw"}
# Every built-in's declared determinism is checked both ways, none excused: lns draws from its rng
# (randomized), rmd's and mcdpca's FastMCD starts show their seed on the check's uniform data, and
# clustpca, clustpppca and influence show it through their k-means test_params (docs/method-authors.md,
# "Declared determinism").


def _builtins():
    return [pytest.param(name, marks=[pytest.mark.slow] if name in HEAVY else [], id=name)
            for name in sorted(discovery.algorithms())]


@pytest.mark.parametrize("name", _builtins())
def test_every_builtin_plugin_passes(name):
    testing.assert_plugin_passes(name)


@pytest.mark.slow
def test_the_memory_check_runs_on_a_builtin():
    assert testing.check_plugin("mdav", ks=(3,), memory=True) == []
