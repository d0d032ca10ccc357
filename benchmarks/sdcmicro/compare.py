"""mabench vs sdcMicro on the same files: masked values, IL, DLD and time per method.

Not a test dependency (needs R with Rcpp, MASS, robustbase, cluster and an sdcMicro checkout);
docs/sdcmicro.md says how it was run. For every data set, method and k it

1. writes the data set's original values to a CSV (17 significant digits),
2. runs sdcMicro's ``microaggregation(x, method, aggr = k)`` through compare.R,
3. runs the mabench plugin of the same name on the same values (``mabench.bench.runner``),
4. compares the masked values record by record (relative tolerance 1e-9) and the partitions, and
   scores BOTH masked files with mabench's metrics (IL on z-scores, DLD), the sdcMicro file through
   its per-variable groups (the records sharing a masked value in a variable), which is exact for
   the mean (docs/metrics.md#per-variable-partitions).

    python benchmarks/sdcmicro/compare.py --sdcmicro DIR [--out docs/sdcmicro] [--fixtures]
    python benchmarks/sdcmicro/compare.py --sdcmicro DIR --mdav-times 10000,20000,50000,100000
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mabench import data, discovery, partition
from mabench.bench.runner import call_run
from mabench.data.seeds import rng_for
from mabench.data.standardize import zscore
from mabench.metrics import evaluate, per_variable_context

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
METHODS = ["mdav", "rmd", "pca", "mcdpca", "pppca", "clustpca", "clustpppca", "clustmcdpca", "influence",
           "onedims", "single", "simple"]
EXACT = {"mdav", "onedims", "single", "simple", "pca", "pppca"}  # no randomness on either side
CLUSTERED = {"clustpca", "clustpppca", "clustmcdpca", "influence"}  # also run with clustermethod=pam (deterministic)
REAL = ["tarragona", "census", "eia"]
GENERATED = ["uniform_si[n=1500]", "icsm_synthetic[n=2000]"]
TOL = 1e-9  # relative: |a - b| <= TOL * max(1, |b|)
METRICS = ["il", "dld"]


def write_values(path: Path, values: np.ndarray, columns: list[str]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"v{j + 1}" for j in range(len(columns))])
        for row in values:
            w.writerow([repr(float(v)) for v in row])


def run_r(sdcmicro: Path, jobs: list[dict], work: Path, cpu: dict | None = None) -> dict[str, float]:
    """sdcMicro on every job: {output: elapsed seconds, or "ERROR message"}; ``cpu`` (if given) gets
    {output: CPU seconds}."""
    jobs_csv = work / "jobs.csv"
    with jobs_csv.open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["input", "method", "k", "seed", "output", "clustermethod"])
        w.writeheader()
        w.writerows([{"clustermethod": "", **j} for j in jobs])
    out = subprocess.run(["Rscript", str(HERE / "compare.R"), str(sdcmicro), str(jobs_csv)], capture_output=True,
                         text=True, cwd=work)
    if out.returncode != 0:
        sys.exit(f"compare.R failed:\n{out.stderr[-3000:]}")
    times = {}
    for line in out.stdout.splitlines():
        if "," in line:
            path, secs = line.split(",", 1)
            if secs.startswith("ERROR"):
                times[path] = secs
                continue
            elapsed, used = secs.split(",")
            times[path] = float(elapsed)
            if cpu is not None:
                cpu[path] = float(used)
    return times


def read_masked(path: Path) -> np.ndarray:
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def groups_of_values(masked: np.ndarray) -> np.ndarray:
    """Per variable, the records that share a masked value (exact for mean aggregation: groups with
    equal means merge without changing any value or any SSE)."""
    out = np.empty(masked.shape, dtype=np.int64)
    for j in range(masked.shape[1]):
        out[:, j] = partition.canonical_labels(np.unique(masked[:, j], return_inverse=True)[1].reshape(-1))
    return out


def up_to_duplicates(original: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """The masked rows with each set of identical ORIGINAL records' masked rows sorted among
    themselves: identical records are interchangeable, so which of them lands in which group is a
    tie rule, not a different masking."""
    out = masked.copy()
    _, inverse, counts = np.unique(original, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    for g in np.flatnonzero(counts > 1):
        rows = np.flatnonzero(inverse == g)
        block = masked[rows]
        out[rows] = block[np.lexsort(block.T[::-1])]
    return out


def row_groups(masked: np.ndarray) -> np.ndarray:
    return partition.canonical_labels(np.unique(masked, axis=0, return_inverse=True)[1].reshape(-1))


def mabench_run(method: str, ds, z: np.ndarray, k: int, seed: int = 0, given: dict | None = None):
    algo = discovery.algorithm(method)
    params = algo.resolve(given or {})
    raw = np.ascontiguousarray(ds.values, dtype=np.float64)
    tiny = np.ascontiguousarray(np.random.default_rng(0).standard_normal((3 * k + 20, z.shape[1])))
    call_run(algo, tiny, k, params, np.random.default_rng(0), raw=tiny)  # compile first
    start = time.perf_counter()
    out = call_run(algo, z, k, params, rng_for(seed, f"algorithm:{algo.name}"), raw=raw)
    seconds = time.perf_counter() - start
    labels = np.asarray(out[0] if isinstance(out, tuple) else out, dtype=np.int64)
    if labels.ndim == 1:
        labels = np.repeat(labels[:, None], z.shape[1], axis=1)
    return labels, seconds


def scores(ds, z, column_labels) -> tuple[dict, np.ndarray]:
    ctx = per_variable_context(ds.values, z, column_labels, ds.columns, ds.name)
    return evaluate(ctx, METRICS), ctx.masked


def compare(sdcmicro: Path, specs: list[str], ks: list[int], methods: list[str], out: Path, work: Path,
            seed: int = 1) -> list[dict]:
    loaded = {}
    jobs = []
    for spec in specs:
        ds = data.load(spec, 0)
        name = spec.split("[")[0]
        inp = work / f"{name}.csv"
        write_values(inp, ds.values, ds.columns)
        loaded[spec] = (ds, inp)
        for method in methods:
            for k in ks:
                jobs.append({"input": str(inp), "method": method, "k": k, "seed": seed,
                             "output": str(work / f"{name}__{method}__k{k}.csv")})
                if method in CLUSTERED:
                    jobs.append({"input": str(inp), "method": method, "k": k, "seed": seed, "clustermethod": "pam",
                                 "output": str(work / f"{name}__{method}-pam__k{k}.csv")})
    print(f"sdcMicro: {len(jobs)} runs", flush=True)
    r_times = run_r(sdcmicro, jobs, work)
    rows = []
    for job in jobs:
        spec = next(s for s, (_, inp) in loaded.items() if str(inp) == job["input"])
        ds, _ = loaded[spec]
        z = zscore(ds.values, ds.columns)
        k = int(job["k"])
        if not Path(job["output"]).exists():
            rows.append({"dataset": ds.spec, "method": job["method"] + ("-pam" if job.get("clustermethod") else ""),
                         "k": k, "n": z.shape[0], "d": z.shape[1], "sdcmicro_error": r_times.get(job["output"])})
            print(json.dumps(rows[-1]), flush=True)
            continue
        theirs = read_masked(Path(job["output"]))
        given = {"clustermethod": job["clustermethod"]} if job.get("clustermethod") else {}
        labels, seconds = mabench_run(job["method"], ds, z, k, given=given)
        ours_scores, ours = scores(ds, z, labels)
        their_scores, _ = scores(ds, z, groups_of_values(theirs))
        diff = np.abs(ours - theirs)
        ok = diff <= TOL * np.maximum(1.0, np.abs(theirs))
        per_variable = job["method"] == "onedims"
        same = (np.array_equal(groups_of_values(ours), groups_of_values(theirs)) if per_variable
                else np.array_equal(partition.canonical_labels(labels[:, 0]), row_groups(theirs)))
        a, b = up_to_duplicates(ds.values, ours), up_to_duplicates(ds.values, theirs)
        ok_dup = np.abs(a - b) <= TOL * np.maximum(1.0, np.abs(b))
        rows.append({
            "dataset": ds.spec, "method": job["method"] + ("-pam" if given else ""), "k": k, "n": z.shape[0],
            "d": z.shape[1], "deterministic": job["method"] in EXACT or (bool(given) and job["method"] != "clustmcdpca"),
            "per_variable": per_variable,
            "records_equal": float(np.mean(ok.all(axis=1))),
            "records_equal_up_to_duplicates": float(np.mean(ok_dup.all(axis=1))), "same_partition": bool(same),
            "max_rel_diff": float(np.max(diff / np.maximum(1.0, np.abs(theirs)))),
            "il_mabench": ours_scores["il"], "il_sdcmicro": their_scores["il"],
            "dld_mabench": ours_scores["dld"], "dld_sdcmicro": their_scores["dld"],
            "seconds_mabench": seconds, "seconds_sdcmicro": r_times.get(job["output"], float("nan")),
        })
        print(json.dumps(rows[-1]), flush=True)
    return rows


def write_rows(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        fields = list(dict.fromkeys(key for r in rows for key in r))
        w = csv.DictWriter(fh, fields, restval="")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in r.items()})


def fixtures(sdcmicro: Path, work: Path) -> None:
    """tests/fixtures/sdcmicro/: two small inputs and sdcMicro's masked values on them."""
    dest = ROOT / "tests" / "fixtures" / "sdcmicro"
    dest.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261123)
    sets = {
        # integers 0..9: many equal values, so the tie rules of every ordering show
        "ties": rng.integers(0, 10, size=(61, 4)).astype(float),
        # skewed, with a few far outliers: where the robust estimators matter
        "skewed": np.round(np.exp(rng.standard_normal((83, 5)) * [0.5, 1.0, 0.8, 1.2, 0.3]) * [10, 100, 5, 1000, 50], 4),
    }
    sets["skewed"][:4] *= 25.0
    jobs = []
    for name, values in sets.items():
        write_values(dest / f"{name}.csv", values, [f"v{j + 1}" for j in range(values.shape[1])])
        for method in METHODS:
            for k in (3, 5):
                jobs.append({"input": str(dest / f"{name}.csv"), "method": method, "k": k, "seed": 1,
                             "output": str(work / f"fx__{name}__{method}__k{k}.csv")})
                if method in CLUSTERED:
                    jobs.append({"input": str(dest / f"{name}.csv"), "method": method, "k": k, "seed": 1,
                                 "clustermethod": "pam", "output": str(work / f"fx__{name}__{method}-pam__k{k}.csv")})
    times = run_r(sdcmicro, jobs, work)
    rows = []
    errors = []
    for job in jobs:
        name = Path(job["input"]).stem
        if not Path(job["output"]).exists():
            errors.append({"set": name, "method": job["method"] + ("-pam" if job.get("clustermethod") else ""),
                           "k": job["k"], "sdcmicro": times.get(job["output"], "no output")})
            continue
        theirs = read_masked(Path(job["output"]))
        method = job["method"] + ("-pam" if job.get("clustermethod") else "")
        for i, row in enumerate(theirs):
            rows.append([name, method, job["k"], i] + [repr(float(v)) for v in row])
    import gzip

    with gzip.open(dest / "masked.csv.gz", "wt", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["set", "method", "k", "record"] + [f"v{j + 1}" for j in range(5)])
        for r in rows:
            w.writerow(r + [""] * (9 - len(r)))
    provenance = {
        "sdcmicro": "sdcTools/sdcMicro 5.8.1, commit cf3251017482bb215f0a9abf4a930f502399fb72 (2026-04-22)",
        "r": " ".join(subprocess.run(["Rscript", "--version"], capture_output=True, text=True).stdout.split()[:5]) or subprocess.run(["Rscript", "--version"], capture_output=True, text=True).stderr.strip(),
        "call": "microaggregation(x, method = METHOD, aggr = K, nc = 8, clustermethod = 'clara' or 'pam' for "
                "METHOD-pam), after set.seed(1); x = read.csv(SET.csv)",
        "how": "python benchmarks/sdcmicro/compare.py --sdcmicro DIR --fixtures (sources R/microaggregation.R, "
               "R/mdav.R, compiles src/Mdav.cpp)",
        "sdcmicro_errors": errors,
    }
    (dest / "provenance.json").write_text(json.dumps(provenance, indent=1) + "\n")


