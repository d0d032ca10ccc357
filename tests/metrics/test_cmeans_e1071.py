"""clustermethod = "cmeans" against e1071's ``cmeans`` (what sdcMicro's cmeans branch calls before it
stops, docs/findings.md): from the same starting centres, the same centres to 1e-12 and the same
clusters, on standardized Tarragona (5 columns) with 3 centres (converged after 31 iterations) and
6 centres (stopped at the 100-iteration limit). Fixture: make_cmeans_fixture.R, provenance.json."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from mabench.kernels.methods.sdc_clusterings import cmeans_from
from support import FIXTURES


@pytest.fixture(scope="module")
def ref():
    with gzip.open(FIXTURES / "sdcmicro_measures" / "cmeans.json.gz", "rt") as fh:
        return json.load(fh)


@pytest.mark.parametrize("case", [0, 1])
def test_cmeans_equals_e1071_from_the_same_start(ref, case):
    x = np.array([[float(v) for v in row] for row in ref["x"]])
    want = ref["cases"][case]
    start = x[np.array(want["start_rows"]) - 1].copy()
    labels, centres = cmeans_from(x, start)
    np.testing.assert_allclose(centres, np.array([[float(v) for v in row] for row in want["centers"]]),
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(labels + 1, want["cluster"])
