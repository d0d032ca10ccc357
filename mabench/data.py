"""Data sets: one loader for catalog names, generator names and file paths.

``load(spec, seed)`` returns original (unstandardized) values; standardizing is
a separate step (:mod:`mabench.standardize`). A spec is

* a catalog name (``tarragona``, ``census``, ``eia``: fetched files, see
  ``datasets/catalog.yaml`` and :mod:`mabench.fetch`),
* a generator name with optional parameters (``sim2``, ``uniform[n=3000,d=16]``),
  drawn with ``seed``, or
* a path to a CSV or Parquet file of numeric columns.

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
META_KEY = "mabench"


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
    params = {}
    if m.group("params"):
        for item in m.group("params").split(","):
            if "=" not in item:
                raise UserError(f"data set {spec!r}: parameter {item!r} must be NAME=VALUE")
            key, value = item.split("=", 1)
            params[key.strip()] = value.strip()
    return m.group("name"), params


def _looks_like_path(spec: str) -> bool:
    return spec.endswith((".csv", ".parquet", ".pq")) or "/" in spec or Path(spec).exists()


def names() -> list[str]:
    from . import fetch

    return sorted(set(fetch.catalog()) | set(plugins.generators()))


def load(spec: str, seed: int | None = None, raw: str | None = None) -> Dataset:
    if _looks_like_path(spec):
        return read_table(spec)
    from . import fetch

    name, params = parse_spec(spec)
    catalog = fetch.catalog()
    if name in catalog:
        if params:
            raise UserError(f"data set {name!r} takes no parameters")
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


def metric_defaults(name: str) -> dict:
    """Per-data-set metric options from the catalog (e.g. Census's key variables)."""
    from . import fetch

    entry = fetch.catalog().get(name)
    if entry is not None:
        return dict(entry.get("metric_options") or {})
    gen = plugins.generators().get(name)
    return dict(getattr(gen, "metric_options", None) or {})
