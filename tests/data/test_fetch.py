"""mabench.data.fetch: catalog, verified download, vendored copies, catalog tables.

Downloads are tested against a real HTTP server on 127.0.0.1 (ephemeral port)
serving a good copy, a corrupted copy, a 404 and a slow response; nothing
leaves the machine.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from mabench import data
from mabench.data import fetch
from mabench.errors import UserError
from support import ROOT, assert_user_error, safety_net

VENDOR = ROOT / "datasets" / "vendor"
NAME = "tarragona"  # the test file served over HTTP
FILE = "Tarragona.rda"
COMMIT = "cf3251017482bb215f0a9abf4a930f502399fb72"
# Pinned checksums, copied from the upstream provenance notes (datasets/README.md).
PINNED = {
    "tarragona": ("Tarragona.rda", "e83def0648be5e47eaf202b4dd60dd6981591d0858fd249817b9a2cc97cf2aef", 834, 13),
    "census": ("CASCrefmicrodata.rda", "147d0d7fa823a384e36c2297174560e32cdbe6e39803f22f797610fb1a2993d6", 1080, 13),
    "eia": ("EIA.rda", "8b61ceb0d1fa01d024bd62171655601abed62ff70a5e9e6fd550c43a1f76695e", 4092, 11),
}
EIA_COLUMNS = ["UTILITYID", "RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE", "INDSALES",
               "OTHREVENUE", "OTHRSALES", "TOTREVENUE", "TOTSALES"]
CENSUS_KEYS = ["AFNLWGT", "AGI", "EMCONTRB", "PTOTVAL", "PEARNVAL", "FICA", "WSALVAL"]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- HTTP server


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict[str, bytes] = {}

    def do_GET(self):  # noqa: N802 - http.server naming
        try:
            if self.path.startswith("/slow/"):
                time.sleep(1.5)
            body = self.routes.get(self.path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):  # keep test output quiet
        pass


@pytest.fixture(scope="module")
def server():
    good = (VENDOR / FILE).read_bytes()
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    _Handler.routes = {f"/good/{FILE}": good, f"/bad/{FILE}": bytes(bad), f"/slow/{FILE}": good}
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield {"good": f"{base}/good/{FILE}", "bad": f"{base}/bad/{FILE}", "missing": f"{base}/nothing/{FILE}",
           "slow": f"{base}/slow/{FILE}", "bytes": good}
    httpd.shutdown()
    httpd.server_close()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/{FILE}"


def _no_leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- catalog


def test_catalog_entries_match_pinned_provenance():
    cat = fetch.catalog()
    assert set(cat) == set(PINNED)
    for name, (file, digest, n, d) in PINNED.items():
        e = cat[name]
        assert e["file"] == file and e["sha256"] == digest
        assert e["upstream_commit"] == COMMIT
        assert e["url"] == f"https://raw.githubusercontent.com/sdcTools/sdcMicro/{COMMIT}/data/{file}"
        assert (e["n"], e["d"]) == (n, d) and len(e["columns"]) == d
        assert "Brand" in e["citation"] and "sdcMicro" in e["citation"]
        assert e["license_note"] and e["title"]
        assert e["metric_options"]["id_p"] == list(range(1, 11))
        assert sha((VENDOR / file).read_bytes()) == digest
    assert cat["census"]["metric_options"]["key_variables"] == CENSUS_KEYS
    assert "key_variables" not in cat["tarragona"]["metric_options"]
    assert cat["eia"]["columns"] == EIA_COLUMNS
    assert data.metric_defaults("census")["key_variables"] == CENSUS_KEYS


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda e: e.pop("sha256"), "missing key"),
        (lambda e: e.update(sha256="abc"), "sha256"),
        (lambda e: e.update(d=3), "d must equal"),
        (lambda e: e.update(columns="A"), "columns"),
        (lambda e: e.update(url="https://example.org/x.rda"), "pinned"),
        (lambda e: e.update(n=True), "n must be"),
    ],
)
def test_malformed_catalog_is_a_runtime_error(mutate, message):
    entry = json.loads(json.dumps(fetch.catalog()["tarragona"]))
    mutate(entry)
    with pytest.raises(RuntimeError, match=message):
        fetch._validate({"tarragona": entry}, Path("catalog.yaml"))
    with pytest.raises(RuntimeError):
        fetch._validate(["not", "a", "mapping"], Path("catalog.yaml"))


def test_unknown_name_lists_the_catalog(tmp_path):
    with pytest.raises(UserError, match="available: census, eia, tarragona"):
        fetch.fetch("adult", tmp_path / "x.rda")
    assert not (tmp_path / "x.rda").exists()


# --------------------------------------------------------------------------- fetch (in process)


def test_download_good_file(server, tmp_path):
    dest = tmp_path / "sub" / FILE
    info = fetch.fetch(NAME, dest, url=server["good"], use_vendor=False)
    assert sha(dest.read_bytes()) == PINNED[NAME][1]
    assert info == {"name": NAME, "file": FILE, "source": server["good"], "sha256": PINNED[NAME][1],
                    "upstream_commit": COMMIT, "bytes": len(server["bytes"])}
    assert _no_leftovers(dest.parent) == [FILE]


def test_download_corrupted_file_writes_nothing(server, tmp_path):
    dest = tmp_path / FILE
    with pytest.raises(UserError) as err:
        fetch.fetch(NAME, dest, url=server["bad"], use_vendor=False)
    msg = str(err.value)
    assert "checksum" in msg and PINNED[NAME][1] in msg and "nothing was written" in msg
    bad = bytearray(server["bytes"])
    bad[len(bad) // 2] ^= 0xFF
    assert sha(bytes(bad)) in msg
    assert "\n" not in msg
    assert not dest.exists() and _no_leftovers(tmp_path) == []


def test_download_404_writes_nothing(server, tmp_path):
    dest = tmp_path / FILE
    with pytest.raises(UserError, match="HTTP 404") as err:
        fetch.fetch(NAME, dest, url=server["missing"], use_vendor=False)
    assert server["missing"] in str(err.value) and "--url" in str(err.value)
    assert not dest.exists() and _no_leftovers(tmp_path) == []


def test_connection_refused_and_timeout(server, tmp_path):
    dest = tmp_path / FILE
    url = _closed_port_url()
    with pytest.raises(UserError, match="connection refused") as err:
        fetch.fetch(NAME, dest, url=url, use_vendor=False)
    assert url in str(err.value)
    with pytest.raises(UserError, match="timed out"):
        fetch.fetch(NAME, dest, url=server["slow"], use_vendor=False, timeout=0.3)
    with pytest.raises(UserError, match="not a valid URL|unknown url type"):
        fetch.fetch(NAME, dest, url="no-scheme-at-all", use_vendor=False)
    assert not dest.exists() and _no_leftovers(tmp_path) == []


def test_failed_download_keeps_an_existing_destination(server, tmp_path):
    dest = tmp_path / FILE
    dest.write_bytes(b"previous")
    with pytest.raises(UserError):
        fetch.fetch(NAME, dest, url=server["bad"], use_vendor=False)
    assert dest.read_bytes() == b"previous"


def test_vendored_copy_needs_no_network(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("network used")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    for name, (file, digest, _, _) in PINNED.items():
        dest = tmp_path / file
        info = fetch.fetch(name, dest)
        assert info["source"] == "vendored" and info["sha256"] == digest
        assert dest.read_bytes() == (VENDOR / file).read_bytes()


def test_damaged_vendored_copy_falls_back_to_url(server, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    (home / "datasets" / "vendor").mkdir(parents=True)
    (home / "datasets" / "catalog.yaml").write_bytes((ROOT / "datasets" / "catalog.yaml").read_bytes())
    (home / "datasets" / "vendor" / FILE).write_bytes(b"damaged")
    monkeypatch.setattr(fetch.resources, "datasets_path", lambda *parts: home.joinpath("datasets", *parts))
    fetch.catalog.cache_clear()
    try:
        info = fetch.fetch(NAME, tmp_path / "a.rda", url=server["good"])
        assert info["source"] == server["good"]
        with pytest.raises(UserError, match="vendored copy .* missing or damaged"):
            fetch.fetch(NAME, tmp_path / "b.rda", url=server["missing"])
        assert not (tmp_path / "b.rda").exists()
        with pytest.raises(UserError, match="not the pinned"):
            fetch.catalog_frame(NAME)
    finally:
        fetch.catalog.cache_clear()


# --------------------------------------------------------------------------- catalog tables


@pytest.mark.parametrize("name", sorted(PINNED))
def test_catalog_frame_shapes_and_columns(name):
    frame, prov = fetch.catalog_frame(name)
    file, digest, n, d = PINNED[name]
    assert frame.shape == (n, d)
    assert list(frame.columns) == fetch.catalog()[name]["columns"]
    assert all(str(t) == "float64" for t in frame.dtypes)
    assert np.isfinite(frame.to_numpy()).all()
    assert list(frame.index) == list(range(n))
    assert prov["sha256"] == digest and prov["file"] == file and prov["upstream_commit"] == COMMIT
    assert prov["url"].endswith(file) and prov["columns"] == list(frame.columns) and "Brand" in prov["citation"]


def test_catalog_frame_values_are_the_r_integers():
    frame, _ = fetch.catalog_frame("eia")
    values = frame.to_numpy()
    assert np.array_equal(values, np.round(values))
    assert frame["TOTSALES"].iloc[0] == 70266.0 and frame["UTILITYID"].iloc[1] == 213.0


def test_catalog_frame_from_raw_file(tmp_path):
    raw = tmp_path / "fetched.rda"
    fetch.fetch("census", raw)
    a, pa = fetch.catalog_frame("census", raw)
    b, pb = fetch.catalog_frame("census")
    assert a.equals(b) and pa == pb
    with pytest.raises(UserError, match="does not exist"):
        fetch.catalog_frame("census", tmp_path / "nope.rda")


def test_tampered_raw_file_is_refused(tmp_path):
    raw = tmp_path / "tampered.rda"
    blob = bytearray((VENDOR / "CASCrefmicrodata.rda").read_bytes())
    blob[-10] ^= 0x01
    raw.write_bytes(bytes(blob))
    with pytest.raises(UserError, match="expected sha256 " + PINNED["census"][1]):
        fetch.catalog_frame("census", raw)
    with pytest.raises(UserError, match="not the pinned"):
        data.load("census", raw=str(raw))


# --------------------------------------------------------------------------- through the CLI


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MABENCH_HOME": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=safety_net(120))


def _assert_user_error(proc: subprocess.CompletedProcess, out: Path, *needles: str) -> None:
    assert_user_error(proc, *needles)
    assert not out.exists()
    assert _no_leftovers(out.parent) == []


def test_cli_fetch_cases(server, tmp_path):
    cases = {
        "good": (server["good"], True),
        "bad": (server["bad"], False),
        "missing": (server["missing"], False),
        "refused": (_closed_port_url(), False),
    }
    outs = {key: tmp_path / key / FILE for key in cases}
    for out in outs.values():
        out.parent.mkdir()
    with ThreadPoolExecutor(len(cases)) as pool:
        procs = {key: pool.submit(_cli, "fetch", NAME, "--out", str(outs[key]), "--url", url, "--no-vendor")
                 for key, (url, _) in cases.items()}
        procs = {key: f.result() for key, f in procs.items()}
    good = procs.pop("good")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["sha256"] == PINNED[NAME][1]
    assert sha(outs["good"].read_bytes()) == PINNED[NAME][1]
    _assert_user_error(procs["bad"], outs["bad"], "checksum", PINNED[NAME][1])
    _assert_user_error(procs["missing"], outs["missing"], "HTTP 404", server["missing"])
    _assert_user_error(procs["refused"], outs["refused"], "connection refused")


def test_cli_prepare_refuses_tampered_raw(tmp_path):
    raw = tmp_path / "in" / "Tarragona.rda"
    raw.parent.mkdir()
    blob = bytearray((VENDOR / FILE).read_bytes())
    blob[100] ^= 0x55
    raw.write_bytes(bytes(blob))
    out = tmp_path / "out" / "tarragona.parquet"
    out.parent.mkdir()
    good_raw = tmp_path / "in" / "good.rda"
    good_raw.write_bytes((VENDOR / FILE).read_bytes())
    out_raw, out_vendored = tmp_path / "raw.parquet", tmp_path / "vendored.parquet"
    bad = _cli("prepare", NAME, "--raw", str(raw), "--out", str(out))
    _assert_user_error(bad, out, "not the pinned", PINNED[NAME][1])
    # The good paths in process (faster); the raw file's location is not part of the output.
    from mabench import cli

    assert cli.main(["prepare", NAME, "--raw", str(good_raw), "--out", str(out_raw)]) == 0
    assert cli.main(["prepare", NAME, "--out", str(out_vendored)]) == 0
    assert out_raw.read_bytes() == out_vendored.read_bytes()
    assert data.read_table(out_raw).values.shape == (834, 13)
