"""Strata run one after another, in parallel processes and on a Dask cluster give the same bytes
(mabench.bench.strata): the API's n_jobs / executor / scheduler and the CLI's --jobs / --executor /
--scheduler."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from support import assert_user_error, run_cli


@pytest.fixture(scope="module")
def stratified(tmp_path_factory):
    """A file of 4 strata of unequal sizes (one too small to split: a single group)."""
    rng = np.random.default_rng(11)
    sizes = {"N": 140, "S": 90, "E": 60, "W": 5}
    region = np.concatenate([[name] * size for name, size in sizes.items()])
    n = region.size
    frame = pd.DataFrame({"id": np.arange(n), "region": region, "age": rng.integers(18, 90, n),
                          "income": rng.lognormal(3.0, 1.0, n), "debt": rng.normal(size=n)})
    path = tmp_path_factory.mktemp("strata") / "people.csv"
    frame.sample(frac=1.0, random_state=3).to_csv(path, index=False)  # strata interleaved in the file
    return path


@pytest.fixture(scope="module")
def cluster():
    """One local Dask cluster of 2 worker processes for the module (each worker imports mabench once)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local


def _bytes(result) -> bytes:
    return result.masked.to_csv(index=False, lineterminator="\n").encode()


@pytest.mark.parametrize("method, params", [("mdav", {}), ("omma", {})])
def test_serial_processes_and_dask_give_byte_identical_masked_output(stratified, cluster, method, params):
    """omma draws random numbers: each stratum's stream is its own, wherever it runs."""
    import distributed

    call = dict(data=stratified, k=3, method=method, strata="region", seed=7, columns=["age", "income", "debt"],
                **params)
    serial = mabench.microaggregate(**call)
    runs = {"n_jobs=2": mabench.microaggregate(**call, n_jobs=2)}
    with distributed.Client(cluster):
        runs["dask, this process's client"] = mabench.microaggregate(**call, executor="dask")
    runs["dask, scheduler address"] = mabench.microaggregate(**call, executor="dask",
                                                             scheduler=cluster.scheduler_address)
    assert serial.info == {} or "strata" in serial.info
    for name, result in runs.items():
        assert np.array_equal(result.labels, serial.labels), name
        assert _bytes(result) == _bytes(serial), name
    assert len(serial.groups) > 4  # strata split into several groups each (the test has something to compare)


def test_cli_jobs_writes_the_serial_runs_masked_file_byte_for_byte(stratified, tmp_path):
    out = {}
    for jobs in ("1", "2"):
        target = tmp_path / f"masked_{jobs}.parquet"
        proc = run_cli("run", "mdav", str(stratified), "-k", "3", "--strata", "region", "--jobs", jobs,
                       "--masked-out", str(target))
        assert proc.returncode == 0, proc.stderr
        out[jobs] = target.read_bytes()
    assert out["1"] == out["2"]


@pytest.mark.parametrize("args, needle", [
    (["--jobs", "0"], "jobs=0"),
    (["--executor", "spark"], "executor='spark'"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--executor dask"),
])
def test_cli_refuses_a_bad_spread_in_one_line(stratified, args, needle, cli_main):
    assert_user_error(cli_main("run", "mdav", str(stratified), "-k", "3", "--strata", "region", *args), needle)


@pytest.mark.slow
def test_an_unreachable_scheduler_is_an_input_error(stratified):
    pytest.importorskip("distributed")
    assert_user_error(run_cli("run", "mdav", str(stratified), "-k", "3", "--strata", "region", "--executor", "dask",
                              "--scheduler", "tcp://127.0.0.1:9"), "Dask scheduler")


def test_api_refuses_a_bad_spread():
    with pytest.raises(mabench.UserError, match="n_jobs|jobs"):
        mabench.microaggregate(np.random.default_rng(0).normal(size=(12, 2)), k=3, n_jobs=0)
