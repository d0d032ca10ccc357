"""Seed policy: every random number in a run derives from one root seed.

``cell_seeds(root, n)`` gives the per-repetition seeds a workflow uses; a cell
seed then feeds independent streams for the data draw and for the algorithm,
keyed by a stable hash of their names, so adding an algorithm never changes
the data another algorithm sees.
"""

from __future__ import annotations

import zlib

import numpy as np


def stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8"))


def cell_seeds(root_seed: int, n: int) -> list[int]:
    """The first ``n`` repetition seeds derived from ``root_seed``."""
    return [int(s) for s in np.random.SeedSequence(root_seed).generate_state(n, dtype=np.uint32)]


def check_seed(seed) -> int:
    """The one check of a user's seed: a non-negative integer."""
    from mabench.errors import UserError

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise UserError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)


def rng_for(seed: int, purpose: str) -> np.random.Generator:
    """An independent generator for one purpose (``"data:sim1"``, ``"algorithm:icsm"``, …)."""
    return np.random.default_rng(np.random.SeedSequence([check_seed(seed), stable_hash(purpose)]))
