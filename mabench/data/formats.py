"""The file formats statistical offices hold: SPSS (.sav, .zsav), Stata (.dta), SAS (.sas7bdat, .xpt).

Read and written with pyreadstat (the ``formats`` extra: ``pip install 'mabench[formats]'``). A file
is read with its codes, not its value labels (a labelled region stays the number the file stores),
and its labels are kept (:class:`Labels`) so that a masked file written in the same format carries
the input's variable labels, value labels, measurement levels and display formats unchanged. SAS
files are read only (pyreadstat cannot write them); a masked SAS file is written as .csv, .parquet,
.sav or .dta.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mabench.data.masked import MaskedTable
from mabench.errors import UserError

READERS = {".sav": "read_sav", ".zsav": "read_sav", ".dta": "read_dta", ".sas7bdat": "read_sas7bdat",
           ".xpt": "read_xport"}
SUFFIXES = tuple(READERS)
WRITABLE = (".csv", ".parquet", ".sav", ".zsav", ".dta")


@dataclass
class Labels:
    """What a .sav/.dta file says about its columns besides their values (pyreadstat's metadata)."""

    format: str  # the suffix read from, e.g. ".sav"
    column_labels: dict = field(default_factory=dict)  # column -> variable label
    value_labels: dict = field(default_factory=dict)  # column -> {code: label}
    measure: dict = field(default_factory=dict)  # column -> nominal/ordinal/scale (SPSS)
    formats: dict = field(default_factory=dict)  # column -> display format, e.g. F8.2
    file_label: str | None = None


def suffix(path) -> str:
    return "".join(Path(str(path)).suffixes[-1:]).lower()


def is_statistical(path) -> bool:
    return suffix(path) in READERS


def writable(path) -> bool:
    return str(path).lower().endswith(WRITABLE)


def _pyreadstat(what: str):
    try:
        import pyreadstat
    except ImportError:
        raise UserError(f"{what} needs the formats extra: pip install 'mabench[formats]'") from None
    return pyreadstat


def read(path: Path) -> tuple[pd.DataFrame, Labels]:
    """(the file's table, codes not labels; its labels) of an SPSS, Stata or SAS file."""
    ext = suffix(path)
    reader = getattr(_pyreadstat(f"reading {ext} files"), READERS[ext])
    try:
        frame, meta = reader(str(path))  # codes, not value labels (apply_value_formats=False by default)
    except Exception as exc:  # noqa: BLE001 - a file we cannot parse is the user's problem
        detail = " ".join(str(exc).split())[:160]
        raise UserError(f"cannot read {str(path)!r} as {ext} ({exc.__class__.__name__}: {detail}); "
                        "check that the file is complete and of that format") from None
    names = list(meta.column_names)
    labels = Labels(
        ext,
        {c: lab for c, lab in zip(names, meta.column_labels or []) if lab},
        {c: dict(v) for c, v in (meta.variable_value_labels or {}).items()},
        dict(getattr(meta, "variable_measure", None) or {}),
        dict(getattr(meta, "original_variable_types", None) or {}),
        getattr(meta, "file_label", None),
    )
    return frame, labels


def write(target: Path, frame: pd.DataFrame, labels: Labels | None) -> None:
    """``frame`` as a .sav/.zsav/.dta file at ``target``, with ``labels`` where they apply."""
    ext = suffix(target)
    prs = _pyreadstat(f"writing {ext} files")
    labels = labels or Labels(ext)
    names = [str(c) for c in frame.columns]
    column_labels = [labels.column_labels.get(c) for c in names]
    value_labels = {c: v for c, v in labels.value_labels.items() if c in names}
    if ext in (".sav", ".zsav"):
        spss = labels.format in (".sav", ".zsav")
        prs.write_sav(frame, str(target), column_labels=column_labels, compress=ext == ".zsav",
                      variable_value_labels=value_labels or None,
                      variable_measure={c: m for c, m in labels.measure.items() if c in names and m != "unknown"}
                      or None,
                      variable_format={c: f for c, f in labels.formats.items() if c in names} if spss else None,
                      file_label=labels.file_label)
    else:
        prs.write_dta(frame, str(target), column_labels=column_labels,
                      variable_value_labels=value_labels or None, file_label=labels.file_label)


def write_masked(out, target: str, table: MaskedTable, source) -> None:
    """Write a masked table (one transaction with the command's other outputs, ``mabench.io``) in the
    format ``target`` names, with the input file's labels when both are SPSS/Stata files. Parquet and
    CSV are written part by part in row order (``MaskedTable.parts``), never holding a second whole
    copy of the table; the file is the one the whole table would give."""
    lower = target.lower()
    if lower.endswith(".parquet"):
        import pyarrow as pa

        schema = _arrow_schema(table)
        out.write_arrow(target, schema, (pa.Table.from_pandas(part, schema=schema, preserve_index=False)
                                         for part in table.parts()))
    elif lower.endswith(".csv"):
        # pandas picks a date or time column's text format from all its values: such a table is written whole
        timed = any(pd.api.types.is_datetime64_any_dtype(t) or pd.api.types.is_timedelta64_dtype(t)
                    for t in table.frame.dtypes)
        parts = [table.whole()] if timed else table.parts()
        out.write_text_parts(target, (part.to_csv(index=False, header=i == 0, lineterminator="\n")
                                      for i, part in enumerate(parts)))
    else:
        import shutil
        import tempfile

        labels = getattr(source, "labels", None)
        with out.path(target) as tmp, tempfile.TemporaryDirectory(prefix="mabench-") as scratch:
            # pyreadstat picks the layout by the file name's suffix: write under the target's suffix,
            # then copy into the staged file that the transaction renames.
            named = Path(scratch) / f"masked{suffix(target)}"
            write(named, table.whole(), labels if isinstance(labels, Labels) else None)
            shutil.copyfile(named, tmp)


def _arrow_schema(table: MaskedTable):
    """The Arrow schema of the whole masked table, as ``pyarrow.Table.from_pandas`` gives it: from the
    columns' dtypes, and for a column of Python objects (whose type depends on its values; an empty
    part would give ``null``) inferred from all its values."""
    import pyarrow as pa

    empty = table.part(0, 0)
    schema = pa.Schema.from_pandas(empty, preserve_index=False)
    for i in range(empty.shape[1]):
        if empty.dtypes.iloc[i] == object:
            kind = pa.infer_type(table.frame.iloc[:, i].to_numpy(), from_pandas=True)
            schema = schema.set(i, schema.field(i).with_type(kind))
    return schema
