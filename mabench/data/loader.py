"""Data sets: one loader for catalog names, generator names and file paths.

``load(spec, seed)`` returns original (unstandardized) values; standardizing is
a separate step (:mod:`mabench.data.standardize`). A spec is

* a catalog name (``tarragona``, ``census``, ``eia``: fetched files, see
  ``datasets/catalog.yaml`` and :mod:`mabench.data.fetch`),
* a generator name with optional parameters (``sim2``, ``uniform[n=3000,d=16]``),
  drawn with ``seed``, or
* a path to a CSV or Parquet file of numeric columns.

Any of them takes the column selection ``columns=`` (keep these, in this order) or
``drop=`` (keep all but these): column names or 1-based positions joined with
``+``, e.g. ``eia[drop=UTILITYID]``, ``tarragona[columns=3]``,
``uniform[n=3000,d=16,columns=1+2+3]``. The selection is part of the data set's
parameters, so it travels into file names, results and tables.

Parquet files written by the workflow carry their spec and seed in the file
metadata, so results computed from them keep the data set's name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import discovery
from mabench.plugin import format_params
from mabench.errors import UserError
from mabench.data import columns, formats
from mabench.data.seeds import rng_for

_SPEC = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+)(\[(?P<params>[^\]]*)\])?$")
_PATH_SPEC = re.compile(r"^(?P<path>.+?)\[(?P<params>[^\]]*)\]$")
META_KEY = "mabench"
SELECTION = ("columns", "drop")  # column-selection parameters every data set takes


@dataclass
class Dataset:
    name: str  # base name: catalog/generator name, or the file stem
    values: np.ndarray  # (n, d) float64, original units
    columns: list[str]
    params: dict = field(default_factory=dict)  # generator parameters (resolved)
    seed: int | None = None  # the draw's seed, for generated data
    provenance: dict = field(default_factory=dict)
    # Text columns of a file kept aside for strata (``load(..., aside=...)``): name -> values, and
    # the file's column order, so a masked file can be written with every input column.
    aside: dict = field(default_factory=dict)
    order: list = field(default_factory=list)
    # A file's table as read (every column, its dtypes) and the labels its format carries (SPSS/Stata
    # value and variable labels, mabench.data.formats): the masked file is this table with only the
    # variables replaced, written in the same format.
    source: object = field(default=None, repr=False)
    labels: object = field(default=None, repr=False)

    @property
    def spec(self) -> str:
        return f"{self.name}[{format_params(self.params)}]" if self.params else self.name

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.values, columns=self.columns)

    def metadata(self) -> dict[str, str]:
        """What a Parquet copy of this data set records about itself."""
        recorded = {"name": self.name, "params": self.params, "seed": self.seed, "provenance": self.provenance,
                    "values_sha256": values_digest(self.values, self.columns)}
        if self.source is not None:  # a file's whole table is written: which of its columns are the variables
            recorded["variables"] = list(self.columns)
        return {META_KEY: json.dumps(recorded, sort_keys=True)}

    def table(self) -> pd.DataFrame:
        """What a prepared copy holds: a file's whole table (text columns, strata, weights), else the variables."""
        return self.source if self.source is not None else self.frame()


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    m = _SPEC.match(spec.strip())
    if not m:
        raise UserError(f"data set {spec!r} is neither a file nor a name like `census` or `uniform[n=3000,d=16]`")
    return m.group("name"), _parse_params(spec, m.group("params"))


def _parse_params(spec: str, text: str | None) -> dict[str, str]:
    params = {}
    for item in (text or "").split(",") if text else []:
        if "=" not in item:
            raise UserError(f"data set {spec!r}: parameter {item!r} must be NAME=VALUE")
        key, value = item.split("=", 1)
        if key.strip() in params:
            raise UserError(f"data set {spec!r} gives {key.strip()}= twice; give each parameter once")
        params[key.strip()] = value.strip()
    return params


def with_columns(spec: str, columns, flag: str = "--columns") -> str:
    """``spec`` with the column selection ``columns`` (``"a,b,c"`` or a list) written into it as
    ``[columns=a+b+c]``: the one form a selection takes, so it travels into records and file names."""
    if columns is None:
        return spec
    names = [str(c).strip() for c in (columns.split(",") if isinstance(columns, str) else columns)]
    names = [c for c in names if c]
    if not names:
        raise UserError(f"{flag} names no column; give e.g. {flag} income,expenditure")
    for c in names:
        if any(ch in c for ch in "+,[]="):
            raise UserError(f"{flag}: column name {c!r} contains one of + , [ ] =; rename the column to select it")
    m = _PATH_SPEC.match(spec.strip()) or _SPEC.match(spec.strip())
    inner = (m.groupdict().get("params") if m else None) or ""
    if any(item.split("=", 1)[0].strip() in SELECTION for item in inner.split(",") if item):
        raise UserError(f"{flag} and a [columns=...] or [drop=...] selection in {spec!r} both given; give it once")
    joined = "+".join(names)
    if spec.rstrip().endswith("]") and m is not None and m.groupdict().get("params") is not None:
        return f"{spec.rstrip()[:-1]}{',' if inner.strip() else ''}columns={joined}]"
    return f"{spec}[columns={joined}]"


