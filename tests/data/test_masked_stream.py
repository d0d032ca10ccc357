"""The masked file written part by part (mabench.data.masked.MaskedTable, mabench.data.formats.write_masked)
is the file the whole masked table gives: same columns, dtypes, values and row order, in Parquet row
groups of a fixed number of rows; nothing is left behind when writing fails half-way."""

from __future__ import annotations

import io as stdio

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mabench
from mabench import io
from mabench.data import masked as masked_module
from mabench.data.formats import write_masked
from mabench.data.masked import MaskedTable
from mabench.errors import UserError
from support import main_in_process as main


def _whole_parquet(frame: pd.DataFrame, target) -> None:
    """The masked Parquet as it is written from the whole table: one Arrow table, no pandas metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata({})
    pq.write_table(table, target, compression="zstd", write_statistics=False)


def _column_bytes(path, name) -> bytes:
    """One column of a Parquet file as Arrow IPC bytes (type, validity and values), in one chunk."""
    column = pq.read_table(path, columns=[name]).combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, column.schema) as writer:
        writer.write_table(column)
    return sink.getvalue().to_pybytes()


def _assert_same_file_content(streamed, whole) -> None:
    a, b = pq.read_table(streamed), pq.read_table(whole)
    assert a.schema.equals(b.schema, check_metadata=True)
    assert pd.read_parquet(streamed).equals(pd.read_parquet(whole))
    for name in a.column_names:
        assert _column_bytes(streamed, name) == _column_bytes(whole, name), name


@pytest.fixture
def people(tmp_path):
    """Three strata in interleaved rows, a free text column with gaps (none in the first rows), an
    integer variable, a variable with missing values and sampling weights."""
    rng = np.random.default_rng(5)
    n = 240
    note = np.array([None if i < 50 or i % 7 == 0 else f"note {i}" for i in range(n)], dtype=object)
    frame = pd.DataFrame({"id": np.arange(n), "region": rng.choice(["north", "south", "east"], n), "note": note,
                          "age": rng.integers(18, 90, n), "income": rng.lognormal(3.0, 1.0, n),
                          "debt": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                          "w": rng.integers(1, 5, n).astype(float)})
    path = tmp_path / "people.parquet"
    frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("columns, flags", [
    ("age,income,debt", ("--weights", "w", "--missing", "available")),
    ("age,income", ("--measure", "median")),
])
def test_streamed_masked_file_is_the_whole_tables(people, tmp_path, capsys, monkeypatch, suffix, columns, flags):
    monkeypatch.setattr(masked_module, "PART_VALUES", 7 * 25)  # 7 columns: parts of 25 rows
    target = tmp_path / f"m{suffix}"
    proc = main(capsys, "run", "mdav", people, "-k", "3", "--strata", "region", "--columns", columns, *flags, "--masked-out", target)
    assert proc.returncode == 0, proc.stderr
    options = dict(zip(flags[::2], flags[1::2]))
    api = mabench.microaggregate(pd.read_parquet(people), k=3, strata="region", columns=columns.split(","),
                                 weights=options.get("--weights"), missing=options.get("--missing"),
                                 measure=options.get("--measure"))
    if suffix == ".parquet":
        _whole_parquet(api.masked, tmp_path / "whole.parquet")
        _assert_same_file_content(target, tmp_path / "whole.parquet")
        groups = pq.ParquetFile(target).metadata
        assert [groups.row_group(i).num_rows for i in range(groups.num_row_groups)] == [25] * 9 + [15]
    else:
        assert target.read_text(encoding="utf-8") == api.masked.to_csv(index=False, lineterminator="\n")
    written = pd.read_parquet(target) if suffix == ".parquet" else pd.read_csv(target)
    assert written["note"].isna().sum() > 50 and written["region"].notna().all()
    assert written["debt"].isna().any()  # aggregated with missing=available, or passed through


def test_streamed_file_is_the_same_bytes_at_any_jobs(people, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(masked_module, "PART_VALUES", 7 * 25)
    files = {}
    for name, jobs in (("serial", "1"), ("again", "1"), ("processes", "2")):
        files[name] = tmp_path / f"m_{name}.parquet"
        proc = main(capsys, "run", "mdav", people, "-k", "3", "--strata", "region", "--columns", "age,income",
                    "--jobs", jobs, "--masked-out", files[name])
        assert proc.returncode == 0, proc.stderr
    assert pq.ParquetFile(files["serial"]).metadata.num_row_groups == 10
    assert files["serial"].read_bytes() == files["again"].read_bytes() == files["processes"].read_bytes()


def test_parts_decide_each_columns_storage_over_all_rows(tmp_path, monkeypatch):
    """An integer column stays integer only if every value of every part is whole: a gap or a fraction
    in the last part changes the storage of the first part too."""
    monkeypatch.setattr(masked_module, "PART_VALUES", 3 * 4)  # 3 columns: parts of 4 rows
    n = 10
    objects = pd.Series([None] * 8 + ["x", "y"], dtype=object)  # Python objects: their Arrow type is read from all rows
    frame = pd.DataFrame({"a": np.arange(n), "b": np.arange(n), "o": objects})
    values = np.column_stack([np.r_[np.arange(n - 1.0), np.nan], np.r_[np.arange(n - 1.0), 0.5]])
    table = MaskedTable(frame, ["a", "b"], lambda start, stop: values[start:stop])
    assert table.part_rows == 4
    parts = list(table.parts())
    assert [len(p) for p in parts] == [4, 4, 2]
    assert [str(p["a"].dtype) for p in parts] == ["Int64"] * 3 and [str(p["b"].dtype) for p in parts] == ["float64"] * 3
    whole = table.whole()
    assert pd.concat(parts).equals(whole)
    assert whole["a"].isna().tolist() == [False] * 9 + [True]
    with io.outputs() as out:
        write_masked(out, str(tmp_path / "m.parquet"), table, None)
    _whole_parquet(whole, tmp_path / "whole.parquet")
    _assert_same_file_content(tmp_path / "m.parquet", tmp_path / "whole.parquet")
    assert pq.ParquetFile(tmp_path / "m.parquet").metadata.num_row_groups == 3
    assert pq.read_schema(tmp_path / "m.parquet").field("o").type == pa.string()  # not the first part's null


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_failure_while_streaming_leaves_nothing_behind(tmp_path, monkeypatch, suffix):
    monkeypatch.setattr(masked_module, "PART_VALUES", 4)  # one column: parts of 4 rows
    frame = pd.DataFrame({"a": np.arange(10.0)})

    def rows(start, stop):
        if start >= 4:
            raise UserError("the second part failed")
        return frame[["a"]].to_numpy()[start:stop]

    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(UserError, match="the second part failed"), io.outputs() as out:
        write_masked(out, str(folder / f"m{suffix}"), MaskedTable(frame, ["a"], rows), None)
    assert list(folder.iterdir()) == []


def test_a_large_table_is_written_in_parts_of_fixed_rows():
    """At the default part size a narrow table is cut into parts of 2**20 rows (one row group each)."""
    frame = pd.DataFrame(np.zeros((1, 3)), columns=["a", "b", "c"])
    assert MaskedTable(frame, ["a"], lambda start, stop: np.zeros((stop - start, 1))).part_rows == 1 << 20
    wide = pd.DataFrame(np.zeros((1, 1000)))
    assert MaskedTable(wide, [0], lambda start, stop: None).part_rows == (1 << 22) // 1000


def test_writing_a_frame_as_parquet_is_unchanged(tmp_path):
    """mabench.io.write_parquet (results tables, data files) writes what pyarrow's write_table does."""
    frame = pd.DataFrame({"x": np.arange(5.0), "s": list("abcde")})
    io.write_parquet(tmp_path / "a.parquet", frame, {"mabench.test": "1"})
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata({b"mabench.test": b"1"})
    buffer = stdio.BytesIO()
    pq.write_table(table, buffer, compression="zstd", write_statistics=False)
    assert (tmp_path / "a.parquet").read_bytes() == buffer.getvalue()
