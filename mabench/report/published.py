"""The published-values registry (``registry/published.csv``) and the comparison of
harness results against it.

One registry row is one number printed in a seed paper, with what the harness
must run to recompute it and how to judge the recomputed value. The columns,
the verdict rules and how to add a number are in ``docs/published.md``.

* :func:`load` reads the CSV and validates every row against
  ``registry/published.schema.json`` plus the cross-field checks a JSON schema
  cannot express; a bad registry raises :class:`RuntimeError`.
* :func:`compare` matches registry rows to a tidy results table and gives each
  published number a verdict: reproduced, within tolerance, not reproduced,
  not run or not implemented; and every number that is not reproduced a cause
  class (:data:`CLASSES`): the registry's ``cause_class``, or ``harness-better``
  where the numbers say so (:func:`harness_better`).
* :func:`class_problems` lists the non-reproductions whose class is missing or
  breaks its evidence rule (docs/published.md, "Cause classes").
"""

from __future__ import annotations

import json
import math
import re
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import resources
from mabench.plugin import NUMBER as _NUMBER, parse_params

COLUMNS = ["source", "seed_file", "table", "row", "column", "dataset", "dataset_params", "algorithm",
           "params", "k", "metric", "value", "decimals", "rounding", "rule", "tolerance", "note", "cause_class",
           "evidence"]
KEY = ["source", "table", "row", "column", "dataset", "dataset_params", "k", "metric"]
ADDED = ["reproduced", "n_draws", "ci_low", "ci_high", "best", "delta", "verdict", "cause", "class"]
VERDICTS = ("reproduced", "within tolerance", "not reproduced", "not run", "not implemented")

# Why a published number does not hold: a closed set, each with an evidence rule (docs/published.md,
# "Cause classes"). `open` first: the only class that may hide a harness defect. The registry names
# every class but `harness-better`, which compare() decides from the numbers.
CLASSES = ("open", "source-error", "under-specified", "quoted", "stochastic", "machine", "harness-better")
REGISTRY_CLASSES = tuple(c for c in CLASSES if c != "harness-better")
# Metrics that are the objective every microaggregation method minimizes (within-group SSE as a
# share of the total), and the data sets that are fixed: a lower value there is the method's doing.
OBJECTIVES = ("il", "il_raw", "il_min")
FIXED_DATA = ("tarragona", "census", "eia")
# What a `machine` number may be: a time ratio or an iteration count, or a search run with a budget
# (restarts) chosen for the machine.
MACHINE_METRICS = ("improvement", "iterations")
_FINDINGS = re.compile(r"^docs/findings\.md#[a-z0-9_-]+$")
_QUOTED = re.compile(r"quoted|copy of|cited in", re.IGNORECASE)

# Two-sided 95 % Student t quantiles t(0.975, df) for df = 1..30; beyond 30 a
# Cornish-Fisher expansion around the normal quantile is accurate to < 1e-6.
_T975 = (12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252,
         2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688,
         2.131449546, 2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447, 2.079613845,
         2.073873068, 2.068657610, 2.063898562, 2.059538553, 2.055529439, 2.051830516, 2.048407142,
         2.045229642, 2.042272456)
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (two-sided 95 %)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = _Z975, float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def _text(x) -> str:
    """A cell as stripped text; None and NaN are empty."""
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x).strip()


def _is_subset(wanted: dict, have: dict) -> bool:
    return all(k in have and have[k] == v for k, v in wanted.items())


def _same_data(wanted: dict, have: dict) -> bool:
    """Generator parameters as a subset; the column selection (``columns=``/``drop=``) exactly:
    a row about all columns never matches a run on a subset of them."""
    return _is_subset(wanted, have) and all(wanted.get(s) == have.get(s) for s in ("columns", "drop"))


# ------------------------------------------------------------------ loading
def default_path() -> Path:
    return resources.registry_path("published.csv")


def schema_path() -> Path:
    return resources.registry_path("published.schema.json")


def _typed(rec: dict) -> dict:
    """A CSV row (all strings) with k/decimals as int and tolerance as float or None, when they parse."""
    out = dict(rec)
    for name in ("k", "decimals"):
        if re.fullmatch(r"-?\d+", rec[name].strip()):
            out[name] = int(rec[name])
    tol = rec["tolerance"].strip()
    if tol == "":
        out["tolerance"] = None
    elif _NUMBER.match(tol):
        out["tolerance"] = float(tol)
    return out


def exact_band(decimals: int, rounding: str) -> float:
    """Half a unit of the last printed digit (rounding sources), one unit (truncating sources)."""
    unit = 10.0 ** -int(decimals)
    return unit if rounding == "truncate" else unit / 2


