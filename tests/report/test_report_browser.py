"""The HTML reproduction report in a real browser (headless Chromium).

Each page of the report is built from a small results table, opened from the file system in
headless Chromium (Debian's ``chromium`` package) over the DevTools protocol (``--remote-debugging-pipe``,
no extra Python dependency), and checked: it loads without console errors, exceptions or failed
resource loads; every figure is an image that decoded; every table is there. A screenshot of each page
is kept as a test artifact under ``test-artifacts/report/`` (or ``$MABENCH_ARTIFACTS``).

Skips with a message when no Chromium is installed (``apt-get install -y chromium``).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mabench.report import pages as pages_module, published
from support import ROOT, safety_net

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str | None:
    explicit = os.environ.get("MABENCH_CHROMIUM")
    if explicit:
        return explicit
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """A minimal DevTools-protocol client over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, exe: str, profile: str):
        to_browser_r, self._w = os.pipe()
        self._r, from_browser_w = os.pipe()
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--allow-file-access-from-files", f"--user-data-dir={profile}", "about:blank"]

        def child_fds():  # move the pipe ends out of the way first, then onto fds 3 and 4
            high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(args, pass_fds=(3, 4, to_browser_r, from_browser_w), preexec_fn=child_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = safety_net(60)):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float = safety_net(60)) -> dict:
        deadline = time.monotonic() + timeout
        for i, ev in enumerate(self.events):
            if ev.get("method") == method and ev.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            ev = self._read_message(deadline)
            if ev.get("method") == method and ev.get("sessionId") == session:
                return ev
            self.events.append(ev)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=safety_net(10))
        except Exception:  # noqa: BLE001 - the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=safety_net(10))
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)


