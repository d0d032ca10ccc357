"""config/full.yaml plans a cell for every published number with an implemented method (issue 16):
a run of it leaves 0 "not run"; the default configuration leaves out exactly the cells it does for time.

The check is on the plan (no run): each registry row must match a (data set, algorithm id, k) of the
configuration by the rules compare() uses (algorithm, k, parameters as a subset of the resolved ones,
the same column selection, the same scale).
"""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from mabench import discovery
from mabench.bench import config, plan
from mabench.plugin import parse_params
from mabench.report import published
from support import ROOT

CATALOG = yaml.safe_load((ROOT / "datasets" / "catalog.yaml").read_text())


def _spec(spec: str) -> tuple[str, dict]:
    name, _, rest = spec.partition("[")
    return name, parse_params(rest.rstrip("]"))


def planned(config_path) -> list[tuple[str, dict, str, dict, int]]:
    """(dataset, resolved dataset params, algorithm, resolved params, k) of every cell of the plan."""
    the_plan = plan.build(config.load(config_path))
    gens, algos = discovery.generators(), discovery.algorithms()
    out = []
    for ds_id, algo_id in the_plan.batches:
        name, dparams = _spec(the_plan.datasets[ds_id].spec)
        if name in gens:
            dparams = {**gens[name].resolve({k: v for k, v in dparams.items() if k not in ("columns", "drop")}),
                       **{k: v for k, v in dparams.items() if k in ("columns", "drop")}}
        a = the_plan.algorithms[algo_id]
        params = algos[a.algorithm].resolve(dict(a.params))
        for k in the_plan.algo_ks(ds_id, algo_id):
            out.append((name, dparams, a.algorithm, params, int(k)))
    return out


def unplanned(config_path) -> pd.DataFrame:
    """The registry rows with an implemented method that no planned cell of the configuration matches."""
    reg = published.load()
    reg = reg[reg["algorithm"].isin(set(discovery.algorithms()))]
    cells: dict[tuple, list] = {}
    for name, dparams, algo, params, k in planned(config_path):
        canon = lambda d: {key: str(v) for key, v in parse_params(",".join(f"{a}={b}" for a, b in d.items())).items()}
        cells.setdefault((algo, name, k), []).append((canon(params), canon(dparams)))
    missing = []
    for row in reg.to_dict("records"):
        want_p, want_d = parse_params(row["params"]), parse_params(row["dataset_params"])
        hits = [1 for p, d in cells.get((row["algorithm"], row["dataset"], int(row["k"])), [])
                if published._is_subset(want_p, p) and published._same_data(want_d, d)
                and published.same_scale(want_p, p)]
        if not hits:
            missing.append(row)
    return pd.DataFrame(missing, columns=reg.columns)


@pytest.fixture(scope="module")
def left_out():
    return unplanned(ROOT / "config" / "config.yaml")


def test_full_configuration_plans_every_published_number():
    missing = unplanned(ROOT / "config" / "full.yaml")
    assert missing.empty, missing[["table", "row", "column", "dataset", "algorithm", "params", "k"]].to_string()


def test_the_default_leaves_out_only_the_long_cells(left_out):
    # ICSM's 10,000 x 10 Synthetic rows (MAX_ITERATIONS 20 and 400: IL and Gain at k = 3, 5, 10) and
    # EMAD's exhaustive Sim_2 c = 4 and Sim_3 c = 3 (min, max, average IL)
    assert len(left_out) == 18
    assert set(zip(left_out["dataset"], left_out["algorithm"])) == {
        ("icsm_synthetic", "icsm"), ("fayyoumi_sim2", "emad"), ("fayyoumi_sim3", "emad")}


def test_full_is_the_default_plus_the_left_out_cells():
    default = config.load(ROOT / "config" / "config.yaml")
    full = config.load(ROOT / "config" / "full.yaml")
    assert set(default["algorithms"]) <= set(full["algorithms"])
    assert all(full["algorithms"][a] == e for a, e in default["algorithms"].items())
    assert set(default["datasets"]) == set(full["datasets"])
    for ds, entry in default["datasets"].items():
        assert set(entry.get("algorithms", [])) <= set(full["datasets"][ds].get("algorithms", []))
        assert {k: v for k, v in entry.items() if k != "algorithms"} == \
            {k: v for k, v in full["datasets"][ds].items() if k != "algorithms"}
    # the batch time limit is the one other key that may differ (the 10,000-record ICSM batch is long)
    other = ("algorithms", "datasets", "runtime_per_run")
    assert {k: v for k, v in default.items() if k not in other} == {k: v for k, v in full.items() if k not in other}
    assert full["runtime_per_run"] >= 60