def _problems(raw: pd.DataFrame) -> list[str]:
    import jsonschema

    if list(raw.columns) != COLUMNS:
        return [f"columns must be exactly {','.join(COLUMNS)}; found {','.join(map(str, raw.columns))}"]
    validator = jsonschema.Draft202012Validator(json.loads(schema_path().read_text()))
    problems = []
    seen: dict[tuple, int] = {}
    for i, rec in enumerate(raw.to_dict("records")):
        line = i + 2  # header is line 1
        row = _typed(rec)
        errs = sorted(validator.iter_errors(row), key=lambda e: list(e.path))
        problems += [f"line {line}: {'/'.join(map(str, e.path)) or 'row'}: {e.message}" for e in errs]
        if errs:
            continue
        printed = len(row["value"].split(".")[1]) if "." in row["value"] else 0
        if printed != row["decimals"]:
            problems.append(f"line {line}: decimals={row['decimals']} but value {row['value']} "
                            f"has {printed} printed decimals")
        for col in ("params", "dataset_params"):
            names = [item.split("=", 1)[0] for item in row[col].split(",")] if row[col] else []
            if names != sorted(names) or len(set(names)) != len(names):
                problems.append(f"line {line}: {col} {row[col]!r} must be sorted by name, each name once")
        if row["rule"] == "exact" and row["tolerance"] < exact_band(row["decimals"], row["rounding"]) * (1 - 1e-9):
            problems.append(f"line {line}: tolerance {row['tolerance']} is narrower than the printed precision")
        if row["rule"] == "relative" and not (row["tolerance"] is not None and 0 < row["tolerance"] < 1):
            problems.append(f"line {line}: a relative row needs a tolerance fraction in (0, 1), e.g. 0.01 for 1 %")
        problems += [f"line {line}: {msg}" for msg in class_rule(row)]
        key = tuple(str(row[c]) for c in KEY)
        if key in seen:
            problems.append(f"line {line}: duplicates line {seen[key]} ({', '.join(KEY)})")
        seen.setdefault(key, line)
    return problems


def class_rule(row: dict) -> list[str]:
    """What breaks the evidence rule of the row's registry ``cause_class`` (docs/published.md,
    "Cause classes"); the rules that need results are in :func:`class_problems`."""
    cls, note, evidence = _text(row.get("cause_class")), _text(row.get("note")), _text(row.get("evidence"))
    if not cls:
        return []
    if cls not in REGISTRY_CLASSES:
        return [f"cause_class {cls!r} is not one of {', '.join(REGISTRY_CLASSES)} (harness-better is decided "
                "from the numbers, never written in the registry)"]
    out = []
    if not note:
        out.append(f"cause_class {cls} needs a note saying what causes the miss (or, for open, what was tried)")
    if cls == "source-error" and not _FINDINGS.match(evidence):
        out.append("cause_class source-error needs evidence docs/findings.md#<anchor> (the section that "
                   "shows the contradiction in numbers)")
    if cls == "stochastic" and row.get("rule") != "draws":
        out.append("cause_class stochastic is for draws rows (one printed draw judged against the harness's "
                   "distribution); this row's rule is " + str(row.get("rule")))
    if cls == "machine" and row.get("metric") not in MACHINE_METRICS and "restarts" not in parse_params(
            _text(row.get("params"))):
        out.append(f"cause_class machine is for {', '.join(MACHINE_METRICS)} or a search budget (restarts=); "
                   f"this row is {row.get('metric')}")
    if cls == "quoted" and not _QUOTED.search(note):
        out.append("cause_class quoted needs a note naming where the number is quoted from "
                   "('quoted by ...', 'copy of ...', 'cited in ...')")
    return out


def load(path=None) -> pd.DataFrame:
    """The registry as a DataFrame (``k``/``decimals`` int, ``tolerance`` float with NaN for empty,
    everything else text; ``value`` keeps the printed digits). Raises RuntimeError if invalid."""
    path = Path(path) if path is not None else default_path()
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    problems = _problems(raw)
    if problems:
        shown = "\n  ".join(problems[:25])
        more = f"\n  … and {len(problems) - 25} more" if len(problems) > 25 else ""
        raise RuntimeError(f"invalid published-values registry {path}:\n  {shown}{more}")
    reg = raw.copy()
    reg["k"] = reg["k"].astype("int64")
    reg["decimals"] = reg["decimals"].astype("int64")
    reg["tolerance"] = pd.to_numeric(reg["tolerance"].replace("", np.nan)).astype("float64")
    return reg


# ------------------------------------------------------------------ comparing
def _quantize(x: float, decimals: int, rounding: str) -> Decimal:
    """``x`` rounded (half up) or truncated to ``decimals``, from its shortest round-trip repr."""
    mode = ROUND_DOWN if rounding == "truncate" else ROUND_HALF_UP
    return Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-int(decimals)), rounding=mode)


