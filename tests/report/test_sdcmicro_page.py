"""The "mabench vs sdcMicro" page and the measured comparison it shows (docs/sdcmicro.md)."""

from __future__ import annotations

import html

import pandas as pd

from mabench.report import sdcmicro
from support import ROOT

DOCS = ROOT / "docs" / "sdcmicro" / "agreement.csv"
BUNDLED = ROOT / "registry" / "sdcmicro_agreement.csv"
REAL = ("tarragona", "census", "eia")


def test_the_bundled_copy_is_the_documented_comparison():
    assert BUNDLED.read_bytes() == DOCS.read_bytes()


def test_the_comparison_covers_every_method_on_the_real_sets_and_deterministic_ones_agree():
    table = pd.read_csv(DOCS)
    for dataset in REAL:
        part = table[table["dataset"] == dataset]
        assert {"mdav", "rmd", "pca", "mcdpca", "pppca", "clustpca", "clustpppca", "clustmcdpca", "influence",
                "onedims", "single", "simple"} <= set(part["method"]), dataset
        exact = part[part["deterministic"].astype(str) == "True"].dropna(subset=["il_sdcmicro"])
        assert set(exact["method"]) >= {"mdav", "onedims", "single", "simple"}
        for row in exact.itertuples():
            assert row.records_equal_up_to_duplicates == 1.0, (dataset, row.method, row.k)
            assert abs(row.il_mabench - row.il_sdcmicro) <= 1e-9 * row.il_sdcmicro


def test_page_shows_both_sides_and_the_workflow_il():
    results = pd.DataFrame([{"algo_id": "rmd", "dataset_id": "tarragona", "k": 3, "il": 12.3456, "seed": 0}])
    body = sdcmicro.page_body(results, html.escape, lambda png, caption, name: f"<figure>{name}</figure>")
    assert "mabench vs sdcMicro" in body and "<figure>sdcmicro_il</figure>" in body
    for dataset in REAL:
        assert f"<h2>{dataset}</h2>" in body
    assert "12.346" in body  # the workflow's own IL beside the comparison
    assert body.count("<table") >= 3
