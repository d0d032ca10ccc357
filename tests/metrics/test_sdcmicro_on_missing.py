"""sdcMicro's measures on data with missing values (missing=available; docs/metrics.md#missing-values):
robeigen and rl_rate computed on available cases as sdcMicro computes them, rmd_* and summary_micro
refused in one line saying why (sdcMicro gives no number there) and what to do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError
from mabench.metrics.record_linkage import linkage_cost
from mabench.metrics.sdcmicro_risk import robust_covariance
from mabench.metrics.sdcmicro_utility import robeigen_change
from metrics.test_available_cases import _frame as available_frame
from support import assert_user_error, main_in_process

# cluster::daisy(x, metric = ...) on this frame with NA, printed by R 4 (cluster 2.1) on 2026-11-28; gower
# with weights = c(1, 2, 3). The R lines: x <- data.frame(a = c(1, 2, NA, 4), b = c(0, 5, 1, NA), c = c(3, 3, 2, 9));
# as.matrix(daisy(x, metric = m)) (and weights = c(1, 2, 3) for gower).
DAISY_X = np.array([[1, 0, 3], [2, 5, 3], [np.nan, 1, 2], [4, np.nan, 9]], dtype=float)
DAISY = {
    "euclidean": [[0, 5.099020, 1.732051, 8.215838], [5.099020, 0, 5.049752, 7.745967],
                  [1.732051, 5.049752, 0, 12.124356], [8.215838, 7.745967, 12.124356, 0]],
    "manhattan": [[0, 6.0, 3.0, 13.5], [6.0, 0, 7.5, 12.0], [3.0, 7.5, 0, 21.0], [13.5, 12.0, 21.0, 0]],
    "gower": [[0, 0.3888889, 0.1657143, 0.8928571], [0.3888889, 0, 0.4057143, 0.8095238],
              [0.1657143, 0.4057143, 0, 1.0], [0.8928571, 0.8095238, 1.0, 0]],
}


def _frame():
    """test_available_cases's frame with NA, without its record that observes nothing (rl_rate refuses it)."""
    return available_frame(n=60, seed=3).drop(index=4).reset_index(drop=True)


@pytest.mark.parametrize("distance", sorted(DAISY))
def test_linkage_distances_with_na_are_daisys(distance):
    weights = [1.0, 2.0, 3.0] if distance == "gower" else None  # daisy weighs gower only
    got = linkage_cost(DAISY_X, DAISY_X, distance, weights)
    np.testing.assert_allclose(got, DAISY[distance], atol=5e-7)


def test_linkage_distances_without_na_are_unchanged():
    x = np.nan_to_num(DAISY_X, nan=2.5)
    for distance in DAISY:
        assert np.array_equal(linkage_cost(x, x[::-1], distance), linkage_cost(x, x[::-1].copy(), distance))
        want = np.abs(x[:, None, :] - x[None, ::-1, :])
        if distance == "manhattan":
            np.testing.assert_allclose(linkage_cost(x, x[::-1], distance), want.sum(-1), rtol=1e-15)


def test_rl_rate_links_the_observed_cells_and_fill_changes_nothing():
    df = _frame()
    plain = mabench.microaggregate(df, k=3, missing="available")
    filled = mabench.microaggregate(df, k=3, missing="available", fill=True)
    x = df.to_numpy()
    xm = np.where(df.isna(), np.nan, plain.masked[["a", "b", "c"]].to_numpy())
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(linkage_cost(x, xm, "gower"))
    want = float(np.mean(rows == cols))
    assert plain.metrics(["rl_rate"])["rl_rate"] == want
    assert filled.metrics(["rl_rate"])["rl_rate"] == want


def test_rl_rate_refuses_a_pair_with_nothing_in_common():
    df = _frame()
    df.loc[0, ["a", "b", "c"]] = np.nan
    r = mabench.microaggregate(df, k=3, missing="available")
    with pytest.raises(UserError, match=r"^rl_rate: original record 1 and masked record \d+ observe no linkage "
                                        r"variable in common"):
        r.metrics(["rl_rate"])


def _r_scale(a: np.ndarray) -> np.ndarray:
    frame = pd.DataFrame(a)  # pandas: mean and sd (n - 1) skip NaN, as R's scale() does
    return ((frame - frame.mean()) / frame.std()).to_numpy()


def test_robeigen_uses_the_complete_records_of_rs_scale():
    """sdcMicro: eigen(covMcd(scale(x))$cov) against the same of xm; scale() over the observed values,
    covMcd on the records without NA."""
    df = _frame()
    r = mabench.microaggregate(df, k=3, missing="available")
    x = df.to_numpy()
    xm = np.where(df.isna(), np.nan, r.masked[["a", "b", "c"]].to_numpy())
    keep = ~np.isnan(x).any(axis=1)
    covs = (robust_covariance(_r_scale(x)[keep], 0), robust_covariance(_r_scale(xm)[keep], 0))
    got = r.metrics(["robeigen"])["robeigen"]
    assert got == pytest.approx(robeigen_change(x, xm, covs=covs), rel=1e-12)
    assert mabench.microaggregate(df, k=3, missing="available", fill=True).metrics(["robeigen"])["robeigen"] == got


def test_robeigen_on_complete_data_is_the_complete_data_value():
    df = _frame().fillna(0.3)
    with_flag = mabench.microaggregate(df, k=3, missing="available").metrics(["robeigen"])["robeigen"]
    assert with_flag == mabench.microaggregate(df, k=3).metrics(["robeigen"])["robeigen"]


@pytest.mark.parametrize("name, why", [
    ("rmd_risk1", "sdcMicro's dRiskRMD centres on colMeans(x) without na.rm"),
    ("rmd_wrisk2", "sdcMicro's dRiskRMD centres on colMeans(x) without na.rm"),
    ("summary_micro", "sdcMicro's summary() of a microaggregation stops on NA"),
])
def test_measures_sdcmicro_gives_no_number_for_are_refused_saying_why(name, why):
    r = mabench.microaggregate(_frame(), k=3, missing="available")
    with pytest.raises(UserError, match=r"^metric (rmd|summary_micro)\w* is not defined on data with missing values: ") as e:
        r.metrics([name])
    assert why in str(e.value) and "drop the rows with a missing value" in str(e.value)
    assert "\n" not in str(e.value)


def test_default_metrics_on_missing_values_are_the_available_ones():
    got = mabench.microaggregate(_frame(), k=3, missing="available").metrics()
    assert set(got) == {"il", "dld", "id"}  # the default (not opt-in) metrics defined on available cases


@pytest.fixture()
def csv_with_na(tmp_path):
    path = tmp_path / "na.csv"
    _frame().to_csv(path, index=False)
    return path


@pytest.mark.parametrize("metric, needle", [
    ("rmd_risk1", "dRiskRMD centres on colMeans(x)"),
    ("summary_micro", "summary() of a microaggregation stops on NA"),
])
def test_cli_refuses_in_one_line(capsys, csv_with_na, metric, needle):
    proc = main_in_process(capsys, "run", "mdav", str(csv_with_na), "-k", "3", "--missing", "available",
                           "--metrics", metric)
    assert_user_error(proc, needle)


def test_cli_computes_robeigen_and_rl_rate(capsys, csv_with_na):
    proc = main_in_process(capsys, "run", "mdav", str(csv_with_na), "-k", "3", "--missing", "available",
                           "--metrics", "robeigen,rl_rate")
    assert proc.returncode == 0, proc.stderr
    assert "robeigen" in proc.stdout and "rl_rate" in proc.stdout
