"""Data sets: one loader for catalog names, generator names and file paths.

``load(spec, seed)`` returns original (unstandardized) values; standardizing is
a separate step (:mod:`mabench.standardize`). A spec is

* a catalog name (``tarragona``, ``census``, ``eia``: fetched files, see
  ``datasets/catalog.yaml`` and :mod:`mabench.fetch`),
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

from . import plugins
from .api import format_params
from .errors import UserError
from .seeds import rng_for

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

    @property
    def spec(self) -> str:
        return f"{self.name}[{format_params(self.params)}]" if self.params else self.name

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.values, columns=self.columns)

    def metadata(self) -> dict[str, str]:
        """What a Parquet copy of this data set records about itself."""
        return {
            META_KEY: json.dumps(
                {"name": self.name, "params": self.params, "seed": self.seed, "provenance": self.provenance},
                sort_keys=True,
            )
        }


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
        params[key.strip()] = value.strip()
    return params


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
    return Dataset(ds.name, np.ascontiguousarray(ds.values[:, keep]), [ds.columns[j] for j in keep],
                   {**ds.params, how: text}, ds.seed, ds.provenance)


def _looks_like_path(spec: str) -> bool:
    return spec.endswith((".csv", ".parquet", ".pq")) or "/" in spec or Path(spec).exists()


def names() -> list[str]:
    from . import fetch

    return sorted(set(fetch.catalog()) | set(plugins.generators()))


def load(spec: str, seed: int | None = None, raw: str | None = None) -> Dataset:
    """The data set ``spec`` (with its column selection applied), in original units."""
    path = _PATH_SPEC.match(spec.strip())
    if path and _looks_like_path(path.group("path")):
        params = _parse_params(spec, path.group("params"))
        rest, selection = split_selection(spec, params)
        if rest:
            raise UserError(f"data file {path.group('path')!r} takes only columns= or drop=, got {sorted(rest)[0]}=")
        return select_columns(read_table(path.group("path")), selection, spec)
    if _looks_like_path(spec):
        return read_table(spec)
    name, params = parse_spec(spec)
    params, selection = split_selection(spec, params)
    return select_columns(_load_named(spec, name, params, seed, raw), selection, spec)


def _load_named(spec: str, name: str, params: dict, seed: int | None, raw: str | None) -> Dataset:
    from . import fetch

    catalog = fetch.catalog()
    if name in catalog:
        if params:
            raise UserError(f"data set {name!r} takes only columns= or drop=, got {sorted(params)[0]}=")
        frame, provenance = fetch.catalog_frame(name, raw)
        return _from_frame(frame, name=name, provenance=provenance)
    if raw:
        raise UserError(f"--raw is only for fetched catalog data sets ({', '.join(sorted(catalog))})")
    gens = plugins.generators()
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
    raise UserError(
        f"unknown data set {spec!r}; available: {', '.join(names())} (or give a path to a CSV/Parquet file)"
    )


def read_table(path: str | Path) -> Dataset:
    path = Path(path)
    if not path.exists():
        raise UserError(f"data file {str(path)!r} does not exist; check the path")
    meta = {}
    try:
        if path.suffix in {".parquet", ".pq"}:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            raw = (table.schema.metadata or {}).get(META_KEY.encode())
            meta = json.loads(raw) if raw else {}
            frame = table.to_pandas()
        else:
            frame = pd.read_csv(path)
    except Exception as exc:  # noqa: BLE001 - a file we cannot parse is the user's problem
        raise UserError(f"cannot read {str(path)!r} ({exc.__class__.__name__}); give a CSV with a header row or a Parquet file") from None
    return _from_frame(
        frame,
        name=meta.get("name") or path.stem,
        params=meta.get("params") or {},
        seed=meta.get("seed"),
        provenance=meta.get("provenance") or {"path": str(path)},
        where=str(path),
    )


def _from_frame(frame: pd.DataFrame, *, name: str, params=None, seed=None, provenance=None, where=None) -> Dataset:
    where = where or name
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserError(f"{where}: no data (need at least one row and one numeric column)")
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]) or pd.api.types.is_bool_dtype(frame[col]):
            raise UserError(f"{where}: column {col!r} is not numeric; remove it or convert it to numbers")
    values = frame.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
    columns = [str(c) for c in frame.columns]
    check_values(values, columns, where)
    return Dataset(name, np.ascontiguousarray(values), columns, dict(params or {}), seed, dict(provenance or {}))


def check_values(values: np.ndarray, columns: list[str], where: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        what = "missing (NaN)" if np.isnan(values[row, col]) else "infinite"
        raise UserError(
            f"{where}: value in row {row + 1}, column {columns[col]!r} is {what}; "
            "microaggregation needs complete numeric data, impute or drop such rows first"
        )
    const = np.flatnonzero(np.ptp(values, axis=0) == 0)
    if const.size:
        raise UserError(f"{where}: column {columns[const[0]]!r} is constant and cannot be standardized; drop it")


def metric_defaults(name: str, columns: list[str] | None = None) -> dict:
    """Per-data-set metric options from the catalog (e.g. Census's key variables).

    With ``columns`` (the columns left after a selection), key variables given by
    name that were dropped are left out; none left means no key variables.
    """
    from . import fetch

    entry = fetch.catalog().get(name)
    if entry is not None:
        options = dict(entry.get("metric_options") or {})
    else:
        gen = plugins.generators().get(name)
        options = dict(getattr(gen, "metric_options", None) or {})
    keys = options.get("key_variables")
    if columns is not None and isinstance(keys, list):
        kept = [key for key in keys if key in columns]
        if kept:
            options["key_variables"] = kept
        else:
            options.pop("key_variables")
    return options
