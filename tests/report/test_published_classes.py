"""Cause classes of the numbers that do not hold (docs/published.md, "Cause classes").

The registry's classes must satisfy their evidence rules; ``harness-better`` is decided from the
numbers by compare(); class_problems() reports a non-reproduction without a class or with a class
whose rule it breaks; the tables' index leads with the per-class counts and lists open numbers as
questions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mabench.report import published as P, tables
from support import ROOT

ANCHORS = P.findings_anchors((ROOT / "docs" / "findings.md").read_text())


def reg_row(**kw) -> dict:
    row = dict(source="ps2010", seed_file="004_d1273daa16c98592.txt", table="Table X", row="r", column="c",
               dataset="census", dataset_params="", algorithm="mdav", params="tail=3k", k=3, metric="il",
               value="5.692", decimals=3, rounding="round", rule="exact", tolerance=0.01,
               note="the seeds do not give the order (004_d1273daa16c98592.txt §IV)", cause_class="under-specified",
               evidence="")
    row.update(kw)
    row["decimals"] = len(row["value"].split(".")[1]) if "." in row["value"] else 0
    return row


def compare(rows, values, dataset="census"):
    res = [dict(algorithm="mdav", params="tail=3k", dataset=dataset, dataset_params="", k=3, seed=s, il=v)
           for s, v in enumerate(values)]
    return P.compare(pd.DataFrame(rows, columns=P.COLUMNS), pd.DataFrame(res))


# ------------------------------------------------------------------ the registry
def test_every_registry_class_meets_its_rule():
    reg = P.load()  # raises on any broken class rule
    assert set(reg["cause_class"]) <= set(P.REGISTRY_CLASSES) | {""}
    assert "harness-better" not in set(reg["cause_class"])
    src = reg[reg["cause_class"] == "source-error"]
    assert len(src) > 100
    cited = reg[reg["evidence"].str.startswith("docs/findings.md#")]
    assert len(cited) >= len(src)
    anchors = set(cited["evidence"].str.partition("#")[2])
    assert anchors <= ANCHORS, f"evidence that is not a heading of docs/findings.md: {anchors - ANCHORS}"


def test_every_explained_miss_has_a_class():
    # a row with a cause note and an expected miss carries a class; the stochastic ones are draws rows
    reg = P.load()
    assert (reg.loc[reg["metric"].isin(P.MACHINE_METRICS), "cause_class"] == "machine").all()
    assert (reg.loc[reg["cause_class"] == "stochastic", "rule"] == "draws").all()
    quoted = reg[reg["note"].str.startswith("quoted by P-S")]
    assert len(quoted) > 80 and (quoted["cause_class"] == "quoted").all()


def test_open_rows_say_what_was_tried():
    reg = P.load()
    opened = reg[reg["cause_class"] == "open"]
    assert len(opened) >= 1
    assert (opened["note"].str.len() > 40).all()


@pytest.mark.parametrize("change, message", [
    (dict(cause_class="source-error", evidence=""), "needs evidence docs/findings.md"),
    (dict(cause_class="source-error", evidence="docs/algorithms/mdav.md#x"), "needs evidence docs/findings.md"),
    (dict(cause_class="stochastic"), "stochastic is for draws rows"),
    (dict(cause_class="machine"), "machine is for"),
    (dict(cause_class="quoted"), "quoted needs a note"),
    (dict(cause_class="open", note=""), "needs a note"),
    (dict(cause_class="harness-better"), "harness-better"),
    (dict(cause_class="maybe"), "cause_class"),
])
def test_load_rejects_a_class_that_breaks_its_rule(tmp_path, change, message):
    path = tmp_path / "p.csv"
    pd.DataFrame([reg_row()], columns=P.COLUMNS).to_csv(path, index=False)
    P.load(path)
    pd.DataFrame([reg_row(**change)], columns=P.COLUMNS).to_csv(path, index=False)
    with pytest.raises(RuntimeError, match=message):
        P.load(path)


# ------------------------------------------------------------------ harness-better, from the numbers
@pytest.mark.parametrize("values, dataset, rule, expected", [
    ([5.60], "census", "exact", "harness-better"),        # 0.092 below the print, beyond 0.01
    ([5.80], "census", "exact", "under-specified"),       # above: the registry's class
    ([5.685], "census", "exact", ""),                      # within tolerance: no class
    ([5.60, 5.61, 5.59], "sim1", "draws", "under-specified"),  # random data: the gap is the data's
    ([5.60, 5.61, 5.59], "census", "draws", "harness-better"),  # randomized method on fixed data
])
def test_harness_better_is_decided_from_the_numbers(values, dataset, rule, expected):
    row = reg_row(dataset=dataset, rule=rule, tolerance=0.01 if rule == "exact" else np.nan)
    out = compare([row], values, dataset=dataset).iloc[0]
    assert out["class"] == expected
    assert P.class_problems(compare([row], values, dataset=dataset), ANCHORS) == []


def test_a_proven_source_error_is_not_harness_better():
    row = reg_row(cause_class="source-error", evidence="docs/findings.md#thesis-census-si-does-not-follow-eq-44")
    out = compare([row], [5.60])
    assert (out["verdict"].iloc[0], out["class"].iloc[0]) == ("not reproduced", "source-error")
    assert P.class_problems(out, ANCHORS) == []


def test_harness_better_needs_an_objective():
    row = reg_row(metric="dld", value="5.692")
    res = pd.DataFrame([dict(algorithm="mdav", params="tail=3k", dataset="census", dataset_params="", k=3,
                             seed=0, dld=5.0)])
    out = P.compare(pd.DataFrame([row], columns=P.COLUMNS), res).iloc[0]
    assert (out["verdict"], out["class"]) == ("not reproduced", "under-specified")


# ------------------------------------------------------------------ class_problems
def test_class_problems_flags_a_miss_without_a_class():
    out = compare([reg_row(cause_class="", note="")], [5.80])
    assert out["verdict"].iloc[0] == "not reproduced"
    assert any("no cause class" in p for p in P.class_problems(out, ANCHORS))


def test_class_problems_flags_harness_better_the_numbers_do_not_support():
    out = compare([reg_row()], [5.80])
    out.loc[0, "class"] = "harness-better"
    assert any("the numbers say not harness-better" in p for p in P.class_problems(out, ANCHORS))
    out = compare([reg_row()], [5.60])
    out.loc[0, "class"] = "under-specified"
    assert any("the numbers say harness-better" in p for p in P.class_problems(out, ANCHORS))


def test_class_problems_flags_a_source_error_without_its_findings_section():
    good = "docs/findings.md#thesis-census-si-does-not-follow-eq-44"
    out = compare([reg_row(cause_class="source-error", evidence=good)], [5.80])
    assert P.class_problems(out, ANCHORS) == []
    out = compare([reg_row(cause_class="source-error", evidence="docs/findings.md#no-such-section")], [5.80])
    assert any("not a heading of docs/findings.md" in p for p in P.class_problems(out, ANCHORS))


def test_findings_anchors_follow_the_markdown_slugs():
    assert P.findings_anchors("## Thesis Census SI does not follow Eq. 4.4\n## G_IL (%) & more") == {
        "thesis-census-si-does-not-follow-eq-44", "g_il---more"}


# ------------------------------------------------------------------ the tables lead with it
def test_index_leads_with_the_class_counts_and_open_questions(tmp_path):
    rows = [reg_row(row="a"), reg_row(row="b", cause_class="open", note="tried the 2k tail and the 3k tail"),
            reg_row(row="c", cause_class="source-error", evidence="docs/findings.md#thesis-census-si-does-not-follow-eq-44"),
            reg_row(row="d", value="5.600"), reg_row(row="e", value="5.800")]
    registry = pd.DataFrame(rows, columns=P.COLUMNS)
    results = pd.DataFrame([dict(algorithm="mdav", params="tail=3k", dataset="census", dataset_params="", k=3,
                                 seed=0, il=5.75)])
    compared = tables.write_tables(results, tmp_path, registry=registry)
    assert P.class_counts(compared) == {"open": 1, "source-error": 1, "under-specified": 2, "quoted": 0,
                                        "stochastic": 0, "machine": 0, "harness-better": 1}
    text = (tmp_path / "index.md").read_text()
    head = text.split("| Source |")[0]
    assert "5 not reproduced (1 open, 1 source-error, 2 under-specified, 1 harness-better)" in head
    questions = text.split("## Open questions")[1].split("##")[0]
    assert "Why does ps2010 Table X print 5.692 for b / c" in questions and "tried the 2k tail" in questions
    assert text.index("### open") < text.index("### source-error") < text.index("### harness-better")


def test_report_pages_lead_with_the_classes(tmp_path):
    from mabench.report import pages

    rows = [reg_row(row="a", table="Table 1"), reg_row(row="b", table="Table 1", cause_class="open",
                                                     note="tried the 2k tail and the 3k tail"),
            reg_row(row="c", table="Table 1", cause_class="source-error",
                    evidence="docs/findings.md#thesis-census-si-does-not-follow-eq-44")]
    registry = pd.DataFrame(rows, columns=P.COLUMNS)
    results = pd.DataFrame([dict(algorithm="mdav", params="tail=3k", dataset="census", dataset_params="", k=3,
                                 seed=0, il=5.75)])
    pages.write_report(results, tmp_path, registry=registry)
    index = (tmp_path / "index.html").read_text()
    assert "3 not reproduced (1 open, 1 source-error, 1 under-specified)" in index
    page = (tmp_path / "ps2010.html").read_text()
    assert page.index('data-class="open"') < page.index('data-class="source-error"') < \
        page.index('data-class="under-specified"')
    assert "Why does ps2010 Table 1 print 5.692 for b / c" in page
