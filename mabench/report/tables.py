"""Regenerated paper tables: published | reproduced | Δ | verdict, one per source table.

Each source table of the registry becomes ``<source>_<table>.{md,tex,csv}``;
``index.md`` summarizes the verdicts of every table and lists each number
that does not hold, with its cause. Timings and the run's provenance (the
checkout's commit, the machine: results.parquet and the HTML report hold
them) are left out, so that the same results and registry give
byte-identical tables, whichever checkout aggregated them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io
from mabench.report import published
from mabench.errors import UserError

SOURCES = {
    "ps2010": "Kabir, Wang & Zhang (ICDM 2010), Pairwise Systematic microaggregation",
    "chettri": "Chettri, Paul & Dutta, CV-MDAV",
    "icsm2015": "Mortazavi & Jalili (ISeCure 2015), ICSM",
    "fayyoumi2008": "Fayyoumi (PhD thesis, Carleton 2008)",
}
VERDICT_ORDER = ["reproduced", "within tolerance", "not reproduced", "not run", "not implemented"]
COLUMNS = ["Row", "Column", "Data set", "k", "Metric", "Harness method", "Published", "Reproduced", "Δ",
           "Verdict", "Class", "Cause"]
# What each cause class means, for the headline (the rules: docs/published.md, "Cause classes").
CLASS_MEANING = {
    "open": "nothing explains it yet: a lead, possibly a harness defect",
    "source-error": "contradicted by the source's own numbers, definitions or bounds (docs/findings.md)",
    "under-specified": "the source omits what decides the number",
    "quoted": "quoted from a paper outside the seeds, for a method they do not fully specify",
    "stochastic": "one printed draw of random data or a random method, outside the harness's interval",
    "machine": "a time ratio, an iteration count or a search budget: implementation- and machine-specific",
    "harness-better": "the harness's method reaches a lower information loss than printed",
}


def slug(source: str, table: str) -> str:
    return f"{source}_" + re.sub(r"[^a-z0-9.]+", "-", table.lower()).strip("-")


def _num(x, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}f}"


def _method(row) -> str:
    if not row["algorithm"]:
        return "—"
    return f"{row['algorithm']}[{row['params']}]" if row["params"] else row["algorithm"]


def _dataset(row) -> str:
    return f"{row['dataset']}[{row['dataset_params']}]" if row["dataset_params"] else row["dataset"]


def display(frame: pd.DataFrame) -> pd.DataFrame:
    """The human-facing columns of a compared registry slice."""
    rows = []
    for _, r in frame.iterrows():
        digits = int(r["decimals"]) + 2
        if r["rule"] == "draws" and not (isinstance(r["reproduced"], float) and math.isnan(r["reproduced"])):
            repro = f"{_num(r['reproduced'], digits)} [{_num(r['ci_low'], digits)}, {_num(r['ci_high'], digits)}] (n={int(r['n_draws'])})"
            if int(r["n_draws"]) > 1 and r.get("metric") in ("il", "g_il"):
                repro += f", best {_num(r['best'], digits)}"
        else:
            repro = _num(r["reproduced"], digits)
        rows.append([r["row"], r["column"], _dataset(r), int(r["k"]), r["metric"], _method(r), str(r["value"]),
                     repro, _num(r["delta"], digits), r["verdict"], _class(r),
                     r["cause"] or (r["note"] if r["verdict"] != "reproduced" else "") or ""])
    return pd.DataFrame(rows, columns=COLUMNS)


def _class(r) -> str:
    """The cause class of a number that is not reproduced (a missing one shows as open)."""
    if r["verdict"] != "not reproduced":
        return ""
    return str(r.get("class") or "") or "open"


def _class_line(part: pd.DataFrame) -> str:
    n = published.class_counts(part)
    split = ", ".join(f"{n[c]} {c}" for c in published.CLASSES if n[c])
    return f" Not reproduced, by cause class: {split}." if split else ""


def class_summary(compared: pd.DataFrame) -> str:
    """One sentence: how many numbers hold, and the ones that do not by cause class."""
    counts, classes = _counts(compared), published.class_counts(compared)
    split = ", ".join(f"{classes[c]} {c}" for c in published.CLASSES if classes[c])
    return (f"{len(compared)} published numbers: {counts['reproduced']} reproduced, "
            f"{counts['within tolerance']} within tolerance, {counts['not reproduced']} not reproduced"
            f"{' (' + split + ')' if split else ''}, {counts['not run']} not run, "
            f"{counts['not implemented']} not implemented.")


def question(r) -> str:
    """An open number as a question, with what was tried (the registry note)."""
    digits = int(r["decimals"]) + 2
    got = "" if pd.isna(r["reproduced"]) else f" (harness {_num(r['reproduced'], digits)})"
    tried = r["note"] or "nothing recorded yet"
    more = f" More: {r['evidence']}." if r.get("evidence") else ""
    return (f"Why does {r['source']} {r['table']} print {r['value']} for {r['row']} / {r['column']} "
            f"({_dataset(r)}, k = {int(r['k'])}, {r['metric']}){got}? Tried: {tried}{more}")


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


_TEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
        "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "Δ": r"$\Delta$",
        "−": "-", "–": "--", "—": "---", "±": r"$\pm$", "≤": r"$\le$", "≥": r"$\ge$", "·": r"$\cdot$"}


def _tex(text) -> str:
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def latex(frame: pd.DataFrame, caption: str) -> str:
    cols = "l" * len(frame.columns)
    out = [r"\begin{table}[ht]", r"\centering", r"\scriptsize", rf"\caption{{{_tex(caption)}}}",
           rf"\begin{{tabular}}{{{cols}}}", r"\hline", " & ".join(_tex(c) for c in frame.columns) + r" \\", r"\hline"]
    out += [" & ".join(_tex(v) for v in row) + r" \\" for row in frame.itertuples(index=False)]
    out += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def _counts(frame: pd.DataFrame) -> dict[str, int]:
    return {v: int((frame["verdict"] == v).sum()) for v in VERDICT_ORDER}


def _summary(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n)


# ------------------------------------------------------------------ readings and scales
def _mark_absent_plugins(compared: pd.DataFrame) -> pd.DataFrame:
    """A row whose plugin is not in this checkout is "not implemented" (not "not run")."""
    from mabench import discovery

    try:
        known = set(discovery.algorithms())
    except Exception:  # a broken plugin elsewhere must not hide the tables
        return compared
    absent = (compared["verdict"] == "not run") & (compared["algorithm"] != "") & ~compared["algorithm"].isin(known)
    compared = compared.copy()
    compared.loc[absent, "verdict"] = "not implemented"
    compared.loc[absent, "cause"] = "plugin " + compared.loc[absent, "algorithm"] + " is not in this checkout"
    return compared


def _result_key(results: pd.DataFrame) -> pd.DataFrame:
    res = results.copy()
    for col in ("params", "dataset_params"):
        if col not in res.columns:
            res[col] = ""
        res[col] = res[col].fillna("").astype(str)
    return res


class ReadingIndex:
    """The results grouped once by (algorithm, data set, k), then by parameter setting: each group's
    rows as (parsed data set parameters, row position), so that judging every registry row's
    readings costs one dictionary lookup per row instead of a scan of the whole results table."""

    def __init__(self, results: pd.DataFrame):
        self.results = results
        self.groups: dict[tuple, dict[str, list]] = {}
        keys = zip(results["algorithm"], results["dataset"], results["k"].astype("int64"), results["params"],
                   results["dataset_params"])
        for pos, (algo, dataset, k, params, dparams) in enumerate(keys):
            by_params = self.groups.setdefault((algo, dataset, int(k)), {})
            by_params.setdefault(params, []).append((published.parse_params(dparams), pos))
        self._numeric: dict[str, np.ndarray] = {}

    def values(self, metric: str) -> np.ndarray:
        if metric not in self._numeric:
            self._numeric[metric] = pd.to_numeric(self.results[metric], errors="coerce").to_numpy(dtype=float)
        return self._numeric[metric]


def reading_values(row: dict, index: ReadingIndex) -> list[tuple[str, float, dict]]:
    """Every parameter setting ("reading") of the row's algorithm that has a value for the row's
    cell (same data set, column selection, k and metric), with the verdict it would get."""
    metric = row["metric"]
    if not row["algorithm"] or metric not in index.results.columns or row["rule"] != "exact":
        return []
    want_d = published.parse_params(row["dataset_params"])
    want_p = published.parse_params(row["params"])
    out = []
    for params, members in sorted(index.groups.get((row["algorithm"], row["dataset"], int(row["k"])), {}).items()):
        if not published.same_scale(want_p, published.parse_params(params)):
            continue  # a reading varies the method, not the scale (that is the scale check's job)
        column = index.values(metric)
        vals = np.array([column[pos] for have, pos in members if published._is_subset(want_d, have)])
        vals = vals[~np.isnan(vals)]
        if vals.size:
            out.append((params, float(vals.mean()), published._exact(row, vals)))
    return out


def _closeness(verdict: dict) -> tuple:
    rank = {"reproduced": 0, "within tolerance": 1}.get(verdict["verdict"], 2)
    return (rank, abs(verdict["delta"]))


def readings_section(part: pd.DataFrame, compared: pd.DataFrame, results: pd.DataFrame) -> str:
    """For rows whose method ran under several readings: the best reading per cell, and the reading
    best over all cells of that row label in the whole source (most cells reproduced, then within
    tolerance, then the smallest mean |Δ|)."""
    lines = []
    groups: dict[tuple, list] = {}
    index = results if isinstance(results, ReadingIndex) else ReadingIndex(results)
    for row in part.to_dict("records"):
        found = reading_values(row, index)
        if len(found) < 2:
            continue
        best = min(found, key=lambda f: _closeness(f[2]))
        lines.append([row["row"], row["column"], _dataset(row), str(row["value"]),
                      _num(row["reproduced"], int(row["decimals"]) + 2), f"{row['algorithm']}[{best[0]}]",
                      _num(best[1], int(row["decimals"]) + 2), _num(best[2]["delta"], int(row["decimals"]) + 2),
                      best[2]["verdict"], str(len(found))])
        groups.setdefault((row["source"], row["row"], row["algorithm"]), [])
    if not lines:
        return ""
    out = ["", "## Readings explored", "",
           "Methods run under several parameter settings (readings of an ambiguous source). "
           "Registry reading = the value of the reading the registry row names (the verdict above); "
           "best reading = the setting closest to the printed value in this cell.", ""]
    cols = ["Row", "Column", "Data set", "Published", "Registry reading", "Best reading", "Its value", "Δ",
            "Its verdict", "Readings"]
    out.append(markdown(pd.DataFrame(lines, columns=cols)))
    for source, row_label, algo in groups:
        cells = compared[(compared["source"] == source) & (compared["row"] == row_label)
                         & (compared["algorithm"] == algo)]
        tally: dict[str, list] = {}
        for row in cells.to_dict("records"):
            for params, _, v in reading_values(row, index):
                tally.setdefault(params, []).append(v)
        n_cells = len(cells)
        complete = {p: v for p, v in tally.items() if len(v) == n_cells} or tally
        def score(p):
            v = complete[p]
            return (-sum(x["verdict"] == "reproduced" for x in v), -sum(x["verdict"] != "not reproduced" for x in v),
                    float(np.mean([abs(x["delta"]) for x in v])))
        ranked = sorted(complete, key=score)
        out.append(f"**{row_label}** ({algo}), best reading over all {n_cells} cells of {source}:")
        out.append("")
        for p in ranked[:3]:
            r, ok, mad = score(p)
            out.append(f"* `{p}`: {-r} reproduced, {-ok} reproduced or within tolerance, mean |Δ| {mad:.4f}")
        out.append(f"* ({len(complete)} readings ranked)")
        out.append("")
    return "\n".join(out) + "\n"


def _with_scale(params: str, scale: str) -> dict:
    have = published.parse_params(params)
    have["scale"] = scale
    return have


def scale_section(part: pd.DataFrame, results: pd.DataFrame, baseline=("mdav", "tail=3k")) -> str:
    """For rows published on the raw scale (metric il_raw): the method and the baseline MDAV-generic,
    each run on raw values (scored with il_raw) and on z-scores (scored with il), so that a raw-scale
    number is never read as a standardized one."""
    raw_rows = part[part["metric"] == "il_raw"]
    if raw_rows.empty or "il" not in results.columns or "il_raw" not in results.columns:
        return ""

    def pick(same, algo, want, metric):
        hit = same[same["algorithm"] == algo]
        rest = {k: v for k, v in want.items() if k != "scale"}
        hit = hit[[published._is_subset(rest, published.parse_params(p)) and published.same_scale(want, published.parse_params(p))
                   for p in hit["params"]]]
        vals = pd.to_numeric(hit[metric], errors="coerce").dropna() if not hit.empty else pd.Series(dtype=float)
        return float(vals.iloc[0]) if len(vals) else np.nan

    lines = []
    for row in raw_rows.to_dict("records"):
        same = results[(results["dataset"] == row["dataset"]) & (results["k"].astype("int64") == int(row["k"]))]
        m_raw = pick(same, row["algorithm"], _with_scale(row["params"], "raw"), "il_raw")
        m_std = pick(same, row["algorithm"], _with_scale(row["params"], "standardized"), "il")
        b_raw = pick(same, baseline[0], _with_scale(baseline[1], "raw"), "il_raw")
        b_std = pick(same, baseline[0], _with_scale(baseline[1], "standardized"), "il")
        lines.append([row["row"], row["column"], _dataset(row), str(row["value"]), _num(m_raw, 4), _num(b_raw, 4),
                      _num(m_raw - b_raw, 4), _num(m_std, 4), _num(b_std, 4), _num(m_std - b_std, 4)])
    cols = ["Row", "Column", "Data set", "Published", "Method, raw scale", "MDAV, raw scale", "Δ raw",
            "Method, standardized", "MDAV, standardized", "Δ standardized"]
    return ("\n## Scale check\n\nRows published on the raw (unstandardized) scale, metric `il_raw`; every "
            "other row of these tables is standardized IL (`il`). Raw scale = the method run on the original "
            "values (`scale=raw`) and scored with `il_raw`; standardized = run on z-scores and scored with `il`. "
            f"MDAV = MDAV-generic (`{baseline[0]}[{baseline[1]}]`). Δ = method − MDAV on the same scale "
            "(positive: the method loses more information). See docs/metrics.md#il_raw and "
            "docs/algorithms/ps_cvmdav.md.\n\n"
            + markdown(pd.DataFrame(lines, columns=cols)))


def write_tables(results: pd.DataFrame, out_dir, registry: pd.DataFrame | None = None) -> pd.DataFrame:
    registry = published.load() if registry is None else registry
    everything = _mark_absent_plugins(published.compare(registry, results))
    compared, left_out = run_tables(everything)
    res = _result_key(results)
    readings = ReadingIndex(res)
    out_dir = Path(out_dir)
    index_rows = []
    for (source, table), part in compared.groupby(["source", "table"], sort=True):
        shown = display(part)
        name = slug(source, table)
        counts = _counts(part)
        seed = part["seed_file"].iloc[0]
        title = f"{SOURCES.get(source, source)} — {table}"
        head = (f"# {title}\n\nSeed document: `{seed}`. Regenerated by mabench. "
                f"Verdicts: {_summary(counts)}.{_class_line(part)}\n\n"
                "Published = as printed; Reproduced = the harness's value (mean [95 % CI] (n = draws) for random "
                "data); Δ = reproduced − published. Verdict rules: docs/published.md.\n\n")
        extra = scale_section(part, res) + readings_section(part, compared, readings)
        io.write_text(out_dir / f"{name}.md", head + markdown(shown) + extra)
        io.write_text(out_dir / f"{name}.tex", latex(shown, f"{title} (regenerated; {_summary(counts)})"))
        with io.atomic_path(out_dir / f"{name}.csv") as tmp:
            part.to_csv(tmp, index=False, float_format="%.10g")
        index_rows.append((source, table, name, counts))
    from mabench.report import leaderboard

    leaderboard.write(results, out_dir, *leaderboard.references())
    _write_index(compared, index_rows, out_dir, left_out)
    return everything


def run_tables(compared: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """(the rows of the published tables this run computed at least one number of, how many tables
    were left out): a configuration that never meant to run a paper's table gets no page saying
    that its numbers were "not run"."""
    if compared.empty:
        return compared, 0
    computed = ~compared["verdict"].isin(["not run", "not implemented"])
    ran = computed.groupby([compared["source"], compared["table"]]).transform("any")
    left_out = compared.loc[~ran, ["source", "table"]].drop_duplicates()
    return compared[ran], len(left_out)


def _write_index(compared, index_rows, out_dir: Path, left_out: int = 0) -> None:
    lines = ["# Regenerated tables", "",
             "**[Leaderboard](leaderboard.md)** ([csv](leaderboard.csv), [tex](leaderboard.tex); HTML with a "
             "figure per data set: the report's leaderboard.html): every method this run computed, ranked by IL "
             "per data set and k, with the gaps to the best-known partition and to the certified lower bound; "
             "its measured time and memory: [leaderboard_cost.md](leaderboard_cost.md).", "",
             "The published numbers in registry/published.csv whose tables this run computed, recomputed by "
             "mabench."
             + (f" {left_out} table(s) whose cells this configuration does not run are left out." if left_out else ""),
             "", f"**{class_summary(compared)}**", "", "| Source | Table | " + " | ".join(VERDICT_ORDER) + " | Files |",
             "|---|---|" + "---|" * len(VERDICT_ORDER) + "---|"]
    for source, table, name, counts in index_rows:
        files = f"[md]({name}.md) [tex]({name}.tex) [csv]({name}.csv)"
        lines.append(f"| {source} | {table} | " + " | ".join(str(counts[v]) for v in VERDICT_ORDER) + f" | {files} |")
    total = _counts(compared)
    lines.append("| **all** | | " + " | ".join(f"**{total[v]}**" for v in VERDICT_ORDER) + " | |")
    bad = compared[compared["verdict"] == "not reproduced"]
    cls = bad["class"].replace("", "open")
    lines += ["", "## Why the numbers that do not hold do not hold", "",
              "Each number that is not reproduced has a cause class (docs/published.md, \"Cause classes\"); "
              "`harness-better` is decided from the numbers, the others come from the registry.", "",
              "| Source | Table | " + " | ".join(published.CLASSES) + " |",
              "|---|---|" + "---|" * len(published.CLASSES)]
    for (source, table), part in bad.groupby(["source", "table"], sort=True):
        n = published.class_counts(part)
        lines.append(f"| {source} | {table} | " + " | ".join(str(n[c]) for c in published.CLASSES) + " |")
    n = published.class_counts(compared)
    lines.append("| **all** | | " + " | ".join(f"**{n[c]}**" for c in published.CLASSES) + " |")
    lines += [""] + [f"* `{c}` ({n[c]}): {CLASS_MEANING[c]}" for c in published.CLASSES]
    lines += ["", "## Open questions", ""]
    opened = bad[cls == "open"]
    lines += [f"{i}. {question(r)}" for i, (_, r) in enumerate(opened.iterrows(), 1)] or ["None."]
    lines += ["", "## Published numbers that do not hold, by class", ""]
    if bad.empty:
        lines.append("None.")
    for c in published.CLASSES:
        part = bad[cls == c]
        if part.empty:
            continue
        shown = display(part)
        shown.insert(0, "Table", (part["source"] + " " + part["table"]).to_list())
        lines += [f"### {c} ({len(part)})", "", markdown(shown), ""]
    io.write_text(out_dir / "index.md", "\n".join(lines) + "\n")


def read_results(path) -> pd.DataFrame:
    """The workflow's results table (results.parquet, written by `mabench aggregate`), checked: a
    readable Parquet file with at least one row, the key and id columns, and numeric finite IL."""
    from mabench.report import compare

    p = Path(path)
    if not p.exists():
        raise UserError(f"results table {str(path)!r} does not exist; run the workflow (or `mabench aggregate`) first")
    if p.is_dir():
        raise UserError(f"results table {str(path)!r} is a folder; give its results.parquet")
    try:
        frame = pd.read_parquet(p)
    except Exception as exc:  # noqa: BLE001 - not Parquet, truncated, ...: the user's file to fix
        raise UserError(f"cannot read results table {str(path)!r} as Parquet ({exc.__class__.__name__}); give the "
                        "results.parquet written by the workflow or `mabench aggregate`") from None
    missing = [c for c in ("dataset_id", "algo_id") if c not in frame.columns]
    if missing:
        raise UserError(f"{str(path)!r} is not a results table of the workflow: it lacks column(s) "
                        f"{', '.join(missing)} (write it with `mabench aggregate`)")
    return compare.check_table(frame, str(path), unique=(*compare.KEY, "dataset_id", "algo_id"))
