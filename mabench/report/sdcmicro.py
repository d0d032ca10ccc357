"""The report page "mabench vs sdcMicro": sdcMicro's microaggregation() methods and mabench's
plugins of the same names on the same files — IL, DLD and time side by side.

Its numbers come from a measured comparison run (``benchmarks/sdcmicro/compare.py``, which runs
sdcMicro through R and mabench in the same session on the same machine): the bundled
``registry/sdcmicro_agreement.csv``, a copy of ``docs/sdcmicro/agreement.csv``. When the workflow's
results hold the same method ids, their IL is shown beside it (the workflow's own run). docs/sdcmicro.md
explains every column and every difference.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mabench import resources
from mabench.report.figure_spec import FigureSpec

AGREEMENT = "sdcmicro_agreement.csv"
ORDER = ["mdav", "rmd", "pca", "mcdpca", "pppca", "clustpca", "clustpca-pam", "clustpppca", "clustpppca-pam",
         "clustmcdpca", "clustmcdpca-pam", "influence", "influence-pam", "onedims", "single", "simple"]


def load_agreement() -> pd.DataFrame:
    with resources.registry_path(AGREEMENT).open() as fh:
        return pd.read_csv(fh)


def _num(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}f}"


def _workflow_il(results: pd.DataFrame | None) -> dict:
    """(method id, data set id, k) -> IL of the workflow's own run (mean over its seeds), where the
    configuration has the sdcMicro ids (config/config.yaml)."""
    need = {"algo_id", "dataset_id", "k", "il"}
    if results is None or not need <= set(results.columns):
        return {}
    rows = results[results["algo_id"].isin(ORDER)]
    means = rows.groupby(["algo_id", "dataset_id", "k"])["il"].mean()
    return {(a, d, int(k)): float(v) for (a, d, k), v in means.items()}


def summary_figure(agreement: pd.DataFrame) -> FigureSpec:
    """IL of sdcMicro's masked file against mabench's, one point per (data set, method, k)."""
    ok = agreement.dropna(subset=["il_mabench", "il_sdcmicro"])
    groups = {True: "deterministic on both sides", False: "random estimator or sample (MCD, CLARA)"}
    exact = ok["deterministic"].astype(str).str.lower()
    data = ok.assign(group=np.where(exact == "true", groups[True], np.where(exact == "false", groups[False], "")))
    return FigureSpec(kind="identity_scatter", data=data[["il_sdcmicro", "il_mabench", "group"]], x="il_sdcmicro",
                      y="il_mabench", hue="group",
                      labels={"x": "IL of sdcMicro's masked file (%)", "y": "IL of mabench's masked file (%)"},
                      extra={"markers": {groups[True]: "o", groups[False]: "x"}})


def page_body(results: pd.DataFrame | None, esc, figure_html) -> str:
    if not resources.registry_path(AGREEMENT).is_file():
        return ("<h1>mabench vs sdcMicro</h1><p>No comparison run is bundled (config/" + AGREEMENT + "); write one "
                "with <code>python benchmarks/sdcmicro/compare.py --sdcmicro DIR</code>.</p>")
    agreement = load_agreement()
    workflow = _workflow_il(results)
    body = ['<nav><a href="index.html">← all papers</a></nav>',
            "<h1>mabench vs sdcMicro</h1>",
            "<p>sdcMicro's <code>microaggregation()</code> (sdcTools/sdcMicro 5.8.1, commit cf32510) and the mabench "
            "plugins of the same names, run on the same files in one measured session "
            "(<code>benchmarks/sdcmicro/compare.py</code>). Both masked files are scored by mabench's metrics: IL "
            "on z-scores, DLD. <i>records equal</i>: share of records whose masked values agree to 1e-9 (identical "
            "original records interchangeable); <i>-pam</i> rows run both sides with <code>clustermethod = pam</code> "
            "(deterministic). Differences and their causes: <code>docs/sdcmicro.md</code>, "
            "<code>docs/algorithms/sdcmicro.md</code>.</p>"]
    from mabench.report import render

    body.append(figure_html(render.png(summary_figure(agreement)), "IL: sdcMicro vs mabench on the same files",
                            "sdcmicro_il"))
    head = ["method", "k", "records equal", "same partition", "IL mabench", "IL sdcMicro", "DLD mabench",
            "DLD sdcMicro", "s mabench", "s sdcMicro", "IL workflow", "note"]
    for dataset, part in agreement.groupby("dataset", sort=False):
        body.append(f"<h2>{esc(str(dataset))}</h2>")
        rows = []
        part = part.assign(_o=part["method"].map({m: i for i, m in enumerate(ORDER)})).sort_values(["_o", "k"])
        for r in part.itertuples():
            err = getattr(r, "sdcmicro_error", None)
            note = f"sdcMicro stops: {err}" if isinstance(err, str) and err else ""
            if str(getattr(r, "per_variable", "")) == "True":
                note = "per-variable: one partition per variable" + (f"; {note}" if note else "")
            wf = workflow.get((r.method, dataset, int(r.k)))
            cells = [esc(str(r.method)), str(int(r.k)), _num(getattr(r, "records_equal_up_to_duplicates", float("nan"))),
                     esc(str(getattr(r, "same_partition", ""))), _num(r.il_mabench), _num(r.il_sdcmicro),
                     _num(r.dld_mabench, 2), _num(r.dld_sdcmicro, 2), _num(r.seconds_mabench, 4),
                     _num(r.seconds_sdcmicro, 3), _num(wf) if wf is not None else "", esc(note)]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        body.append('<table data-table="sdcmicro-' + esc(str(dataset)) + '"><thead><tr>'
                    + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows)
                    + "</tbody></table>")
    return "".join(body)
