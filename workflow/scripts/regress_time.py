"""Time the regression cells of two commits in one session: ``make regress-time BASE=<commit>``.

``make regress`` compares every number with the stored baseline, but that baseline's times were
measured on another day, and this shared machine's speed varies from day to day by more than the
time gate's 25 % (docs/regression.md). A time verdict needs both commits timed side by side:

1. a clone of this repository at BASE in DIR/base with its own environment (``make env``), so that
   the base runs its own package and plugins;
2. ROUNDS alternations of ``mabench regress`` (the base, then this checkout) on the same cells;
3. each side's median seconds per cell (``mabench.report.compare.median_of_runs``), then
   ``mabench compare`` of the two: the time gate, and the IL gate between the two commits
   (CHANGED lists algorithms changed on purpose).

Usage: python workflow/scripts/regress_time.py BASE [--algorithms a,b] [--rounds 3] [--changed a,b]
       [--dir results/regress/time]
Exit status: that of ``mabench compare`` (1 = a gate failed), 2 = bad input.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fail(message: str) -> None:
    sys.stderr.write(f"regress-time: {message}\n")
    sys.exit(2)


def base_checkout(commit: str, where: Path) -> Path:
    """A clone of this repository at ``commit`` with its own environment (reused when present)."""
    known = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    if known.returncode:
        fail(f"{commit!r} is not a commit of this repository; give BASE=<commit> (e.g. a hash from git log)")
    commit = known.stdout.strip()
    if not (where / ".git").is_dir():
        where.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(where)], check=True)
    subprocess.run(["git", "-C", str(where), "fetch", "--quiet", str(ROOT), commit], check=True)
    subprocess.run(["git", "-C", str(where), "checkout", "--quiet", "--detach", commit], check=True)
    log = where.parent / "base-env.log"
    with open(log, "w") as sink:
        if subprocess.run(["make", "-C", str(where), "env"], stdout=sink, stderr=subprocess.STDOUT).returncode:
            fail(f"the environment of {commit} could not be made; see {log}")
    return where


def regress(checkout: Path, algorithms: str | None, out: Path) -> None:
    cmd = [str(checkout / ".venv" / "bin" / "mabench"), "regress", "--out", str(out)]
    if algorithms:
        cmd += ["--algorithms", algorithms]
    log = out.with_suffix(".log")
    with open(log, "w") as sink:
        if subprocess.run(cmd, cwd=checkout, stdout=sink, stderr=subprocess.STDOUT).returncode:
            fail(f"`mabench regress` failed in {checkout}; see {log}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the commit to time against")
    ap.add_argument("--algorithms", help="only these algorithm ids (comma-separated)")
    ap.add_argument("--rounds", type=int, default=3, help="alternations of the two checkouts (median taken)")
    ap.add_argument("--changed", help="algorithms changed on purpose (their IL may move)")
    ap.add_argument("--dir", default="results/regress/time", help="where the clone, runs and report go")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        fail(f"--rounds must be at least 1, not {args.rounds}")
    out = (ROOT / args.dir).resolve()
    base = base_checkout(args.base, out / "base")
    sys.path.insert(0, str(ROOT))
    import pandas as pd

    from mabench.report.compare import median_of_runs

    runs = {"base": [], "current": []}
    for i in range(1, args.rounds + 1):
        for side, checkout in (("base", base), ("current", ROOT)):
            path = out / f"{side}-{i}.csv"
            regress(checkout, args.algorithms, path)
            runs[side].append(pd.read_csv(path))
            print(f"regress-time: round {i} of {args.rounds}, {side} done", flush=True)
    for side, frames in runs.items():
        median_of_runs(frames).to_csv(out / f"{side}.csv", index=False)
    cmd = [str(ROOT / ".venv" / "bin" / "mabench"), "compare", str(out / "base.csv"), str(out / "current.csv"),
           "--published", "none", "--time-gate", "--out", str(out / "report.md")]  # timed side by side here
    if args.changed:
        cmd += ["--changed", args.changed]
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
