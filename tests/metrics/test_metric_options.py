"""Each metric declares the options it reads next to its definition (``@metric(..., options={...})`` or
``option(name, description)`` where several metrics read one); the validation and ``mabench list metrics``
read the declarations. No central table of option descriptions (issue 38 item 6)."""

from __future__ import annotations

import ast

import pytest

from support import ROOT, assert_user_error
from mabench import metrics
from mabench.errors import UserError
from mabench.metrics import context

# Every option name mabench has accepted: each must stay known.
KNOWN = {"key_variables", "key_variables_rule", "n_key_variables", "id_p", "linkage_ties", "linkage_search", "dld_scale",
         "rld_scale", "rld_mode", "rld_sizes", "si_x", "sdid_p", "rmd_k", "rmd_k2", "rmd_seed", "rl_distance",
         "rl_variables", "rl_weights", "rl_ids"}


def test_every_option_is_declared_by_a_metric_that_reads_it():
    read = {o for m in metrics.REGISTRY.values() for o in m.options}
    assert set(metrics.OPTIONS) == read == KNOWN
    assert all(metrics.OPTIONS[o].strip() for o in KNOWN)


def test_the_metrics_package_holds_no_central_table_of_options():
    tree = ast.parse((ROOT / "mabench" / "metrics" / "__init__.py").read_text())
    assigned = {t.id for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    assert "OPTIONS" not in assigned
    # and each metric module declares the options it introduces (the descriptions live there)
    for name in ("disclosure", "score", "sdcmicro", "sdcmicro_risk", "record_linkage"):
        text = (ROOT / "mabench" / "metrics" / f"{name}.py").read_text()
        assert "option(" in text or "options={" in text, name


def test_a_declared_option_is_validated_and_listed(monkeypatch):
    monkeypatch.setattr(context, "REGISTRY", dict(context.REGISTRY))
    monkeypatch.setattr(context, "OPTIONS", dict(context.OPTIONS))
    monkeypatch.setattr(metrics, "REGISTRY", context.REGISTRY)
    monkeypatch.setattr(metrics, "OPTIONS", context.OPTIONS)

    @context.metric("test_only_metric", doc="a metric of this test", options={"test_only_x": "the x of this test"})
    def _m(ctx):
        return 0.0

    metrics.check_options({"test_only_x": 1})  # known now
    line = next(line for line in metrics.listing() if line.startswith("test_only_metric\t"))
    assert "test_only_x (the x of this test)" in line
    with pytest.raises(RuntimeError, match="declared twice"):
        context.option("test_only_x", "another description")


def test_an_unknown_option_is_still_refused_with_the_known_ones_named():
    with pytest.raises(UserError) as err:
        metrics.check_options({"id_q": 1})
    assert "unknown metric option 'id_q'" in str(err.value) and "id_p" in str(err.value)


def test_list_metrics_describes_each_option_from_its_declaration(cli_main):
    proc = cli_main("list", "metrics")
    assert proc.returncode == 0, proc.stderr
    for name, m in metrics.REGISTRY.items():
        line = next(line for line in proc.stdout.splitlines() if line.startswith(name + "\t"))
        for o in m.options:
            assert f"{o} ({metrics.OPTIONS[o]})" in line, (name, o)
    proc = cli_main("run", "mdav", "tarragona", "-k", "3", "--option", "id_q=1")
    assert_user_error(proc, "unknown metric option 'id_q'")
