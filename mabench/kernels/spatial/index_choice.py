"""Which kernel a method with the ``index`` parameter runs: the pass kernel or the k-d tree kernel
(by measured thresholds on n and d), whether the tree kernels ask a second question on a second
thread, and the ``index`` parameter and ``warm_up`` hook such a method declares. Plain Python: it
chooses kernels, it computes nothing, and no choice changes a partition."""

from __future__ import annotations

import inspect
from contextlib import contextmanager

import numba
import numpy as np

from mabench.kernels.spatial.kdtree import tree_pays
from mabench.plugin import Param, read_only, tiny_problem

INDEXES = ("auto", "tree", "scan")
INDEX_HELP = ("how the farthest and nearest records are found (never changes the partition): "
              "scan = a full pass per question (O(n^2)), tree = k-d tree, auto = by n and d")


def index_param(when: str = "") -> Param:
    """The ``index`` parameter of a method that calls the pass-or-tree kernels (declare it with
    ``warm_up=tree_warm_up(run)``); ``when`` prefixes the help, e.g. "split=c: ". Neutral: the
    partition is the same for every choice, so the run record leaves it out.

    Parameters
    ----------
    when : str — a prefix of the help text (the condition under which the parameter matters).

    Returns
    -------
    mabench.plugin.Param — ``auto`` by default, one of ``INDEXES``.
    """
    return Param("auto", when + INDEX_HELP, INDEXES, neutral=True)


def tree_warm_up(run, width=None):
    """The ``warm_up`` hook (mabench.plugin.Algorithm) of a method with :func:`index_param`: ``run`` on
    a tiny problem with the kernel the real n x d will take (on the tiny problem alone ``auto`` would
    pick the pass kernel), in the one- or two-thread specialization n will run (:func:`sized_as`).

    Parameters
    ----------
    run : callable — the plugin's ``run(Z, k, params, rng[, raw])``.
    width : callable, optional — ``width(d, params)``: the columns the index kernels see when the method
        calls them on a subset of the d columns (EMAD's variable subsets); default d.

    Returns
    -------
    callable — ``warm_up(n, d, k, params)``: compiles what a run on n x d records will call.
    """
    takes_raw = "raw" in inspect.signature(run).parameters

    def warm_up(n: int, d: int, k: int, params: dict) -> None:
        w = d if width is None else width(d, params)
        params = {**params, "index": "tree" if use_tree(params["index"], n, w) else "scan"}
        tiny = read_only(tiny_problem(k, d))  # read-only as a run's data (call_run): the same Numba types
        with sized_as(max(n, tiny.shape[0]), w):
            run(tiny, k, params, np.random.default_rng(0), **({"raw": tiny} if takes_raw else {}))

    return warm_up


# The smallest n from which the tree kernel is faster than the pass kernel, by dimension (MDAV and
# CBFS, k = 3, standard normal data, one thread as the workflow's batches run): 5,000 records up to
# d = 3, 10,000 up to d = 12 (1.35-2.1x there). Above 12 dimensions the boxes prune too little (about
# even at d = 30), so the pass kernel is kept. Measurements: docs/scaling.md, "Against the targets".
TREE_FROM = ((3, 5_000), (12, 10_000))


def use_tree(index: str, n: int, d: int) -> bool:
    """Whether the tree kernel answers (``index=tree``), the pass kernel (``scan``), or whichever the
    measured thresholds say is faster for n records in d dimensions (``auto``).

    Parameters
    ----------
    index : {"auto", "tree", "scan"} — the ``index`` parameter of the method.
    n, d : int — records and attributes.

    Returns
    -------
    bool — true for the tree kernel.

    Raises
    ------
    ValueError — for another ``index``.

    Examples
    --------
    >>> use_tree("scan", 10**6, 3), use_tree("auto", 100, 3)
    (False, False)
    """
    if index not in INDEXES:
        raise ValueError(f"index must be one of {INDEXES}, not {index!r}")
    if index != "auto":
        return index == "tree"
    return tree_pays(TREE_FROM, n, d)


PAIR_FROM = 20_000  # records from which the tree kernels ask a second question on a second thread
# ... and attributes: at d <= 3 a question costs microseconds, less than the second thread's start-up
# per iteration, so it never paid there (MDAV at 10^6 x 3: 3.2 s on two threads, 2.8 s on one; CBFS,
# whose second question is a guess costing one more farthest scan per group, twice as slow); from
# d = 6 both gain or break even. Measurements: docs/scaling.md, "The second thread".
PAIR_FROM_D = 4


_SIZED_AS: list = []  # (n, d) that use_pair answers for while a warm-up runs on a tiny problem


def use_pair(n: int, d: int):
    """True when a second thread is worth its start-up per iteration (the answers never depend on it),
    else None: the tree kernels' ``pair`` argument, whose None specialization leaves out (and never
    compiles) the two-thread code.

    Parameters
    ----------
    n, d : int — records and attributes (overridden inside :func:`sized_as`).

    Returns
    -------
    True or None
    """
    if _SIZED_AS:
        n, d = _SIZED_AS[-1]
    return True if n >= PAIR_FROM and d >= PAIR_FROM_D and numba.get_num_threads() > 1 else None


@contextmanager
def sized_as(n: int, d: int):
    """Within it, :func:`use_pair` answers as for n × d: a warm-up on a tiny problem compiles the
    specialization the real data will run.

    Parameters
    ----------
    n, d : int — the size the real data has.

    Returns
    -------
    context manager
    """
    _SIZED_AS.append((n, d))
    try:
        yield
    finally:
        _SIZED_AS.pop()
