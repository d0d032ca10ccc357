"""The data side of the figures: from the compared registry rows and the results table, what each
figure shows — method labels as the papers print them, the x variable of a table (k, n or d), the
series to plot, MDAV's baseline per k, time ratios and fitted slopes. No drawing here
(:mod:`mabench.report.plotting` draws)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

TIME_METRICS = {"seconds", "time", "job_seconds"}
CLOSE_PERCENT = 5.0  # methods within this spread of each other get a "% vs MDAV" companion panel
BASELINE = ("mdav", "tail=3k")  # the reference method of the companion panels: MDAV-generic


def method_label(algorithm: str, params: str) -> str:
    if not algorithm:
        return "not implemented"
    return f"{algorithm}[{params}]" if params else algorithm

def printed_label(row: str, column: str) -> str:
    """The method as the paper names it: the column without its k (``k=3 MDAV`` -> ``MDAV``), else the row."""
    col = re.sub(r"\bk\s*=\s*\d+\b", "", str(column)).strip(" ,;")
    return col if col else str(row)

def params_of(text: str) -> dict[str, str]:
    out = {}
    for part in str(text or "").split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out

def natural(text: str) -> list:
    """Sort key that orders "Table 4.10" after "Table 4.9"."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(text)) if t]

def keep(frame: pd.DataFrame, col: str, test) -> pd.DataFrame:
    """Rows of ``frame`` whose ``col`` passes ``test`` (safe on empty frames)."""
    return frame[np.fromiter((bool(test(v)) for v in frame[col]), dtype=bool, count=len(frame))]

def num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")

def slope(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2 or np.unique(x[ok]).size < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])

def x_variable(part: pd.DataFrame) -> str:
    """What the table varies: ``k`` or a data-set size parameter (``n``, ``d``), by most distinct values."""
    best, best_count = "k", part.groupby(["dataset", "metric"])["k"].nunique().max()
    names = sorted({name for p in part["dataset_params"] for name in params_of(p)})
    for name in names:
        values = part["dataset_params"].map(lambda p: params_of(p).get(name))
        count = part.assign(_v=values).groupby(["dataset", "metric"])["_v"].nunique().max()
        if count > best_count:
            best, best_count = name, count
    return best if best_count >= 2 else ""

def prepare(part: pd.DataFrame, xvar: str) -> pd.DataFrame:
    frame = part.copy()
    frame["published"] = frame["value"].map(num)
    frame["reproduced"] = pd.to_numeric(frame["reproduced"], errors="coerce")
    frame["label"] = [printed_label(r, c) for r, c in zip(frame["row"], frame["column"])]
    frame["method"] = [method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]
    if xvar == "k":
        frame["x"] = frame["k"].astype(int)
        frame["panel_params"] = frame["dataset_params"]
    else:
        frame["x"] = frame["dataset_params"].map(lambda p: num(params_of(p).get(xvar)))
        frame["panel_params"] = frame["dataset_params"].map(
            lambda p: ",".join(f"{a}={b}" for a, b in sorted(params_of(p).items()) if a != xvar))
        frame["label"] = frame["label"] + frame["k"].map(lambda k: f", k={k}")
    frame["panel"] = [f"{d}[{pp}] · {m}" if pp else f"{d} · {m}"
                      for d, pp, m in zip(frame["dataset"], frame["panel_params"], frame["metric"])]
    timed = frame["metric"].isin(TIME_METRICS)
    if timed.any():  # times across machines compare only as ratios to the series' own first configuration
        frame = frame.sort_values("x", kind="stable")
        for col in ("published", "reproduced"):
            first = frame[timed].groupby(["panel", "label"])[col].transform("first")
            frame.loc[timed, col] = frame.loc[timed, col] / first
        frame.loc[timed, "panel"] = frame.loc[timed, "panel"] + " (ratio to smallest " + xvar + ")"
    return frame

def baseline(results: pd.DataFrame | None, dataset: str, dparams: str, metric: str) -> dict[int, float]:
    """MDAV-generic's value per k on this data set (mean over draws), from the results table."""
    if results is None or results.empty or metric not in results.columns:
        return {}
    algo, params = BASELINE
    want = params_of(dparams)
    sel = results[(results["algorithm"] == algo) & (results["dataset"] == dataset)]
    sel = keep(sel, "params", lambda p: params_of(p).get("tail") == params_of(params)["tail"])
    sel = keep(sel, "dataset_params", lambda p: all(params_of(p).get(a) == b for a, b in want.items()))
    return {int(k): float(v) for k, v in sel.groupby("k")[metric].mean().items()}

def close(frame: pd.DataFrame) -> bool:
    """An information-loss panel with two or more series whose values typically (median over the shared k)
    differ by less than CLOSE_PERCENT."""
    if frame["label"].nunique() < 2 or frame["metric"].iloc[0] not in ("il", "g_il"):
        return False
    vals = frame.assign(v=frame["reproduced"].fillna(frame["published"])).groupby("x")["v"]
    spread = (vals.max() - vals.min()) / vals.mean().abs() * 100
    counts = frame.groupby("x")["label"].nunique()
    spread = spread[counts >= 2]
    return bool(len(spread)) and float(spread.median()) < CLOSE_PERCENT

def time_ratios(results: pd.DataFrame | None, f: pd.DataFrame, xvar: str) -> pd.DataFrame:
    """The reproduced method's own seconds per configuration of the panel, as a ratio to the smallest."""
    if results is None or results.empty or "seconds" not in results.columns:
        return pd.DataFrame()
    rows = []
    for (algo, params, k), s in f.groupby(["algorithm", "params", "k"]):
        if not algo:
            continue
        for x, dparams in zip(s["x"], s["dataset_params"]):
            want = params_of(dparams)
            sel = results[(results["algorithm"] == algo) & (results["dataset"] == s["dataset"].iloc[0])
                          & (results["k"] == int(k))]
            sel = keep(sel, "params", lambda p: all(params_of(p).get(a) == b for a, b in params_of(params).items()))
            sel = keep(sel, "dataset_params", lambda p: all(params_of(p).get(a) == b for a, b in want.items()))
            if len(sel):
                rows.append({"label": f"{method_label(algo, params)}, k={k}", "x": x,
                             "seconds": float(sel["seconds"].median())})
    out = pd.DataFrame(rows).drop_duplicates(["label", "x"])
    if out.empty:
        return out
    out["ratio"] = out.groupby("label")["seconds"].transform(lambda s: s / s.iloc[0] if len(s) else s)
    return out.sort_values(["label", "x"])
