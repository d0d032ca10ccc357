"""The thread count follows the idle cores, and results never depend on it."""

import numba
import numpy as np

from mabench import kernels as K
from mabench.bench import threads


def test_idle_machine_uses_every_configured_thread(monkeypatch):
    monkeypatch.setattr(threads, "_runnable_others", lambda: 0.0)
    monkeypatch.setattr(threads, "cores", lambda: 2)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 2)
    assert threads.choose() == 2


def test_busy_machine_uses_one_thread(monkeypatch):
    monkeypatch.setattr(threads, "cores", lambda: 2)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 2)
    for others in (1.0, 2.0, 7.0):
        monkeypatch.setattr(threads, "_runnable_others", lambda o=others: o)
        assert threads.choose() == 1


def test_configured_maximum_is_respected(monkeypatch):
    monkeypatch.setattr(threads, "_runnable_others", lambda: 0.0)
    monkeypatch.setattr(threads, "cores", lambda: 8)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    assert threads.choose() == 1


def test_runnable_count_is_read_from_the_system():
    assert threads._runnable_others() >= 0


def test_partition_is_the_same_at_one_and_all_threads():
    Z = np.ascontiguousarray(np.random.default_rng(3).standard_normal((3 * K.PARALLEL_MIN, 4)))
    numba.set_num_threads(1)
    one = K.mdav_labels(Z, 3, K.TAIL_3K)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    many = K.mdav_labels(Z, 3, K.TAIL_3K)
    np.testing.assert_array_equal(one, many)
