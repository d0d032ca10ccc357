"""Scaling of MDAV and CBFS with n: the tree kernel against the O(n²) pass kernel (issue 18).

Not a test (no timed assertions): a script. For each method, dimension d and size n it writes a
standard-normal Parquet file (seeded), runs ``mabench run <method> <file> -k 3 --param index=<path>``
in a fresh process, and reads ``seconds`` (the algorithm's own time, compile excluded) and
``max_rss_mb`` (the process's peak memory) from the JSON record. Each (method, d, n, path) is run
``--repeats`` times (fewer above ``--repeat-below``) and the median is kept; the pass kernel is run
only up to ``--scan-max`` records. Writes

* docs/scaling/runs.csv     every run (method, index, d, n, k, repeat, seconds, max_rss_mb);
* docs/scaling/medians.csv  medians per (method, index, d, n), the scan/tree ratio from the same run;
* docs/img/scaling.png      log-log time against n with fitted exponents (slope of log t on log n
                            over n >= 10^4), plus sdcMicro's points from docs/sdcmicro/mdav-times.csv
                            (columns n,d,k,seconds) when that file exists.

    .venv/bin/python tests/benchmarks/scaling.py                      # the table in docs/scaling.md
    .venv/bin/python tests/benchmarks/scaling.py --methods mdav --dims 10 --sizes 10000,100000
    .venv/bin/python tests/benchmarks/scaling.py --dims 30 --sizes 10000,30000 --tree-max-d 30 --append
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MABENCH = str(Path(sys.executable).with_name("mabench"))


def write_data(folder: Path, n: int, d: int) -> Path:
    import pandas as pd

    path = folder / f"normal_{n}x{d}.parquet"
    if not path.exists():
        rng = np.random.default_rng(20261123 + d)
        frame = pd.DataFrame(rng.standard_normal((n, d)), columns=[f"x{j + 1}" for j in range(d)])
        frame.to_parquet(path)
    return path


def run_once(method: str, data: Path, k: int, index: str, timeout: float) -> dict:
    cmd = [MABENCH, "run", method, str(data), "-k", str(k), "--param", f"index={index}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    return {"seconds": float(rec["seconds"]), "max_rss_mb": float(rec["max_rss_mb"]), "il": rec.get("il")}


def fit_exponent(ns, ts) -> float:
    pts = [(np.log(n), np.log(t)) for n, t in zip(ns, ts) if n >= 10_000 and t > 0]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def plot(medians: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = sorted({m["method"] for m in medians})
    fig, axes = plt.subplots(1, len(methods), figsize=(6 * len(methods), 4.5), squeeze=False)
    sdc = ROOT / "docs" / "sdcmicro" / "mdav-times.csv"
    for ax, method in zip(axes[0], methods):
        for key in sorted({(m["index"], m["d"]) for m in medians if m["method"] == method}):
            rows = sorted((m for m in medians if m["method"] == method and (m["index"], m["d"]) == key),
                          key=lambda m: m["n"])
            ns = [r["n"] for r in rows]
            ts = [r["seconds"] for r in rows]
            slope = fit_exponent(ns, ts)
            ax.loglog(ns, ts, "o-" if key[0] == "tree" else "s--",
                      label=f"{key[0]}, d={key[1]} (slope {slope:.2f})")
        if method == "mdav" and sdc.exists():
            with sdc.open() as fh:
                pts = [r for r in csv.DictReader(fh)]
            for d in sorted({int(r["d"]) for r in pts}):
                sel = sorted((int(r["n"]), float(r["seconds"])) for r in pts if int(r["d"]) == d)
                ns, ts = zip(*sel)
                ax.loglog(ns, ts, "^:", label=f"sdcMicro, d={d} (slope {fit_exponent(ns, ts):.2f})")
        ax.set_title(f"{method}, k = 3, standard normal data")
        ax.set_xlabel("records n")
        ax.set_ylabel("algorithm seconds (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="mdav,cbfs")
    ap.add_argument("--dims", default="3,10,30")
    ap.add_argument("--sizes", default="10000,30000,100000,300000,1000000")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--scan-max", type=int, default=100_000, help="largest n for the O(n^2) pass kernel")
    ap.add_argument("--tree-max-d", type=int, default=10, help="largest d for the tree kernel")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repeat-below", type=int, default=300_000, help="above this n, one run only")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--out", default=str(ROOT / "docs" / "scaling"))
    ap.add_argument("--append", action="store_true", help="add to the runs already in --out/runs.csv")
    ap.add_argument("--table", action="store_true",
                    help="only print --out/medians.csv as a Markdown table (and redraw the figure)")
    ap.add_argument("--figure", default=str(ROOT / "docs" / "img" / "scaling.png"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.table:
        with (out / "medians.csv").open() as fh:
            medians = [{**r, "d": int(r["d"]), "n": int(r["n"]), "seconds": float(r["seconds"]),
                        "max_rss_mb": float(r["max_rss_mb"])} for r in csv.DictReader(fh)]
        plot(medians, Path(args.figure))
        print("| method | d | n | path | runs | median s | peak MB | scan ÷ this |")
        print("|---|---:|---:|---|---:|---:|---:|---:|")
        for m in sorted(medians, key=lambda m: (m["method"], m["d"], m["n"], m["index"] != "tree")):
            print(f"| {m['method']} | {m['d']} | {m['n']:,} | {m['index']} | {m['runs']} | {m['seconds']:.3g} | "
                  f"{m['max_rss_mb']:.0f} | {m['scan_over_this']} |")
        return 0
    runs = []
    if args.append and (out / "runs.csv").exists():
        with (out / "runs.csv").open() as fh:
            for r in csv.DictReader(fh):
                runs.append({**r, "d": int(r["d"]), "n": int(r["n"]), "k": int(r["k"]), "repeat": int(r["repeat"]),
                             "seconds": float(r["seconds"]), "max_rss_mb": float(r["max_rss_mb"])})
    with tempfile.TemporaryDirectory() as tmp:
        for d in [int(x) for x in args.dims.split(",")]:
            for n in [int(x) for x in args.sizes.split(",")]:
                data = write_data(Path(tmp), n, d)
                for method in args.methods.split(","):
                    for index in ("tree", "scan"):
                        if index == "scan" and n > args.scan_max:
                            continue
                        if index == "tree" and d > args.tree_max_d:
                            continue
                        reps = args.repeats if n <= args.repeat_below else 1
                        for rep in range(reps):
                            try:
                                r = run_once(method, data, args.k, index, args.timeout)
                            except subprocess.TimeoutExpired:
                                print(f"{method} {index} d={d} n={n}: timed out", flush=True)
                                break
                            runs.append({"method": method, "index": index, "d": d, "n": n, "k": args.k,
                                         "repeat": rep, **r})
                            print(f"{method:5s} {index:4s} d={d:2d} n={n:8d} {r['seconds']:9.3f} s "
                                  f"{r['max_rss_mb']:7.0f} MB", flush=True)
                    _write(out, runs)
    medians = _write(out, runs)
    plot(medians, Path(args.figure))
    return 0


def _write(out: Path, runs: list[dict]) -> list[dict]:
    with (out / "runs.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["method", "index", "d", "n", "k", "repeat", "seconds", "max_rss_mb", "il"])
        w.writeheader()
        w.writerows(runs)
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["method"], r["index"], r["d"], r["n"]), []).append(r)
    medians = []
    for (method, index, d, n), rs in sorted(groups.items()):
        medians.append({"method": method, "index": index, "d": d, "n": n, "runs": len(rs),
                        "seconds": statistics.median(r["seconds"] for r in rs),
                        "max_rss_mb": max(r["max_rss_mb"] for r in rs)})
    by_key = {(m["method"], m["index"], m["d"], m["n"]): m for m in medians}
    for m in medians:
        scan = by_key.get((m["method"], "scan", m["d"], m["n"]))
        m["scan_over_this"] = round(scan["seconds"] / m["seconds"], 2) if scan and m["seconds"] > 0 else ""
    with (out / "medians.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["method", "index", "d", "n", "runs", "seconds", "max_rss_mb", "scan_over_this"])
        w.writeheader()
        for m in medians:
            w.writerow({**m, "seconds": round(m["seconds"], 4)})
    return medians


if __name__ == "__main__":
    sys.exit(main())
