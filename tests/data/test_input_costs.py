"""Inputs that cost unbounded time or say the wrong thing (issue 17): fetch has a total deadline,
--url is never ignored silently, a spec parameter given twice and a prepare output that is not
Parquet are refused."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from support import assert_user_error
from mabench import cli
from mabench.data import fetch
from mabench.errors import UserError


class Trickle(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.2)  # each read is quick; the whole body takes 200 s
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def trickle():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/x.rda"
    server.shutdown()


def test_fetch_has_a_total_deadline(trickle, tmp_path):
    t = time.monotonic()
    with pytest.raises(UserError, match="timed out after 1 s"):
        fetch.fetch("tarragona", tmp_path / "t.rda", url=trickle, use_vendor=False, timeout=1)
    # 200 s without a total deadline; the bound sits far from both (a loaded machine is not a failure)
    assert time.monotonic() - t < 100
    assert not (tmp_path / "t.rda").exists()


def test_a_url_is_never_ignored_silently(tmp_path, capsys):
    status = cli.main(["fetch", "tarragona", "--out", str(tmp_path / "t.rda"), "--url", "http://127.0.0.1:9/x"])
    err = capsys.readouterr().err
    assert status == 2 and "--no-vendor" in err and "would not be used" in err, err


def test_a_spec_parameter_given_twice_is_refused(tmp_path, capsys):
    status = cli.main(["run", "mdav", "uniform[n=10,n=20]", "-k", "2"])
    err = capsys.readouterr().err
    assert status == 2 and "gives n= twice" in err, err


def test_prepare_writes_parquet_only_into_parquet_names(tmp_path, capsys):
    status = cli.main(["prepare", "sim1", "--out", str(tmp_path / "a.csv")])
    err = capsys.readouterr().err
    assert status == 2 and "a.parquet" in err and not (tmp_path / "a.csv").exists(), err


def test_evaluate_on_a_generated_set_needs_its_seed_and_records_it(tmp_path, capsys):
    part = tmp_path / "p.csv"
    assert cli.main(["run", "mdav", "sim1", "-k", "3", "--seed", "4", "--out", str(part)]) == 0
    capsys.readouterr()
    assert cli.main(["evaluate", "sim1", str(part), "--metrics", "il"]) == 2
    assert "give the --seed of the draw" in capsys.readouterr().err
    assert cli.main(["evaluate", "sim1", str(part), "--metrics", "il", "--seed", "4"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["seed"] == 4
