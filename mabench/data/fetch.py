"""Fetched benchmark data: the CASC reference files listed in ``datasets/catalog.yaml``.

Each catalog entry pins one upstream R data file (sdcTools/sdcMicro, ``data/``)
by commit and SHA-256. The same bytes are vendored in ``datasets/vendor/``, so
the default path never touches the network:

* :func:`fetch` copies the verified upstream file to a destination, from the
  vendored copy or (``use_vendor=False``, or no good vendored copy) by download.
  The checksum is verified *before* anything is written, and the destination is
  written atomically, so a failed fetch leaves nothing behind.
* :func:`catalog_frame` turns a verified upstream file into the benchmark's
  numeric table (the catalog's columns, in order, as float64).

A malformed catalog is a bug in the repository and raises ``RuntimeError``;
everything the user can fix (unknown name, network failure, wrong file) raises
:class:`~mabench.errors.UserError` with one line saying what to do.
"""

from __future__ import annotations

import functools
import hashlib
import io as _bytesio
import re
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mabench import io, resources
from mabench.errors import UserError

CATALOG_FILE = "catalog.yaml"
VENDOR_DIR = "vendor"
MAX_BYTES = 64 * 1024 * 1024  # the real files are < 100 kB; refuse anything absurd

_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "file": str,
    "robject": str,
    "url": str,
    "sha256": str,
    "upstream_commit": str,
    "columns": list,
    "n": int,
    "d": int,
    "citation": str,
    "license_note": str,
    "metric_options": dict,
}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")


# --------------------------------------------------------------------------- catalog


def _catalog_path() -> Path:
    return resources.datasets_path(CATALOG_FILE)


def _validate(entries: Any, where: Path) -> dict[str, dict]:
    def bad(msg: str) -> RuntimeError:
        return RuntimeError(f"{where}: {msg}")

    if entries is None:
        return {}
    if not isinstance(entries, dict):
        raise bad("top level must be a mapping of data set name -> entry")
    out: dict[str, dict] = {}
    for name, entry in entries.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise bad(f"data set name {name!r} must be lower-case letters, digits, '_' or '-'")
        if not isinstance(entry, dict):
            raise bad(f"{name}: entry must be a mapping")
        missing = [k for k in _REQUIRED if k not in entry]
        if missing:
            raise bad(f"{name}: missing key(s) {', '.join(missing)}")
        for key, kind in _REQUIRED.items():
            value = entry[key]
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise bad(f"{name}: {key} must be a {getattr(kind, '__name__', kind)}, got {value!r}")
        if not _HEX64.match(entry["sha256"]):
            raise bad(f"{name}: sha256 must be 64 lower-case hex digits")
        if not _HEX40.match(entry["upstream_commit"]):
            raise bad(f"{name}: upstream_commit must be a 40-digit commit hash")
        if entry["upstream_commit"] not in entry["url"]:
            raise bad(f"{name}: url is not pinned to upstream_commit")
        if Path(entry["file"]).name != entry["file"]:
            raise bad(f"{name}: file must be a bare file name")
        cols = entry["columns"]
        if not cols or not all(isinstance(c, str) for c in cols) or len(set(cols)) != len(cols):
            raise bad(f"{name}: columns must be a non-empty list of distinct names")
        if entry["n"] < 1 or entry["d"] != len(cols):
            raise bad(f"{name}: n must be positive and d must equal the number of columns ({len(cols)})")
        out[name] = entry
    return out


@functools.cache
def catalog() -> dict[str, dict]:
    """The fetched data sets, by name (read once from ``datasets/catalog.yaml``).

    A plugin tree without a catalog file simply has no fetched data sets.
    """
    import yaml

    path = _catalog_path()
    if not path.exists():
        return {}
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise RuntimeError(f"{path}: not valid YAML ({exc})") from exc
    return _validate(entries, path)


def entry(name: str) -> dict:
    """One catalog entry; an unknown name is a user error that lists the known ones."""
    table = catalog()
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise UserError(f"unknown catalog data set {name!r}; available: {known} (see `mabench list datasets`)")
    return table[name]


def vendored_path(name: str) -> Path:
    """Where the vendored copy of ``name``'s upstream file lives (it may be absent)."""
    return resources.datasets_path(VENDOR_DIR, entry(name)["file"])


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- fetch


def _read_vendored(name: str) -> bytes | None:
    """The vendored bytes if present and matching the pinned checksum, else None."""
    path = vendored_path(name)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if sha256_bytes(data) == entry(name)["sha256"] else None