def _exact(row: dict, vals: np.ndarray) -> dict:
    value = float(vals[0]) if np.all(vals == vals[0]) else float(np.mean(vals))
    published = Decimal(str(row["value"]))
    delta = value - float(published)
    tol = row["tolerance"]
    if tol is None or (isinstance(tol, float) and math.isnan(tol)):
        tol = exact_band(row["decimals"], row["rounding"])
    if _quantize(value, row["decimals"], row["rounding"]) == published:
        verdict = "reproduced"
    elif abs(delta) <= float(tol) + 1e-12:
        verdict = "within tolerance"
    else:
        verdict = "not reproduced"
    return {"reproduced": value, "ci_low": np.nan, "ci_high": np.nan, "delta": delta, "verdict": verdict}


def _timed(row: dict, vals: np.ndarray) -> dict:
    """A time ratio: the value measured here is shown, but it depends on the machine and the moment, so
    it never reproduces the printed one; a match to the printed digits would be chance (class
    ``machine``, which the registry schema requires for these rows)."""
    value = float(np.mean(vals))
    return {"reproduced": value, "ci_low": np.nan, "ci_high": np.nan, "delta": value - float(row["value"]),
            "verdict": "not reproduced"}


def _relative(row: dict, vals: np.ndarray) -> dict:
    """Like ``exact`` (deterministic, reproduced at printed precision), but the band is relative:
    within tolerance when |delta| <= tolerance * |published|."""
    rec = _exact({**row, "tolerance": abs(float(Decimal(str(row["value"])))) * float(row["tolerance"])}, vals)
    return rec


def _draws(row: dict, vals: np.ndarray) -> dict:
    n = vals.size
    mean = float(vals[0]) if np.all(vals == vals[0]) else float(np.mean(vals))
    published = float(row["value"])
    if n < 2:
        return {"reproduced": mean, "ci_low": np.nan, "ci_high": np.nan, "delta": mean - published,
                "verdict": "not run", "cause": "1 draw: a draws row needs at least 2 for an interval"}
    s = float(np.std(vals, ddof=1))
    t = t975(n - 1)
    half_ci = t * s / math.sqrt(n)
    half_pi = t * s * math.sqrt(1 + 1 / n)
    eps = 1e-12 * max(1.0, abs(mean))
    if abs(published - mean) <= half_ci + eps:
        verdict = "reproduced"
    elif abs(published - mean) <= half_pi + eps:
        verdict = "within tolerance"
    else:
        verdict = "not reproduced"
    return {"reproduced": mean, "ci_low": mean - half_ci, "ci_high": mean + half_ci,
            "delta": mean - published, "verdict": verdict}


def same_scale(wanted: dict, have: dict) -> bool:
    """A run on raw values (``scale=raw``) matches only rows that name ``scale=raw``: a row that does
    not name ``scale`` means the standardized run (docs/published.md, "Matching results")."""
    return str(wanted.get("scale", "standardized")) == str(have.get("scale", "standardized"))


def _metric_values(res: pd.DataFrame, metric: str, hits: list[int]) -> np.ndarray:
    """The metric of the matched result rows: a results column, else a numeric field of the
    algorithm's ``info`` (JSON text, e.g. EMAD's ``il_max``, kWD's ``improvement``)."""
    if not hits:
        return np.empty(0)
    if metric in res.columns:
        return pd.to_numeric(res[metric].iloc[hits], errors="coerce").dropna().to_numpy(dtype=float)
    if "info" not in res.columns:
        return np.empty(0)
    vals = []
    for text in res["info"].iloc[hits]:
        if isinstance(text, str) and text:
            value = json.loads(text).get(metric)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                vals.append(float(value))
    return np.asarray(vals, dtype=float)


