"""Speed of the k-Ward family (run with `make bench`; not part of `make test`).

The thesis's claim (001_26cfb99743cbb1f3.txt Ch. 3 §3.4.1, Table 3.3) is that
kWD is asymptotically faster than kW. Both run on sorted standard-normal
values at n = 1,000, 4,000 and 16,000 (k = 3); univariate MDAV (the engine's
kernel on the same column) is the baseline measured in the same run. The last
test fits log(time) = a + b·log(n) per method and prints the exponents b and
the ratios to MDAV (no timed assertion: the machine is shared).
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import kernels as K

pytestmark = pytest.mark.bench

SIZES = (1_000, 4_000, 16_000)
TIMES: dict[tuple[str, int], float] = {}


def _data(n):
    return np.sort(np.random.default_rng(n).standard_normal(n))


METHODS = {
    "kw": lambda x: K.kward_sorted(x, 3, False),
    "kwd": lambda x: K.kward_sorted(x, 3, True),
    "kwdr": lambda x: K.kwr_sorted(x, 3, None, True),
    "mdav": lambda x: K.mdav_labels(np.ascontiguousarray(x[:, None]), 3, K.TAIL_3K),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(METHODS))
def test_speed(benchmark, name, n):
    x = _data(n)
    METHODS[name](x[:50])  # compile / load the cache outside the clock
    rounds = 1 if (name == "kw" and n >= 16_000) else 3
    benchmark.pedantic(METHODS[name], args=(x,), rounds=rounds, iterations=1)
    TIMES[(name, n)] = benchmark.stats.stats.min


def test_fitted_exponents():
    if len(TIMES) < len(SIZES) * len(METHODS):
        pytest.skip("run the whole module")
    logn = np.log(SIZES)
    print()
    for name in METHODS:
        t = np.array([TIMES[(name, n)] for n in SIZES])
        slope = np.polyfit(logn, np.log(t), 1)[0]
        ratios = ", ".join(f"n={n}: {TIMES[(name, n)] / TIMES[('mdav', n)]:.2f}x MDAV" for n in SIZES)
        print(f"{name:5s} exponent {slope:.2f}; {ratios}")