def render(browser: Chromium, url: str, screenshot: Path) -> dict:
    """Open ``url`` in a fresh tab; return problems seen, what the DOM holds, and save a screenshot."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.send(f"{domain}.enable", session=session)
    browser.events.clear()
    browser.send("Page.navigate", {"url": url}, session=session)
    browser.wait_for("Page.loadEventFired", session, timeout=safety_net(120))
    browser.send("Runtime.evaluate", {"expression": "1", "awaitPromise": True}, session=session)
    dom = json.loads(browser.send("Runtime.evaluate", {"returnByValue": True, "expression": """JSON.stringify({
        figures: Array.from(document.querySelectorAll('figure[data-figure]')).map(f => f.dataset.figure),
        images: Array.from(document.images).map(i => ({ok: i.complete && i.naturalWidth > 0, w: i.naturalWidth})),
        tables: Array.from(document.querySelectorAll('table[data-table]')).map(t => t.dataset.table),
        rows: document.querySelectorAll('table tbody tr').length,
        title: document.title, height: document.documentElement.scrollHeight})"""}, session=session)
        ["result"]["value"])
    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": 1280,
                                                             "height": min(dom["height"], 6000), "scale": 0.6}},
                        session=session, timeout=safety_net(120))
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    problems = []
    for ev in browser.events:
        if ev.get("sessionId") != session:
            continue
        method, params = ev.get("method"), ev.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            problems.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            problems.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            problems.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
        elif method == "Network.loadingFailed":
            problems.append(f"failed load: {params.get('errorText')}")
    browser.send("Target.closeTarget", {"targetId": target})
    return {"problems": problems, **dom}


def _results(reg: pd.DataFrame) -> pd.DataFrame:
    """A small results table: every implemented cell of ``reg`` with values within ±1 % of the published ones."""
    rows = []
    picked = reg[reg["algorithm"].astype(str) != ""]
    for i, r in enumerate(picked.drop_duplicates(["algorithm", "params", "dataset", "dataset_params", "k",
                                                   "metric"]).itertuples()):
        for seed in ((0,) if r.rule == "exact" else (1, 2, 3)):
            rows.append({"dataset_id": r.dataset, "algo_id": r.algorithm, "algorithm": r.algorithm,
                         "params": r.params, "dataset": r.dataset, "dataset_params": r.dataset_params,
                         "k": int(r.k), "seed": seed, "metric": r.metric,
                         "value": float(r.value) * (1 + 0.01 * ((i + seed) % 3 - 1)),
                         "seconds": 0.01 * (1 + i % 5)})
    long = pd.DataFrame(rows)
    ident = ["dataset_id", "algo_id", "algorithm", "params", "dataset", "dataset_params", "k", "seed"]
    wide = long.pivot_table(index=ident, columns="metric", values="value", aggfunc="first").reset_index()
    wide["seconds"] = long.groupby(ident)["seconds"].first().to_numpy()
    wide["git_commit"] = "0123abc"
    wide["root_seed"] = "1"
    wide["version_mabench"] = "test"
    wide["machine_cpus"] = "2"
    return wide.replace({np.nan: None}).infer_objects()


def _registry() -> pd.DataFrame:
    """A slice of the registry that still exercises every kind of figure: IL against k with the "% vs MDAV"
    panel (Chettri Table 1), a table of unimplemented methods (P-S Table I's MDAV-MHM rows), the R–U map
    and the Δ heat map (thesis Table 4.4, Census rows) and a log-log scalability plot (thesis Table 4.5)."""
    reg = published.load()
    keep = ((reg["table"].isin(["Table I", "Table 1", "Table 4.5"]))
            | ((reg["table"] == "Table 4.4") & (reg["dataset"] == "census")))
    return reg[keep].reset_index(drop=True)


@pytest.fixture(scope="module")
def built_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    registry = _registry()
    pages = pages_module.write_report(_results(registry), out, registry)
    return out, pages, registry


def test_report_pages_are_self_contained(built_report):
    out, pages, registry = built_report
    assert {p.name for p in pages} == {"index.html", "leaderboard.html", "sdcmicro.html", "frontier.html"} | {
        f"{s}.html" for s in registry["source"].unique()}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        # nothing fetched from anywhere: every image is inline, no script, no external link
        assert "http://" not in text and "https://" not in text, page
        assert "<script" not in text, page
        assert 'src="data:image/png;base64,' in text, page


def test_report_renders_in_headless_chromium(built_report):
    exe = _browser()
    if exe is None:
        pytest.skip("no Chromium found (looked for chromium, chromium-browser, google-chrome; or set "
                    "MABENCH_CHROMIUM): install it with `apt-get install -y chromium` to run the browser test")
    out, pages, _ = built_report
    artifacts = Path(os.environ.get("MABENCH_ARTIFACTS", ROOT / "test-artifacts")) / "report"
    with tempfile.TemporaryDirectory() as profile:
        browser = Chromium(exe, profile)
        try:
            for page in pages:
                html = page.read_text(encoding="utf-8")
                expected_figures = html.count("<figure data-figure=")
                expected_tables = html.count("<table data-table=")
                seen = render(browser, page.resolve().as_uri(), artifacts / f"{page.stem}.png")
                assert not seen["problems"], f"{page.name}: {seen['problems']}"
                assert seen["title"].startswith("mabench"), page.name
                assert len(seen["figures"]) == expected_figures >= 1, page.name
                assert len(seen["images"]) >= expected_figures, page.name
                assert all(img["ok"] for img in seen["images"]), f"{page.name}: an image did not decode"
                assert len(seen["tables"]) == expected_tables >= 1, page.name
                assert seen["rows"] >= 1, page.name
                assert (artifacts / f"{page.stem}.png").stat().st_size > 1000
        finally:
            browser.close()


def test_the_browser_check_sees_console_errors_and_broken_images(tmp_path):
    """The check must be able to fail: a page with a console error and a broken image is caught."""
    exe = _browser()
    if exe is None:
        pytest.skip("no Chromium found: install it with `apt-get install -y chromium` to run the browser test")
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>mabench bad</title><link rel="icon" href="data:,"></head>'
                   '<body><img src="missing.png"><script>console.error("boom")</script></body></html>')
    with tempfile.TemporaryDirectory() as profile:
        browser = Chromium(exe, profile)
        try:
            seen = render(browser, bad.as_uri(), tmp_path / "bad.png")
        finally:
            browser.close()
    assert any("boom" in p for p in seen["problems"]), seen["problems"]
    assert any("failed load" in p for p in seen["problems"]), seen["problems"]
    assert not all(img["ok"] for img in seen["images"])