def compare(registry: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Registry columns plus reproduced, n_draws, ci_low, ci_high, delta, verdict, cause, class (one row
    per registry row, same order). See docs/published.md for the matching, verdict and class rules."""
    missing = [c for c in ("algorithm", "dataset", "k") if c not in results.columns]
    if missing:
        raise ValueError(f"results table lacks column(s) {', '.join(missing)}")
    res = results.copy()
    if "seed" in res.columns:  # the same run listed twice counts once
        ident = [c for c in ("algorithm", "params", "dataset", "dataset_params", "k", "seed") if c in res.columns]
        res = res.drop_duplicates(subset=ident, keep="last")
    groups: dict[tuple, list[tuple[dict, dict, int]]] = {}
    for idx, (algo, ds, k, params, dparams) in enumerate(zip(
            res["algorithm"].astype(str), res["dataset"].astype(str), res["k"].astype("int64"),
            res["params"] if "params" in res else [""] * len(res),
            res["dataset_params"] if "dataset_params" in res else [""] * len(res))):
        groups.setdefault((algo, ds, int(k)), []).append((parse_params(params), parse_params(dparams), idx))

    out = []
    for row in registry.to_dict("records"):
        rec = {"reproduced": np.nan, "n_draws": 0, "ci_low": np.nan, "ci_high": np.nan, "best": np.nan,
               "delta": np.nan, "verdict": "not run", "cause": "", "class": ""}
        if not _text(row["algorithm"]):
            rec["verdict"] = "not implemented"
            out.append({**row, **rec})
            continue
        want_p, want_d = parse_params(row["params"]), parse_params(row["dataset_params"])
        hits = [idx for p, d, idx in groups.get((row["algorithm"], row["dataset"], int(row["k"])), [])
                if _is_subset(want_p, p) and _same_data(want_d, d) and same_scale(want_p, p)]
        vals = _metric_values(res, row["metric"], hits)
        rec["n_draws"] = int(vals.size)
        if vals.size:
            rule = {"exact": _exact, "relative": _relative, "timed": _timed}.get(row["rule"], _draws)
            rec.update(rule(row, vals))
            rec["best"] = float(np.min(vals))
        if rec["verdict"] == "not reproduced":
            rec["cause"] = _text(row.get("note"))
            rec["class"] = decide_class(row, rec["reproduced"], rec["verdict"])
        out.append({**row, **rec})
    frame = pd.DataFrame(out, columns=list(registry.columns) + ADDED)
    frame["n_draws"] = frame["n_draws"].astype("int64")
    return frame


# ------------------------------------------------------------------ cause classes
def harness_better(row: dict, reproduced: float, verdict: str) -> bool:
    """True when a number that is not reproduced is an objective the method minimizes (``OBJECTIVES``)
    on fixed data (``FIXED_DATA``) and the harness's value is below the printed one: the verdict
    already says the gap exceeds the tolerance (or the prediction interval of the draws)."""
    return (verdict == "not reproduced" and row["metric"] in OBJECTIVES and row["dataset"] in FIXED_DATA
            and reproduced is not None and math.isfinite(float(reproduced))
            and float(reproduced) < float(Decimal(str(row["value"]))))


def decide_class(row: dict, reproduced: float, verdict: str) -> str:
    """The cause class of a number that is not reproduced: a proven ``source-error`` stays one (being
    below a wrong number says nothing about the harness); otherwise ``harness-better`` where the
    numbers say so; otherwise the registry's class ("" when it has none)."""
    registry = _text(row.get("cause_class"))
    if verdict != "not reproduced":
        return ""
    if registry != "source-error" and harness_better(row, reproduced, verdict):
        return "harness-better"
    return registry


def class_counts(compared: pd.DataFrame) -> dict[str, int]:
    """Numbers not reproduced per cause class, in ``CLASSES`` order; a missing class counts as open
    (nothing explains it) and is also what :func:`class_problems` reports."""
    bad = compared[compared["verdict"] == "not reproduced"]
    cls = bad["class"].replace("", "open") if len(bad) else bad.get("class", pd.Series(dtype=str))
    return {c: int((cls == c).sum()) for c in CLASSES}


def findings_anchors(text: str) -> set[str]:
    """The anchors of a markdown page's headings, as GitHub renders them (lower case, punctuation
    dropped, spaces to hyphens)."""
    out = set()
    for line in text.splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def class_problems(compared: pd.DataFrame, anchors: set[str] | None = None) -> list[str]:
    """Every non-reproduction without a class or with a class whose evidence rule it breaks: the
    registry rules (:func:`class_rule`), ``harness-better`` exactly where :func:`harness_better`
    holds, and (given the anchors of docs/findings.md) a ``source-error`` evidence that exists."""
    out = []
    for row in compared[compared["verdict"] == "not reproduced"].to_dict("records"):
        where = f"{row['source']} {row['table']} {row['row']} / {row['column']} (k = {row['k']}, {row['metric']})"
        cls = _text(row.get("class"))
        better = (harness_better(row, row["reproduced"], row["verdict"])
                  and _text(row.get("cause_class")) != "source-error")
        if not cls:
            out.append(f"{where}: no cause class")
            continue
        if better != (cls == "harness-better"):
            out.append(f"{where}: class {cls} but the numbers say {'harness-better' if better else 'not harness-better'} "
                       f"(published {row['value']}, reproduced {row['reproduced']})")
        if cls != "harness-better":
            if cls != _text(row.get("cause_class")):
                out.append(f"{where}: class {cls} is not the registry's {_text(row.get('cause_class'))!r}")
            out += [f"{where}: {msg}" for msg in class_rule(row)]
        if anchors is not None and cls == "source-error":
            anchor = _text(row.get("evidence")).partition("#")[2]
            if anchor not in anchors:
                out.append(f"{where}: evidence {row.get('evidence')!r} is not a heading of docs/findings.md")
    return out
