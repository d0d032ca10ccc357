"""Provenance recorded beside every results table: code, environment, machine, seed."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import subprocess
import sys

from mabench import __version__, blas, resources

PACKAGES = ("numpy", "numba", "pandas", "pyarrow", "scipy", "scikit-learn", "snakemake")


def git_commit() -> str:
    """HEAD of the plugin tree's checkout, with ``-dirty`` when tracked files changed; ``unknown`` outside git."""
    root = resources.source_root()
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def versions() -> dict[str, str]:
    out = {"mabench": __version__, "python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def machine() -> dict[str, str]:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": str(os.cpu_count()),
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS", "default"),
        "blas": blas.in_use(),  # its kernels decide the last bits of the MCD methods' results
        "executable": sys.executable,
    }


def file_sha256(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def lock_sha256() -> str:
    """SHA-256 of the checkout's ``requirements.lock`` (the pinned harness environment); ``none`` when the
    engine runs from an install without one (a library user's own environment)."""
    lock = resources.source_root() / "requirements.lock"
    return file_sha256(lock) if lock.is_file() else "none"


def record(root_seed: int | None = None, config_path=None) -> dict[str, str]:
    """Flat provenance columns for the results table."""
    rec = {"git_commit": git_commit(), "lock_sha256": lock_sha256(),
           "root_seed": "" if root_seed is None else str(root_seed)}
    if config_path:
        rec["config"] = str(config_path)
        rec["config_sha256"] = file_sha256(config_path)
    rec.update({f"version_{k}": v for k, v in versions().items()})
    rec.update({f"machine_{k}": v for k, v in machine().items()})
    return rec
