"""Strata one after another, in parallel processes, or on a Dask cluster — the same labels each way.

Each stratum is microaggregated on its own data with its own random stream (``rng_for(seed,
"algorithm:<name>|stratum:<stratum>")``), so the strata are independent: where one runs does not
change its partition, and the strata's labels are put together in stratum order whichever finished
first. A parallel worker runs its kernels on one thread (the partitions are the same for any thread
count; several processes each on every core would only fight over the cores).

* ``jobs=1`` (default): in this process, one stratum after another;
* ``jobs=N``, ``executor="processes"``: N worker processes on this machine (started fresh, not
  forked: a fork of a process whose Numba threads are running can hang);
* ``executor="dask"``: the strata are tasks on a Dask cluster (``scheduler``: its address; none:
  the client this process already has, e.g. one made on a ``LocalCluster``). Every worker needs
  mabench installed, and the same ``MABENCH_HOME`` when user plugins are in play (docs/cluster.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mabench.errors import UserError

EXECUTORS = ("processes", "dask")


@dataclass(frozen=True)
class Spread:
    """Where the strata of a run go: ``jobs`` processes, or the Dask cluster at ``scheduler``."""

    jobs: int = 1
    executor: str = "processes"
    scheduler: str | None = None

    def __post_init__(self):
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, (int, np.integer)) or self.jobs < 1:
            raise UserError(f"jobs={self.jobs!r} must be a whole number >= 1 (the processes that run strata at once)")
        if self.executor not in EXECUTORS:
            raise UserError(f"executor={self.executor!r} is not one of {', '.join(EXECUTORS)}; "
                            "use processes (this machine) or dask (a Dask cluster)")
        if self.scheduler is not None and self.executor != "dask":
            raise UserError("a scheduler address is for executor=dask; add --executor dask (executor='dask')")

    @property
    def serial(self) -> bool:
        return self.executor == "processes" and self.jobs == 1


SERIAL = Spread()


def stratum_partition(algorithm: str, own: dict, x: np.ndarray, raw: np.ndarray | None, k: int, seed: int,
                      stratum: str, one_thread: bool = False):
    """(labels, info) of the method named ``algorithm`` on one stratum's data ``x`` (its own
    z-scores, or raw values with scale=raw) — what every executor runs for a stratum."""
    from mabench import discovery
    from mabench.data.seeds import rng_for
    from mabench.plugin import call_run, split_output

    if one_thread:
        import numba

        numba.set_num_threads(1)
    algo = discovery.algorithm(algorithm)
    rng = rng_for(seed, f"algorithm:{algo.name}|stratum:{stratum}")
    return split_output(call_run(algo, x, k, own, rng, raw=raw), f"algorithm {algo.name} with k={k}, stratum {stratum}")


def run_strata(tasks: list[tuple], spread: Spread):
    """:func:`stratum_partition` of every argument tuple in ``tasks``, in their order, each as soon as it
    and the strata before it are done (so that progress is told stratum by stratum)."""
    if spread.serial or len(tasks) <= 1:
        return (stratum_partition(*t) for t in tasks)
    if spread.executor == "dask":
        return _on_dask(tasks, spread.scheduler)
    return _in_processes(tasks, min(spread.jobs, len(tasks)))


def _in_processes(tasks: list[tuple], workers: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = [pool.submit(stratum_partition, *t, True) for t in tasks]
        for future in futures:
            yield future.result()
    finally:  # also when the caller stops early (a stratum's partition refused): nothing left running
        pool.shutdown(cancel_futures=True)


def _on_dask(tasks: list[tuple], scheduler: str | None) -> list:
    try:
        import distributed
    except ImportError:
        raise UserError("executor=dask needs Dask's distributed scheduler; install it with "
                        "pip install 'mabench[dask]'") from None
    if scheduler is None:
        try:
            client = distributed.get_client()
        except ValueError:
            raise UserError("executor=dask without a scheduler address needs a Dask client in this process; "
                            "give the scheduler's address (--scheduler tcp://HOST:8786)") from None
        return _gather(client, tasks)
    refused = _refused(scheduler)
    if refused is not None:
        raise UserError(f"cannot reach the Dask scheduler at {scheduler!r} ({refused}); start it or fix the address")
    try:
        client = distributed.Client(scheduler, timeout="20s", set_as_default=False)
    except OSError as exc:
        raise UserError(f"cannot reach the Dask scheduler at {scheduler!r} ({exc}); start it or fix the address") from None
    with client:
        return _gather(client, tasks)


def _refused(scheduler: str) -> str | None:
    """Why a ``tcp://HOST:PORT`` scheduler cannot be reached when its host says so at once (nothing
    listens there, the name does not resolve), else None: Dask's client would retry such an address
    until its 20 s timeout. Other addresses and slow answers are left to the client."""
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(scheduler)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme != "tcp" or not host or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=5):
            return None
    except (ConnectionRefusedError, socket.gaierror) as exc:
        return exc.strerror or str(exc)
    except OSError:
        return None


def _gather(client, tasks: list[tuple]) -> list:
    futures = [client.submit(stratum_partition, *t, True, pure=False) for t in tasks]
    return client.gather(futures)


def join_strata(parts: list, shape: tuple) -> np.ndarray:
    """The strata's partitions as one, labels offset so that groups of different strata never share a
    label. A per-variable method (labels (n_s, d)) is offset column by column; a stratum kept as one
    group (fewer than 2k records) is one group in every column."""
    per_variable = any(part.ndim == 2 for _, part in parts)
    labels = np.empty((shape[0], shape[1]) if per_variable else shape[0], dtype=np.int64)
    offset = np.zeros(shape[1] if per_variable else 1, dtype=np.int64)
    for rows, part in parts:
        if per_variable and part.ndim == 1:
            part = np.repeat(part[:, None], shape[1], axis=1)
        labels[rows] = part + (offset if per_variable else offset[0])
        offset += part.max(axis=0) + 1 if per_variable else int(part.max()) + 1
    return labels
