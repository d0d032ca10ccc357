"""Every metric that applies without key variables on n × d standard-normal records (docs/metrics.md, "Scale").

    python tests/benchmarks/metrics_scale.py 1000000 [d] [compact|sorted]

Prints each metric's value, wall and CPU seconds (CPU summed over threads) and the process's peak RSS.
``compact``: groups of 3 consecutive records in k-d-tree leaf order (spatially compact, like a
microaggregation's); ``sorted``: groups of 3 consecutive records after sorting on column 0 (scattered).
Not a test: the machine is shared, so quote it with its load average.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from mabench.kernels.spatial.knn_tree import _static_tree
from mabench.metrics import REGISTRY, EvalContext, applicable


def main(argv: list[str]) -> None:
    n = int(argv[0])
    d = int(argv[1]) if len(argv) > 1 else 10
    mode = argv[2] if len(argv) > 2 else "compact"
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d)) * 3.0 + 5.0
    z = np.ascontiguousarray((x - x.mean(axis=0)) / x.std(axis=0))
    order = np.argsort(z[:, 0], kind="stable") if mode == "sorted" else _static_tree(z)[0]
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // 3, n // 3 - 1)
    ctx = EvalContext(x, z, labels, [f"c{j}" for j in range(d)])
    for name in applicable({}):
        t, c = time.perf_counter(), time.process_time()
        value = REGISTRY[name].fn(ctx)
        print(f"{name:8s} {value:<14.6g} wall {time.perf_counter() - t:7.2f} s  cpu {time.process_time() - c:7.2f} s",
              flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
