"""Where a data set's aggregation parameters point: the per-record stratum codes and sampling
weights (:class:`Layout`), and the data set of the variables alone once those columns are set aside
(:func:`layout_for`). docs/metrics.md#aggregation-measures."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mabench import data
from mabench.errors import UserError


@dataclass
class Layout:
    """Where the aggregation parameters point: per-record stratum codes and sampling weights."""

    strata: np.ndarray | None = None  # (n,) int64 codes 0..s-1, in order of first appearance
    stratum_names: list | None = None  # e.g. "region='North'", per code, for messages
    weights: np.ndarray | None = None  # (n,) float64
    measure: str = "mean"
    trim: float = 0.0
    observed: np.ndarray | None = None  # missing=available with NaN in the variables: (n, d) observed cells
    fill: bool = False  # ... and missing cells get their group's value

    @property
    def plain_means(self) -> bool:
        return self.measure == "mean" and self.weights is None


def _column(name: str, ds, extra: dict | None, what: str, hint: str):
    if name in ds.columns:
        return ds.values[:, ds.columns.index(name)]
    if extra and name in extra:
        return np.asarray(extra[name])
    shown = ", ".join(ds.columns[:20]) + (", ..." if len(ds.columns) > 20 else "")
    raise UserError(f"{what} column {name!r} is not a column of data set {ds.spec}; {hint} (columns: {shown})")


def _shown(value) -> str:
    """A stratum's value in messages: a whole number read as float shows as an integer."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _stratum_codes(cols: list, names: list) -> tuple[np.ndarray, list]:
    """(each record's stratum code, numbered in order of first appearance; each stratum's key, the
    values of its first record) of the key columns ``cols``: records whose values are equal in every
    column (as Python compares them: 1 == 1.0, 0.0 == -0.0) share a stratum. A missing value is an
    input error naming the first record that has one."""
    import pandas as pd

    own = [pd.factorize(col, use_na_sentinel=True) for col in cols]
    gaps = np.column_stack([c < 0 for c, _ in own])
    if gaps.any():
        i = int(np.flatnonzero(gaps.any(axis=1))[0])
        raise UserError(f"strata column {names[int(np.argmax(gaps[i]))]!r}: row {i + 1} is missing; "
                        "give every record a stratum")
    codes = np.zeros(len(cols[0]), dtype=np.int64)
    for c, values in own:
        codes, _ = pd.factorize(codes * len(values) + c)  # the key so far and this column, numbered anew
    _, first = np.unique(codes, return_index=True)
    return codes.astype(np.int64, copy=False), list(zip(*[col[first].tolist() for col in cols]))


def layout_for(ds, agg: dict, extra: dict | None = None):
    """(the data set of the variables only, its Layout); ``extra`` holds columns that are not
    variables (e.g. a DataFrame's text columns) that ``strata`` or ``sampling_weights`` may name."""
    layout = Layout(measure=agg["measure"], trim=float(agg["trim"]))
    if not 0.0 <= layout.trim <= 0.5:
        raise UserError(f"parameter trim={agg['trim']} must be in [0, 0.5] (the share dropped at each end of a group)")
    if layout.trim and layout.measure != "trim":
        raise UserError(f"parameter trim={agg['trim']} is only used with measure=trim; add measure=trim or drop trim")
    taken = []
    if agg["sampling_weights"]:
        name = agg["sampling_weights"]
        if layout.measure not in ("mean", "median"):
            raise UserError(f"sampling weights apply to measure=mean or median, not {layout.measure} "
                            "(sdcMicro ignores them there; mabench refuses rather than ignore them)")
        w = _column(name, ds, extra, "sampling-weights", "name a numeric column of weights")
        try:
            w = np.asarray(w, dtype=np.float64)
        except (TypeError, ValueError):
            raise UserError(f"sampling-weights column {name!r} is not numeric; give a column of non-negative numbers") from None
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise UserError(f"sampling-weights column {name!r}: row {bad[0] + 1} has weight {w[bad[0]]}; "
                            "weights must be finite and non-negative")
        # Weighted means and medians do not change when every weight is scaled; scaled by a power of two
        # (exact: the same bits for ordinary weights) to at most 1, weights near 1e308 cannot overflow
        # the sums of weights and of weight x value.
        peak = float(w.max()) if w.size else 0.0
        if peak > 0.0:
            w = np.ldexp(w, -int(np.frexp(peak)[1]))
        layout.weights = np.ascontiguousarray(w)
        taken.append(name)
    if agg["strata"]:
        names = [c.strip() for c in str(agg["strata"]).replace(",", "+").split("+") if c.strip()]
        twice = [c for i, c in enumerate(names) if c in names[:i]]
        if twice:  # the same column twice would define the same strata: surely a typo for another column
            raise UserError(f"strata names column {twice[0]!r} twice; list each column once")
        cols = [np.asarray(_column(c, ds, extra, "strata", "name the columns that define the strata")) for c in names]
        layout.strata, keys = _stratum_codes(cols, names)
        layout.stratum_names = [", ".join(f"{c}={_shown(v)}" for c, v in zip(names, key)) for key in keys]
        taken += names
    keep = [j for j, c in enumerate(ds.columns) if c not in taken]
    if not keep:
        raise UserError(f"data set {ds.spec}: no variable left to aggregate once the strata and weight columns "
                        "are set aside")
    if len(keep) < len(ds.columns):
        ds = data.Dataset(ds.name, np.ascontiguousarray(ds.values[:, keep]), [ds.columns[j] for j in keep],
                          ds.params, ds.seed, ds.provenance)
    return ds, layout
