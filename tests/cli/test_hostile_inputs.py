"""Hostile inputs through the CLI (issue 7): hypothesis-generated CSV and Parquet files and partition files.

Random headers (non-ASCII, empty, duplicate, numeric-looking, with separators, quotes and line
breaks), mixed column types (text, true/false, missing, infinities, integers beyond 64 bits),
extreme magnitudes (±1e308, subnormals), random separators, quoting, line ends and encodings (UTF-8
with and without byte-order mark, Latin-1, UTF-16), gzip, pandas index columns, n and d from 1 to
large, k from −2 to n+2, and random partition files for `evaluate`.

Every case must end either in a valid result (status 0, one line of strict JSON with 0 <= IL <= 100,
both output files complete, nothing on stderr, no warning) or in status 2 with exactly one line on
stderr, nothing on stdout and no file left behind. Files a user would reasonably expect to work
(clean numeric data, any header text, BOM, gzip) must work. Calls run in process, so any exception
other than a user error fails the test with its traceback.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io as _io
import json
import math
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mabench import cli
from support import safety_net

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALGORITHMS = ["mdav", "md", "cbfs", "mdav1"]

# Header text: anything printable, separators, quotes, line breaks, non-ASCII, blanks.
NAME_CHARS = st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]) | st.sampled_from(
    list(",;|\t\"' \n\r") + ["é", "Ω", "名", "\u00a0", "\ufeff", "😀"])
NAMES = st.text(NAME_CHARS, max_size=8)
CLEAN_NAMES = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Zl", "Zp"]),
                      min_size=1, max_size=10).filter(lambda s: s.strip() and s.strip() == s)

SIZES = st.one_of(st.integers(1, 12), st.sampled_from([30, 200, 2500]))
WIDTHS = st.one_of(st.integers(1, 5), st.sampled_from([12, 60]))
KINDS = ["normal", "int", "huge", "tiny", "constant", "text", "bool", "nan", "inf", "bigint", "mixed", "blank"]


def _column(rng, kind: str, n: int) -> list[str]:
    """One column as the text that goes into the file."""
    x = rng.normal(size=n)
    if kind == "normal":
        return [repr(float(v)) for v in x * 10.0 ** int(rng.integers(-3, 6))]
    if kind == "int":
        return [str(int(v)) for v in rng.integers(-5, 6, n)]
    if kind == "huge":
        return [repr(float(v)) for v in np.sign(x) * 1e308 * rng.uniform(0.5, 1.0, n)]
    if kind == "tiny":
        return [repr(float(v)) for v in x * 1e-310]
    if kind == "constant":
        return ["7"] * n
    if kind == "text":
        return [str(rng.choice(["x", "a b", "é", "1,5", "--"])) for _ in range(n)]
    if kind == "bool":
        return [str(bool(v > 0)) for v in x]
    if kind == "bigint":
        return [str(int(v * 1e5) * 10**20) for v in x]
    col = [repr(float(v)) for v in x]
    pos = int(rng.integers(0, n))
    col[pos] = {"nan": "NaN", "inf": "-inf", "mixed": "abc", "blank": ""}[kind]
    return col


@st.composite
def tables(draw, clean: bool = False):
    n, d = draw(SIZES), draw(WIDTHS)
    if clean:
        n = max(n, 2)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if clean:
        kinds = [draw(st.sampled_from(["normal", "int", "huge", "bigint"])) for _ in range(min(d, 5))]
        names = draw(st.lists(CLEAN_NAMES.filter(lambda s: not _numeric(s)), min_size=min(d, 5), max_size=min(d, 5),
                              unique=True))
    else:
        kinds = [draw(st.sampled_from(KINDS + ["normal"] * 4)) for _ in range(min(d, 5))]
        names = draw(st.lists(NAMES, min_size=min(d, 5), max_size=min(d, 5)))
    kinds += ["normal"] * (d - len(kinds))
    names += [f"v{j}" for j in range(len(names), d)]
    cols = [_column(rng, kind, n) for kind in kinds]
    if clean:  # at least two distinct values per column, so no column is constant
        for col in cols:
            if len(set(col)) < 2:
                col[0] = "12345"
                col[-1] = "-1"
    return names, cols, n, d


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv_bytes(names, cols, sep, quoting, lineterminator, encoding, index) -> bytes:
    buf = _io.StringIO()
    writer = csv.writer(buf, delimiter=sep, quoting=quoting, lineterminator=lineterminator)
    writer.writerow(([""] if index else []) + list(names))
    for i, row in enumerate(zip(*cols)):
        writer.writerow(([str(i)] if index else []) + list(row))
    return buf.getvalue().encode(encoding, errors="replace")


class Outcome:
    def __init__(self, status, out, err, folder):
        self.status, self.out, self.err, self.folder = status, out, err, folder


def run_cli(args: list[str], folder: Path) -> Outcome:
    out, err = _io.StringIO(), _io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        status = cli.main(args)
    assert not caught, [str(w.message) for w in caught]
    return Outcome(status, out.getvalue(), err.getvalue(), folder)


def _strict(text: str):
    def no_constant(name):
        raise AssertionError(f"non-finite number {name} in JSON output")

    return json.loads(text, parse_constant=no_constant)


def check_contract(o: Outcome, outputs: list[Path], inputs: set[str], *, n=None, k=None) -> dict | None:
    left = sorted(p.name for p in o.folder.iterdir() if p.name not in inputs)
    if o.status == 2:
        lines = o.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("mabench: error: "), o.err
        assert o.out == "", o.out
        assert left == [], left  # no output and no temporary file
        return None
    assert o.status == 0, (o.status, o.err)
    assert o.err == "", o.err
    assert len(o.out.splitlines()) == 1
    record = _strict(o.out)
    assert 0.0 <= record["il"] <= 100.0, record
    for value in record.values():
        if isinstance(value, float):
            assert math.isfinite(value)
    assert sorted(left) == sorted(p.name for p in outputs), left
    for p in outputs:
        if p.suffix == ".csv":
            labels = p.read_text().splitlines()
            assert labels[0] == "group" and len(labels) == record["n"] + 1
            sizes = np.bincount(np.asarray(labels[1:], dtype=np.int64))
            assert sizes[sizes > 0].min() >= (k or 1)
        else:
            assert _strict(p.read_text()) == record
    if n is not None:
        assert record["n"] == n
    return record


@contextlib.contextmanager
def scratch():
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)



def _run_on_csv(folder, data: bytes, gz: bool, algorithm: str, k: int):
    """Write the CSV bytes (gzipped or not) into folder and run the CLI on them: (file name, outputs, result)."""
    name = "in.csv.gz" if gz else "in.csv"
    (folder / name).write_bytes(gzip.compress(data) if gz else data)
    outs = [folder / "p.csv", folder / "r.json"]
    return name, outs, run_cli(["run", algorithm, str(folder / name), "-k", str(k), "--out", str(outs[0]),
                                "--json-out", str(outs[1])], folder)

@SETTINGS
@given(table=tables(), sep=st.sampled_from([",", ",", ";", "\t", "|"]),
       quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]),
       lineterminator=st.sampled_from(["\n", "\r\n"]),
       encoding=st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16"]),
       index=st.booleans(), gz=st.booleans(), algorithm=st.sampled_from(ALGORITHMS), dk=st.integers(-3, 2),
       k_small=st.integers(-2, 4))
def test_hostile_csv_keeps_the_contract(table, sep, quoting, lineterminator, encoding, index, gz, algorithm, dk,
                                        k_small):
    names, cols, n, d = table
    data = _csv_bytes(names, cols, sep, quoting, lineterminator, encoding, index)
    k = k_small if k_small <= 2 else n + dk  # from -2 to n+2
    with scratch() as folder:
        name, outs, o = _run_on_csv(folder, data, gz, algorithm, k)
        record = check_contract(o, outs, {name}, k=k)
        if record is not None:  # accepted: then it was read as written, nothing silently renamed or dropped
            assert not index, "a pandas index column was used as a variable"
            assert len(set(names)) == len(names), f"duplicate names {names} were renamed"
            assert all(x.strip() for x in names), f"a blank name in {names} was accepted"
            assert encoding != "utf-16"
            assert sep == "," or d == 1 or record["d"] == d
            assert record["n"] == n and record["d"] == d


@SETTINGS
@given(table=tables(clean=True), bom=st.booleans(), gz=st.booleans(), crlf=st.booleans(),
       quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]), algorithm=st.sampled_from(ALGORITHMS),
       k_frac=st.floats(0, 1))
def test_files_a_user_expects_to_work_do_work(table, bom, gz, crlf, quoting, algorithm, k_frac):
    names, cols, n, d = table
    data = _csv_bytes(names, cols, ",", quoting, "\r\n" if crlf else "\n", "utf-8-sig" if bom else "utf-8", False)
    k = max(1, min(n, 1 + int(k_frac * (n - 1))))
    with scratch() as folder:
        name, outs, o = _run_on_csv(folder, data, gz, algorithm, k)
        assert o.status == 0, o.err
        record = check_contract(o, outs, {name}, n=n, k=k)
        assert record["d"] == d and record["dataset"] == name


def _arrow_column(values: list[str]) -> pa.Array:
    """The column as numbers when every cell is one, else as text (a mixed-type Parquet column)."""
    try:
        nums = [float(v) for v in values]
    except ValueError:
        return pa.array(values, pa.string())
    if all(v.lstrip("-").isdigit() and abs(int(v)) < 2**62 for v in values):
        return pa.array([int(v) for v in values], pa.int64())
    return pa.array(nums, pa.float64())


@SETTINGS
@given(table=tables(), algorithm=st.sampled_from(ALGORITHMS), k=st.integers(-2, 14),
       as_bool=st.booleans())
def test_hostile_parquet_keeps_the_contract(table, algorithm, k, as_bool):
    names, cols, n, d = table
    arrays = [_arrow_column(c) for c in cols]
    if as_bool:
        arrays[0] = pa.array([i % 2 == 0 for i in range(n)])
    with scratch() as folder:
        pq.write_table(pa.Table.from_arrays(arrays, names=list(names)), folder / "in.parquet")
        outs = [folder / "p.csv", folder / "r.json"]
        o = run_cli(["run", algorithm, str(folder / "in.parquet"), "-k", str(k), "--out", str(outs[0]),
                     "--json-out", str(outs[1])], folder)
        record = check_contract(o, outs, {"in.parquet"}, k=k)
        if record is not None:
            assert len(set(names)) == len(names) and all(x.strip() for x in names), names
            # columns that are not numbers (true/false, text) are passed through, not aggregated
            assert record["n"] == n and 1 <= record["d"] <= d - as_bool


LABELS = st.one_of(
    st.integers(0, 5).map(str), st.integers(-3, 5).map(str), st.integers(2**62, 2**70).map(str),
    st.sampled_from(["True", "False", "", "1.0", "1.5", "nan", "inf", "x", " 2 ", "+1", "0x1", "1e2", "٣", "-0"]),
)


@SETTINGS
@given(n=st.integers(2, 30), labels=st.lists(LABELS, min_size=0, max_size=32), header=st.sampled_from(
    ["group", "group", "\ufeffgroup", "Group", "group,extra", "", "g"]), k=st.one_of(st.none(), st.integers(-2, 6)),
    seed=st.integers(0, 2**16))
def test_hostile_partition_files_keep_the_contract(n, labels, header, k, seed):
    rng = np.random.default_rng(seed)
    with scratch() as folder:
        np.savetxt(folder / "data.csv", rng.normal(size=(n, 2)), delimiter=",", header="a,b", comments="")
        text = header + "\n" + "".join(f"{x}\n" for x in labels)
        (folder / "part.csv").write_text(text, encoding="utf-8")
        out = folder / "e.json"
        args = ["evaluate", str(folder / "data.csv"), str(folder / "part.csv"), "--metrics", "il,g_il",
                "--json-out", str(out)] + ([] if k is None else ["-k", str(k)])
        o = run_cli(args, folder)
        record = check_contract(o, [out], {"data.csv", "part.csv"}, n=n)
        if record is not None:  # accepted: every label a non-negative integer, one per record
            assert len(labels) == n and header.lstrip("\ufeff") == "group"
            assert all(x.strip().lstrip("+").split(".")[0].isdigit() for x in labels), labels
            assert not any(x.strip().startswith("-") for x in labels)


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 2, 6, 7, 8])
def test_k_from_minus_two_to_n_plus_two(tmp_path, k):
    """n = 6: k in 1..6 works, everything else is one line, also through a real process."""
    import subprocess
    import sys

    (tmp_path / "d.csv").write_text("a,b\n1,2\n3,5\n4,1\n7,8\n2,2\n9,4\n")
    if k not in (-2, 8):
        o = run_cli(["run", "mdav", str(tmp_path / "d.csv"), "-k", str(k), "--out", str(tmp_path / "p.csv")],
                    tmp_path)
        check_contract(o, [tmp_path / "p.csv"], {"d.csv"}, k=k)
        assert (o.status == 0) == (1 <= k <= 6)
        return
    proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", "mdav", str(tmp_path / "d.csv"), "-k", str(k),
                           "--out", str(tmp_path / "p.csv")], capture_output=True, text=True, timeout=safety_net(300))
    check_contract(Outcome(proc.returncode, proc.stdout, proc.stderr, tmp_path), [], {"d.csv"})
    assert proc.returncode == 2
