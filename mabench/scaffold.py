"""``mabench new method NAME``: a working plugin file and its test, to start a method from.

The plugin goes to ``DIR/algorithms/NAME.py`` (with ``MABENCH_HOME=DIR`` every mabench command sees
it) and its test to ``DIR/tests/test_NAME.py``, which runs the generic checks of :mod:`mabench.testing`.
docs/method-authors.md walks on from there to the leaderboard and the regression gate.
"""

from __future__ import annotations

import re
from pathlib import Path

from mabench.errors import UserError

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")

PLUGIN = '''"""{name} — one line saying what the method does.

Cite the source it implements (file or paper + section) and state every choice made where the source
is silent (tie rule, end game); docs/method-authors.md. How it scales is declared once, in ALGORITHM
(time=, memory=), not here.
"""

import numpy as np

from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    """Labels 0..g-1, one per record (an int64 array of n), every group of k..2k-1 records.

    Z: the standardized (n, d) float64 data (do not change it in place); rng: the only source of
    randomness allowed (a numpy Generator seeded per cell).
    """
    n = Z.shape[0]
    # The template's method: sort the records by their first column (or, with by=sum, by the sum of
    # their z-scores) and cut consecutive groups of k; the last group takes the remainder.
    key = Z.sum(axis=1) if params["by"] == "sum" else Z[:, 0]
    order = np.argsort(key, kind="stable")  # ties: the lowest record index first
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, max(n // k, 1) - 1)
    return labels


ALGORITHM = Algorithm(
    name="{name}",
    title="{name} (template: sort by one key, cut groups of k)",
    citation="the source this implements (file name + section)",
    run=run,
    params={{"by": Param("first", "sorting key: the first column or the sum of the z-scores", ("first", "sum"))}},
    test_params=({{"by": "sum"}},),
    deterministic=True,  # False if run() uses rng
    time="O(n log n + n·d)",
    memory="O(n·d)",
    # max_group_size defaults to 2k-1 and memory_bytes to an O(n·d) run; declare them if yours differ.
)
'''

TEST = '''"""The generic plugin checks (mabench.testing) on {name}: valid partitions on tiny, tie-heavy,
duplicated and one-column data at k = 2, 3, 5; group sizes within the declared bound; the same seed
gives the same labels; parameters validated."""

from pathlib import Path

from mabench.testing import assert_plugin_passes

PLUGIN = Path(__file__).resolve().parents[1] / "algorithms" / "{name}.py"


def test_{name}_passes_the_plugin_checks():
    assert_plugin_passes(str(PLUGIN))
'''


def new_method(name: str, folder: str | Path = ".") -> list[Path]:
    """Write the plugin and its test under ``folder``; returns the files written."""
    from mabench import discovery, io

    if not _NAME.match(name):
        raise UserError(f"method name {name!r} must be lower-case letters, digits and _ and start with a letter "
                        "(it is a Python module name), e.g. pc1cut")
    if name in {p.stem for p in discovery.builtin_folder("algorithms").glob("*.py")}:
        raise UserError(f"{name!r} is the name of a built-in method; choose another name")
    root = Path(folder)
    files = {root / "algorithms" / f"{name}.py": PLUGIN.format(name=name),
             root / "tests" / f"test_{name}.py": TEST.format(name=name)}
    for path in files:
        if path.exists():
            raise UserError(f"{path} exists; choose another name or --dir, or remove it")
    with io.outputs() as out:  # both files or neither
        for path, text in files.items():
            out.write_text(path, text)
    return list(files)