def base_name(spec: str) -> str | None:
    """The catalog or generator name of a spec (``eia[drop=UTILITYID]`` -> ``eia``); None for a path."""
    m = _SPEC.match(spec.strip())
    return m.group("name") if m else None


def split_selection(spec: str, params: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the data set's own parameters, the column selection)."""
    selection = {k: params[k] for k in SELECTION if k in params}
    if len(selection) > 1:
        raise UserError(f"data set {spec!r}: give either columns= or drop=, not both")
    return {k: v for k, v in params.items() if k not in SELECTION}, selection


def select_columns(ds: "Dataset", selection: dict[str, str], spec: str) -> "Dataset":
    """Keep (``columns=``) or drop (``drop=``) columns given by name or 1-based position, joined with ``+``."""
    if not selection:
        return ds
    (how, text), = selection.items()
    picked = []
    for item in text.split("+"):
        item = item.strip()
        if item in ds.columns:
            picked.append(ds.columns.index(item))
        elif item.isdigit() and 1 <= int(item) <= len(ds.columns):
            picked.append(int(item) - 1)
        else:
            raise UserError(
                f"data set {spec!r}: {how}={text!r} names no column {item!r}; use column names or "
                f"1-based positions 1..{len(ds.columns)} joined with '+' (columns: {', '.join(ds.columns)})"
            )
    if len(set(picked)) != len(picked):
        raise UserError(f"data set {spec!r}: {how}={text!r} names a column twice")
    keep = picked if how == "columns" else [j for j in range(len(ds.columns)) if j not in picked]
    if not keep:
        raise UserError(f"data set {spec!r}: drop={text!r} leaves no column; keep at least one")
    columns = [ds.columns[j] for j in keep]
    order = [c for c in ds.order if c in columns or c in ds.aside]
    return Dataset(ds.name, np.ascontiguousarray(ds.values[:, keep]), columns,
                   {**ds.params, how: text}, ds.seed, ds.provenance, ds.aside, order)


CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zst", ".csv.zip")
PARQUET_SUFFIXES = (".parquet", ".pq")


def looks_like_path(spec: str) -> bool:
    """The one test of whether a data-set spec names a file (used by the CLI and the workflow).

    A data file's suffix or a ``/`` makes it a path. A bare name of a catalog or generated data set
    is that data set even when the working folder holds a file or folder of that name (which would
    otherwise replace it unnoticed): the file is ``./tarragona``. Any other bare name is a path if
    it exists (a data file without a suffix)."""
    if spec.lower().endswith(CSV_SUFFIXES + PARQUET_SUFFIXES + formats.SUFFIXES) or "/" in spec:
        return True
    if base_name(spec) in names():
        return False
    return Path(spec).exists()


def file_of(spec: str) -> str | None:
    """The file a data-set spec reads (``survey.sav[columns=a+b]`` -> ``survey.sav``), None for a name."""
    path = _PATH_SPEC.match(spec.strip())
    if path and looks_like_path(path.group("path")):
        return path.group("path")
    return spec.strip() if looks_like_path(spec) else None


def names() -> list[str]:
    from mabench.data import fetch

    return sorted(set(fetch.catalog()) | set(discovery.generators()))


def load(spec: str, seed: int | None = None, raw: str | None = None, aside=(), missing: bool = False) -> Dataset:
    """The data set ``spec`` (with its column selection applied), in original units; ``missing``: a
    file's NaN are let through (``missing=available``; catalog and generated data sets have none)."""
    path = _PATH_SPEC.match(spec.strip())
    if path and looks_like_path(path.group("path")):
        params = _parse_params(spec, path.group("params"))
        rest, selection = split_selection(spec, params)
        if rest:
            raise UserError(f"data file {path.group('path')!r} takes only columns= or drop=, got {sorted(rest)[0]}=")
        return read_table(path.group("path"), aside, selection, spec, missing)
    if looks_like_path(spec):
        return read_table(spec, aside, missing=missing)
    name, params = parse_spec(spec)
    params, selection = split_selection(spec, params)
    return select_columns(_load_named(spec, name, params, seed, raw), selection, spec)


def _load_named(spec: str, name: str, params: dict, seed: int | None, raw: str | None) -> Dataset:
    from mabench.data import fetch

    catalog = fetch.catalog()
    if name in catalog:
        if params:
            raise UserError(f"data set {name!r} takes only columns= or drop=, got {sorted(params)[0]}=")
        frame, provenance = fetch.catalog_frame(name, raw)
        return _from_frame(frame, name=name, provenance=provenance)
    if raw:
        raise UserError(f"--raw is only for fetched catalog data sets ({', '.join(sorted(catalog))})")
    gens = discovery.generators()
    if name in gens:
        gen = gens[name]
        resolved = gen.resolve(params)
        draw_seed = 0 if seed is None else int(seed)
        rng = rng_for(draw_seed, f"data:{name}[{format_params(resolved)}]")
        values, columns = gen.generate(rng, **resolved)
        ds = Dataset(name, np.ascontiguousarray(values, dtype=np.float64), list(columns), resolved, draw_seed,
                     {"generator": name, "citation": gen.citation})
        check_values(ds.values, ds.columns, spec)
        return ds
    broken = discovery.broken_plugins("datasets")
    if name in broken:
        raise UserError(f"data-set plugin {name!r} cannot be loaded ({broken[name]}); fix the file or move it out "
                        "of MABENCH_HOME")
    raise UserError(
        f"unknown data set {spec!r}; available: {', '.join(names())} (or give a path to a CSV/Parquet file)"
    )


def read_table(path: str | Path, aside=(), selection: dict | None = None, spec: str | None = None,
               missing: bool = False) -> Dataset:
    """A data file (CSV, optionally compressed, e.g. ``.csv.gz``; Parquet; SPSS, Stata, SAS: see
    :mod:`mabench.data.formats`) as a data set of its variables, every other column kept as read.

    The variables are the columns ``selection`` keeps (``{"columns": "a+b"}`` or ``{"drop": "c"}``,
    names or 1-based positions in the file's order), each required to be numeric, or by default every
    numeric column (:func:`mabench.data.columns.variables`). Every other column (identifiers, text
    strata, weights) is kept in ``Dataset.aside`` for strata and weights to name, and the whole table
    in ``Dataset.source`` so a masked file is the input with only the variables replaced. A data set
    read from a file is named by its file name (``mine.csv``), so it can never be mistaken for a
    catalog or generated data set; a Parquet file written by ``mabench prepare`` keeps the name,
    parameters and seed recorded in it. ``missing``: True lets NaN through (``missing=available``).
    """
    from mabench.data import columns as kinds

    given = str(path)
    path = Path(path)
    spec = spec or str(path)
    frame, meta = read_frame(path)
    order = [str(c) for c in frame.columns]
    if frame.shape[0] == 0:
        raise UserError(f"{path}: no data (need at least one row and one numeric column)")
    if selection:
        (how, text), = selection.items()
        named = _selected(order, how, text, spec)
        picked = named if how == "columns" else [c for c in order if c not in named
                                                 and kinds.kind(frame[c]) == kinds.NUMBER]
        for c in picked:
            if kinds.kind(frame[c]) != kinds.NUMBER:
                kinds.refuse_not_numeric(c, frame[c], str(path),
                                         "leave it out of the columns to aggregate (it is passed through unchanged)")
    elif isinstance(meta.get("variables"), list) and set(meta["variables"]) <= set(order):
        picked = list(meta["variables"])  # a file prepared by `mabench prepare` (the workflow)
    else:
        picked = kinds.variables(frame, str(path), aside)
    if not picked:
        flags = [c for c in order if kinds.kind(frame[c]) == kinds.TRUE_FALSE]
        if flags:
            kinds.refuse_not_numeric(flags[0], frame[flags[0]], str(path), "give a numeric column to aggregate")
        raise UserError(f"{path}: no numeric column to aggregate; name the variables with --columns a,b,c")
    # a file named like a catalog or generated data set (./tarragona) keeps its path in the name
    name = path.name if path.name not in names() else (given if "/" in given else f"./{given}")
    ds = _from_frame(frame[picked], name=name, provenance={"path": str(path)}, where=str(path),
                     missing=missing)
    if meta.get("name") and not selection and _same_content(meta, ds):  # a prepared file is its data set
        ds = Dataset(meta["name"], ds.values, ds.columns, dict(meta.get("params") or {}), meta.get("seed"),
                     dict(meta.get("provenance") or {"path": str(path)}))
    if selection:
        ds.params = {**ds.params, **selection}
    kept = {c: frame[c].to_numpy() for c in order if c not in picked}
    if kept:
        ds.aside, ds.order = kept, order
    ds.source = frame
    ds.labels = meta.get("labels")
    return ds


def _selected(order: list[str], how: str, text: str, spec: str) -> list[str]:
    """The columns ``columns=``/``drop=`` names: names or 1-based positions joined with ``+``."""
    picked = []
    for item in text.split("+"):
        item = item.strip()
        if item in order:
            picked.append(item)
        elif item.isdigit() and 1 <= int(item) <= len(order):
            picked.append(order[int(item) - 1])
        else:
            raise UserError(
                f"data set {spec!r}: {how}={text!r} names no column {item!r}; use column names or "
                f"1-based positions 1..{len(order)} joined with '+' (columns: {', '.join(order[:20])}"
                f"{', ...' if len(order) > 20 else ''})")
    if len(set(picked)) != len(picked):
        raise UserError(f"data set {spec!r}: {how}={text!r} names a column twice")
    return picked


def read_frame(path: str | Path) -> tuple[pd.DataFrame, dict]:
    """(the file's table as read, every column kept, the mabench metadata of a Parquet file): the
    checks of :func:`read_table` on the header, before any column is required to be numeric."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"data file {str(path)!r} does not exist; check the path")
    if path.is_dir():
        raise UserError(f"data file {str(path)!r} is a folder; give a CSV or Parquet file")
    if not path.is_file():  # a named pipe would be waited on forever, a device read without end
        raise UserError(f"data file {str(path)!r} is not a regular file (a pipe or a device); give a CSV or "
                        "Parquet file")
    meta = {}
    if path.name.lower().endswith(PARQUET_SUFFIXES):
        frame, header, meta = _read_parquet(path)
    elif formats.is_statistical(path):
        frame, labels = formats.read(path)
        header, meta = [str(c) for c in frame.columns], {"labels": labels}
    else:
        frame, header = _read_csv(path)
    if len(header) > 1 and not header[-1].strip() and frame.iloc[:, -1].isna().all():
        header, frame = header[:-1], frame.iloc[:, :-1]  # a trailing comma on every line (spreadsheet export)
    _check_header(header, frame, str(path))
    return frame, meta


def values_digest(values: np.ndarray, columns: list[str]) -> str:
    """SHA-256 of a data set's content (column names and float64 values): its identity in a file."""
    import hashlib

    h = hashlib.sha256(json.dumps([str(c) for c in columns]).encode())
    h.update(np.ascontiguousarray(values, dtype="<f8").tobytes())
    return h.hexdigest()


def _same_content(meta: dict, ds: "Dataset") -> bool:
    """Whether a Parquet file's recorded identity still describes its rows. A file sliced or edited
    after `mabench prepare` keeps the metadata but not the content: it is then named by its file."""
    digest = meta.get("values_sha256")
    if digest is not None:
        return digest == values_digest(ds.values, ds.columns)
    from mabench.data import fetch  # files written before the digest: the catalog's size at least

    entry = fetch.catalog().get(meta.get("name"))
    if entry is not None and not (meta.get("params") or {}):
        return ds.values.shape == (int(entry["n"]), int(entry["d"]))
    n = (meta.get("params") or {}).get("n")
    return n is None or str(ds.values.shape[0]) == str(n)


def _cannot_read(path: Path, exc: Exception, what: str) -> UserError:
    if isinstance(exc, UnicodeDecodeError):
        return UserError(f"cannot read {str(path)!r}: it is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                         "save it as UTF-8 (e.g. 'CSV UTF-8' in a spreadsheet) and try again")
    if isinstance(exc, OSError) and exc.strerror:
        return UserError(f"cannot read {str(path)!r}: {exc.strerror}; check the file and its permissions")
    detail = " ".join(str(exc).split())[:160]
    return UserError(f"cannot read {str(path)!r} as {what} ({exc.__class__.__name__}: {detail}); "
                     "give a comma-separated CSV with one header row, or a Parquet file")


def _read_csv(path: Path):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. pandas' "loss of data" warning on ragged rows
            # index_col=False: never take the first column as an index (rows longer than the header).
            frame = pd.read_csv(path, encoding="utf-8-sig", index_col=False, low_memory=False)
            raw = pd.read_csv(path, encoding="utf-8-sig", header=None, nrows=1, dtype=str,
                              keep_default_na=False, index_col=False)
    except pd.errors.EmptyDataError:
        raise UserError(f"{str(path)}: the file is empty; give a CSV with a header row and at least 2 rows") from None
    except (pd.errors.ParserWarning, pd.errors.ParserError) as exc:
        line = re.search(r"line (\d+)", str(exc))
        where = f" (line {line.group(1)})" if line else ""
        raise UserError(f"cannot read {str(path)!r}: a row has more fields than the header{where}; every row needs "
                        "one value per column name") from None
    except Exception as exc:  # noqa: BLE001 - a file we cannot parse is the user's problem
        raise _cannot_read(path, exc, "CSV") from None
    return frame, [str(x) for x in raw.iloc[0].tolist()] if len(raw) else []


def _read_parquet(path: Path):
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        raw = (table.schema.metadata or {}).get(META_KEY.encode())
        meta = json.loads(raw) if raw else {}
        header = list(table.column_names)
        if len(set(header)) == len(header):
            frame = table.to_pandas()
        else:  # pandas cannot hold duplicate names; _check_header reports them
            frame = pd.DataFrame(index=range(table.num_rows))
    except Exception as exc:  # noqa: BLE001 - a file we cannot parse is the user's problem
        raise _cannot_read(path, exc, "Parquet") from None
    if not isinstance(meta, dict):
        meta = {}
    return frame, header, meta


def _check_header(header: list[str], frame: pd.DataFrame, where: str) -> None:
    """Column names as written in the file: none empty, none twice, not a data row."""
    for j, name in enumerate(header):
        if not name.strip():
            hint = (" (it looks like a pandas index written by to_csv; write with index=False or drop it)"
                    if j == 0 else "")
            raise UserError(f"{where}: column {j + 1} has no name{hint}; give every column a name in the header row")
    columns.check_unique(header, where)
    if header and all(_is_number(name) for name in header):
        raise UserError(f"{where}: the first row ({', '.join(header[:3])}{', ...' if len(header) > 3 else ''}) "
                        "looks like data, not column names; add a header row")
    if len(header) == 1 and frame.shape[1] == 1 and not pd.api.types.is_numeric_dtype(frame.iloc[:, 0]):
        for sep in (";", "\t", "|"):
            if sep in header[0]:
                raise UserError(
                    f"{where}: one column named {header[0]!r}: the file seems separated by {sep!r}, but mabench "
                    f"reads comma-separated files; convert it, e.g. pandas.read_csv(path, sep={sep!r})"
                    ".to_csv(new_path, index=False)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _from_frame(frame: pd.DataFrame, *, name: str, params=None, seed=None, provenance=None, where=None,
                missing: bool = False) -> Dataset:
    from mabench.data import columns as kinds

    where = where or name
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserError(f"{where}: no data (need at least one row and one numeric column)")
    columns = [str(c) for c in frame.columns]
    values = np.empty(frame.shape, dtype=np.float64)
    for j, col in enumerate(columns):
        series = frame.iloc[:, j]
        # Numbers pandas leaves as text (integers beyond 64 bits, decimals): accepted if all convert.
        if kinds.kind(series) != kinds.NUMBER:
            kinds.refuse_not_numeric(col, series, where, "remove it or convert it to numbers")
        values[:, j] = kinds.numbers(series)
    check_values(values, columns, where, missing)
    return Dataset(name, np.ascontiguousarray(values), columns, dict(params or {}), seed, dict(provenance or {}))


def check_values(values: np.ndarray, columns: list[str], where: str, missing: bool = False) -> None:
    """Complete finite data that can be standardized (the spread check is :func:`standardize.check_spread`);
    ``missing``: NaN allowed (``missing=available``), infinities never."""
    from mabench.data.standardize import check_spread

    if missing:
        from mabench.data.missing import check_observed

        check_observed(values, columns, where)
        return
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        what = "missing (NaN)" if np.isnan(values[row, col]) else "infinite (or beyond ±1.8e308)"
        raise UserError(
            f"{where}: value in row {row + 1}, column {columns[col]!r} is {what}; "
            "microaggregation needs complete numeric data, impute or drop such rows first"
        )
    check_spread(values, columns, where)


def metric_defaults(name: str, columns: list[str] | None = None) -> dict:
    """Per-data-set metric options from the catalog (e.g. Census's key variables).

    With ``columns`` (the columns left after a selection), key variables given by
    name that were dropped are left out; none left means no key variables.
    """
    from mabench.data import fetch

    entry = fetch.catalog().get(name)
    if entry is not None:
        options = dict(entry.get("metric_options") or {})
    else:
        gen = discovery.generators().get(name)
        options = dict(getattr(gen, "metric_options", None) or {})
    keys = options.get("key_variables")
    if columns is not None and isinstance(keys, list):
        kept = [key for key in keys if key in columns]
        if kept:
            options["key_variables"] = kept
        else:
            options.pop("key_variables")
    return options