def mdav_times(sdcmicro: Path, sizes: list[int], out: Path, work: Path) -> None:
    """sdcMicro's MDAV and mabench's ``mdav`` side by side at n records of 10 standard-normal
    columns, k = 3: elapsed and CPU seconds of each (mabench's after compilation) and both ILs."""
    import mabench

    mabench.microaggregate(np.random.default_rng(0).standard_normal((50, 10)), k=3, progress=False)  # compile
    rows = []
    for n in sizes:
        values = np.random.default_rng(n).standard_normal((n, 10))
        inp = work / f"normal{n}.csv"
        write_values(inp, values, [f"v{j + 1}" for j in range(10)])
        outp = work / f"normal{n}__mdav.csv"
        cpu: dict = {}
        secs = run_r(sdcmicro, [{"input": str(inp), "method": "mdav", "k": 3, "seed": 1, "output": str(outp)}], work,
                     cpu)
        theirs = read_masked(outp)
        z = zscore(values)
        mz = (theirs - values.mean(axis=0)) / values.std(axis=0)
        il = 100.0 * float(np.sum((z - mz) ** 2) / np.sum(z ** 2))
        ours = mabench.microaggregate(values, k=3, progress=False)
        rows.append({"n": n, "d": 10, "k": 3, "seconds": secs[str(outp)], "cpu_seconds": cpu[str(outp)], "il": il,
                     "seconds_mabench": ours.seconds, "cpu_seconds_mabench": ours.record["cpu_seconds"],
                     "threads_mabench": ours.record["threads"], "il_mabench": ours.metrics(["il"])["il"]})
        print(rows[-1], flush=True)
        write_rows(out / "mdav-times.csv", rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sdcmicro", type=Path, required=True, help="an sdcMicro checkout (R/ and src/)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "sdcmicro")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--fixtures", action="store_true", help="(re)write tests/fixtures/sdcmicro/")
    ap.add_argument("--mdav-times", default="", help="comma-separated n for sdcMicro's MDAV timing")
    ap.add_argument("--sets", default=";".join(REAL + GENERATED), help="data sets, separated by ;")
    ap.add_argument("--ks", default="3,4,5,10")
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mabench-sdcmicro-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.fixtures:
        fixtures(args.sdcmicro, work)
        return
    if args.mdav_times:
        mdav_times(args.sdcmicro, [int(s) for s in args.mdav_times.split(",")], args.out, work)
        return
    rows = compare(args.sdcmicro, [s for s in args.sets.split(";") if s], [int(k) for k in args.ks.split(",")],
                   args.methods.split(","), args.out, work)
    write_rows(args.out / "agreement.csv", rows)
    if args.out.resolve() == (ROOT / "docs" / "sdcmicro").resolve():  # the report page's bundled copy
        write_rows(ROOT / "registry" / "sdcmicro_agreement.csv", rows)


if __name__ == "__main__":
    main()