def _download(url: str, timeout: float, hint: str) -> bytes:
    """GET ``url`` and return its body; any failure is one UserError line."""

    def fail(why: str) -> UserError:
        return UserError(f"cannot download {url}: {why}; nothing was written. {hint}")

    try:
        request = urllib.request.Request(url, headers={"User-Agent": "mabench-fetch"})
        deadline = time.monotonic() + timeout  # total, not per read: a server trickling bytes must end too
        with urllib.request.urlopen(request, timeout=timeout) as response:
            chunks, size = [], 0
            while size <= MAX_BYTES:
                if time.monotonic() > deadline:
                    raise TimeoutError
                chunk = response.read1(64 * 1024) if hasattr(response, "read1") else response.read(64 * 1024)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            data = b"".join(chunks)
    except urllib.error.HTTPError as exc:
        raise fail(f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise fail(f"timed out after {timeout:g} s") from None
        if isinstance(reason, ConnectionRefusedError):
            raise fail("connection refused") from None
        raise fail(str(reason) if not isinstance(reason, OSError) else (reason.strerror or str(reason))) from None
    except (TimeoutError, socket.timeout):
        raise fail(f"timed out after {timeout:g} s") from None
    except ConnectionError as exc:
        raise fail(exc.strerror or exc.__class__.__name__) from None
    except ValueError as exc:  # malformed URL, unknown scheme
        raise fail(f"not a valid URL ({exc})") from None
    except OSError as exc:  # other transport errors (e.g. connection reset while reading)
        raise fail(exc.strerror or exc.__class__.__name__) from None
    if len(data) > MAX_BYTES:
        raise fail(f"response larger than {MAX_BYTES // (1024 * 1024)} MiB")
    return data


def fetch(name: str, dest, url: str | None = None, use_vendor: bool = True, timeout: float = 30) -> dict:
    """Write the verified upstream file of catalog data set ``name`` to ``dest``.

    With ``use_vendor`` the vendored copy is used when it is present and has the
    pinned checksum (``url`` is then not consulted: the bytes are identical).
    Otherwise the file is downloaded from ``url`` (default: the catalog's pinned
    URL) and its SHA-256 checked before ``dest`` is written atomically.
    Returns provenance: name, file, source ("vendored" or the URL), sha256,
    upstream_commit, bytes.
    """
    item = entry(name)
    expected = item["sha256"]
    data = _read_vendored(name) if use_vendor else None
    if url and data is not None:
        raise UserError(f"--url {url} would not be used: the vendored copy of {name} is intact (same pinned bytes); "
                        "add --no-vendor to download from the URL, or drop --url")
    if data is not None:
        source = "vendored"
    else:
        source = url or item["url"]
        if use_vendor:
            hint = (f"The vendored copy datasets/{VENDOR_DIR}/{item['file']} is missing or damaged; "
                    "restore it (git checkout) or give another source with --url")
        else:
            hint = "Drop --no-vendor to use the vendored copy, or give another source with --url"
        data = _download(source, timeout, hint)
        actual = sha256_bytes(data)
        if actual != expected:
            raise UserError(
                f"checksum mismatch for {name} downloaded from {source}: expected sha256 {expected}, "
                f"got {actual}; nothing was written to {dest}"
            )
    io.write_bytes(dest, data)  # OS errors become one-line UserErrors there
    return {
        "name": name,
        "file": item["file"],
        "source": source,
        "sha256": expected,
        "upstream_commit": item["upstream_commit"],
        "bytes": len(data),
    }


# --------------------------------------------------------------------------- table


def catalog_frame(name: str, raw=None):
    """The benchmark table of catalog data set ``name`` and its provenance.

    ``raw`` is a fetched upstream file (default: the vendored copy). Its SHA-256
    must be the pinned one; the R data frame is read with ``rdata``, the
    catalog's columns are selected in order and converted to float64, and the
    shape is checked against the catalog's ``n`` and ``d``.
    """
    import numpy as np
    import pandas as pd
    import rdata

    item = entry(name)
    if raw is not None:
        path = Path(raw)
        if not path.is_file():
            raise UserError(f"raw file {str(path)!r} does not exist; fetch it with `mabench fetch {name} --out PATH`")
        how_to_fix = f"fetch it again with `mabench fetch {name} --out PATH`"
    else:
        path = vendored_path(name)
        if not path.is_file():
            raise UserError(f"vendored file datasets/{VENDOR_DIR}/{item['file']} is missing; run "
                            f"`mabench fetch {name} --no-vendor --out PATH` and pass --raw PATH")
        how_to_fix = f"restore datasets/{VENDOR_DIR}/{item['file']} (git checkout) or pass a fetched file with --raw"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {str(path)!r} ({exc.strerror or exc.__class__.__name__})") from None
    actual = sha256_bytes(data)
    if actual != item["sha256"]:
        raise UserError(
            f"{str(path)!r} is not the pinned {item['file']} of data set {name}: expected sha256 "
            f"{item['sha256']}, got {actual}; {how_to_fix}"
        )
    # Parse the bytes that were just verified (not the path again).
    objects = rdata.read_rda(_bytesio.BytesIO(data))
    if item["robject"] not in objects:
        raise RuntimeError(f"catalog entry {name}: {item['file']} has no R object {item['robject']!r}")
    frame = objects[item["robject"]]
    columns = list(item["columns"])
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise RuntimeError(f"catalog entry {name}: {item['file']} has no column(s) {', '.join(absent)}")
    frame = frame.loc[:, columns].reset_index(drop=True)
    missing = frame.isna().to_numpy()
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise UserError(f"{name}: value in row {row + 1}, column {columns[col]!r} is missing (NA); "
                        "the benchmark needs complete numeric data")
    for col in columns:
        if not pd.api.types.is_numeric_dtype(frame[col]) or pd.api.types.is_bool_dtype(frame[col]):
            raise RuntimeError(f"catalog entry {name}: column {col!r} is not numeric")
    values = frame.to_numpy(dtype=np.float64)
    if values.shape != (item["n"], item["d"]):
        raise RuntimeError(
            f"catalog entry {name}: expected shape ({item['n']}, {item['d']}), got {values.shape}"
        )
    out = pd.DataFrame(np.ascontiguousarray(values), columns=columns)
    provenance = {
        "catalog": name,
        "file": item["file"],
        "url": item["url"],
        "sha256": item["sha256"],
        "upstream_commit": item["upstream_commit"],
        "columns": columns,
        "citation": item["citation"],
    }
    return out, provenance
