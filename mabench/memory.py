"""Refuse a run whose memory need is known to exceed the machine, before anything is allocated.

An algorithm declares ``memory_bytes(n, d, k, params)`` (mabench.plugin.Algorithm) where its memory
grows faster than the data (OMMA's pair list, ICSM's record × group table). The limit is the machine's
physical memory minus a margin for the interpreter, the data and the other processes (15 %, at least
1 GiB), or ``MABENCH_MEMORY_LIMIT`` (bytes, or with a K/M/G/T suffix, e.g. ``4G``: a SLURM job's
``--mem``). Swap is not counted: a run that only fits in swap would take hours.
"""

from __future__ import annotations

import os
import re

from mabench.errors import UserError
from mabench.plugin import Algorithm

ENV = "MABENCH_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def physical_bytes() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX: read /proc/meminfo
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    raise RuntimeError("cannot read the machine's physical memory")


def parse_bytes(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
    if not m:
        raise UserError(f"{ENV}={text!r} is not a size; give bytes or e.g. 4G, 512M")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def limit_bytes() -> int:
    """Bytes a run may plan to use."""
    if os.environ.get(ENV):
        return parse_bytes(os.environ[ENV])
    total = physical_bytes()
    return total - max(1 << 30, int(0.15 * total))


def human(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1000 or unit == "TB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000.0
    return f"{b:.1f} TB"


def check(algo: Algorithm, n: int, d: int, k: int, params: dict) -> int | None:
    """The estimate in bytes (None if the method declares none); UserError if it exceeds the limit."""
    if algo.memory_bytes is None:
        return None
    need = int(algo.memory_bytes(n, d, k, params))
    limit = limit_bytes()
    if need > limit:
        raise UserError(f"{algo.name} on n={n} records (d={d}, k={k}) needs about {human(need)} of memory "
                        f"({algo.memory}), over this machine's limit of {human(limit)}; use fewer records "
                        f"or a method whose memory is O(n·d) (mabench list algorithms --long)")
    return need
