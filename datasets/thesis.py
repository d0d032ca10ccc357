"""Simulated data sets of the Fayyoumi thesis (Carleton 2008).

Source: seed ``001_26cfb99743cbb1f3.txt``, §4.5.1 "Data Sets" (items 3-6 and
the two properties of the simulated sets that follow them) and §5.4.1 "Data
Sets" (same items; items 3-4 redrawn at larger sizes). The thesis used
"Matlab's built-in functions" and reports no seeds. Every generator draws only
from the ``rng`` the engine passes in, so equal seeds give byte-identical data.
Columns are named ``V1..Vd``.

* ``uniform`` (item 3): continuous U[low, high], default U[0, 1000], the
  analogue of Matlab ``low + (high-low)*rand(n, d)``. Used by the scalability
  grids: Tables 4.5-4.7 (d = 16, n = 1,200..5,400; n = 3,000, d = 12..22;
  n = 2,400, d = 16) and Tables 5.3-5.5 (d = 10, n = 10k..100k; n = 10k,
  d = 10..80).
* ``normal`` (item 4): N(mu, sigma^2), default mu = 0, sigma = 0.05 (Matlab
  ``mu + sigma*randn(n, d)``). Same grids.
* ``uniform_si`` (item 5): U[0, 40000], 4,800 x 16. Tables 4.3/4.4/5.1/5.2.
* ``normal_si`` (item 6): N(500, 150^2), 1,560 x 16. Same tables.

Defaults of ``uniform``/``normal`` are n = 3,000, d = 16 (the centre of the
Chapter 4 grids: Table 4.6 fixes n = 3,000, Tables 4.5/4.7 fix d = 16); the
workflow sets n and d per grid point.

Choices where the thesis is ambiguous (001_26cfb99743cbb1f3.txt §4.5.1, §5.4.1;
evidence in docs/findings.md):

1. SI sets: the thesis draws 10,000 (uniform) / 6,000 (normal) records, speaks
   of "repetition in the data" and keeps 4,800 / 1,560 records by an unstated
   rule. Chosen: **draw n records directly and round every value to the
   nearest integer** (``numpy.rint``: halves to even). Integers reproduce the
   repeated values the thesis mentions; no record is filtered. Normal values
   are not truncated (a few may be negative).
2. Key variables of the SI sets are "the variables with the minimum number of
   repeated values" (3 for uniform, 5 for normal). That depends on the draw, so
   the generators declare a rule for the metrics instead of fixed names:
   ``{"key_variables_rule": "fewest_repeats", "n_key_variables": m}``. The rule
   is implemented by :func:`fewest_repeats`: count, per column, repeats =
   n - (number of distinct values); sort columns by (repeats, column index)
   ascending; take the first m. Ties therefore go to the earlier column.
3. Interval disclosure on simulated data uses P = 1..30 % (the thesis: at
   1..10 % everything was 0), so every generator here declares
   ``id_p = [1, ..., 30]``.
4. Draw order: one (n, d) block, row-major (records are rows).
"""

from __future__ import annotations

import numpy as np

from mabench.plugin import MAX_COLUMNS, MAX_RECORDS, Generator, Param
from mabench.errors import UserError

SOURCE = "001_26cfb99743cbb1f3.txt (Fayyoumi 2008 thesis), §4.5.1 and §5.4.1 Data Sets"
MAX_CELLS = 200_000_000  # ~1.6 GB of float64; anything larger is a typo
ID_P_SIMULATED = list(range(1, 31))


def _check(owner: str, n: int, d: int) -> None:
    for name, value in (("n", n), ("d", d)):
        if value < 1:
            raise UserError(f"data set {owner}: parameter {name} must be at least 1, got {value}")
    if n * d > MAX_CELLS:
        raise UserError(f"data set {owner}: n*d = {n * d} values is too large (limit {MAX_CELLS})")


def _columns(d: int) -> list[str]:
    return [f"V{j + 1}" for j in range(d)]


def _uniform(owner: str, rng: np.random.Generator, n: int, d: int, low: float, high: float) -> np.ndarray:
    _check(owner, n, d)
    if not (np.isfinite(low) and np.isfinite(high) and high > low):
        raise UserError(f"data set {owner}: need finite low < high, got low={low}, high={high}")
    return low + (high - low) * rng.random((n, d))


def _normal(owner: str, rng: np.random.Generator, n: int, d: int, mu: float, sigma: float) -> np.ndarray:
    _check(owner, n, d)
    if not (np.isfinite(mu) and np.isfinite(sigma) and sigma > 0):
        raise UserError(f"data set {owner}: need finite mu and sigma > 0, got mu={mu}, sigma={sigma}")
    return mu + sigma * rng.standard_normal((n, d))


def uniform(rng, n: int, d: int, low: float, high: float):
    return _uniform("uniform", rng, n, d, low, high), _columns(d)


def normal(rng, n: int, d: int, mu: float, sigma: float):
    return _normal("normal", rng, n, d, mu, sigma), _columns(d)


def uniform_si(rng, n: int, d: int, low: float, high: float):
    return np.rint(_uniform("uniform_si", rng, n, d, low, high)), _columns(d)


def normal_si(rng, n: int, d: int, mu: float, sigma: float):
    return np.rint(_normal("normal_si", rng, n, d, mu, sigma)), _columns(d)


def fewest_repeats(values: np.ndarray, columns: list[str], m: int) -> list[str]:
    """The ``key_variables_rule: fewest_repeats`` rule: the m columns with the fewest repeated values.

    repeats(j) = n - |distinct values of column j|; columns are ranked by
    (repeats, position) ascending, so ties go to the earlier column.
    """
    values = np.asarray(values)
    m = max(0, min(int(m), values.shape[1]))
    repeats = np.array([values.shape[0] - np.unique(values[:, j]).size for j in range(values.shape[1])])
    order = np.lexsort((np.arange(values.shape[1]), repeats))
    return [columns[j] for j in order[:m]]


def _size_params(n: int, d: int) -> dict[str, Param]:
    return {"n": Param(n, "number of records", min=1, max=MAX_RECORDS),
            "d": Param(d, "number of variables", min=1, max=MAX_COLUMNS)}


def _bounds(high: float, shown: str) -> dict[str, Param]:
    return {"low": Param(0.0, "lower bound (thesis: 0)"), "high": Param(high, f"upper bound (thesis: {shown})")}


def _spread(mu: float, sigma: float) -> dict[str, Param]:
    return {"mu": Param(mu, f"mean (thesis: {mu:g})"),
            "sigma": Param(sigma, f"standard deviation (thesis: {sigma:g})", min=0.0, above=True)}


def _thesis_set(generate, item: int, n: int, params: dict, title: str, notes: str, key_variables: int = 0) -> Generator:
    """One of the four sets, d = 16 by default: an SI set (``key_variables`` > 0: its rule's m) in the
    thesis's SI tables, the others in its scalability grids; interval disclosure at P = 1..30 % for all."""
    tables = "Tables 4.3, 4.4, 5.1, 5.2" if key_variables else "Tables 4.5-4.7, 5.3-5.5"
    rule = {"key_variables_rule": "fewest_repeats", "n_key_variables": key_variables} if key_variables else {}
    return Generator(name=generate.__name__, title=title, citation=SOURCE + f" (item {item}; {tables})",
                     generate=generate, params={**_size_params(n, 16), **params}, notes=notes,
                     metric_options={**rule, "id_p": list(ID_P_SIMULATED)})


_GRID_NOTE = " Defaults n=3000, d=16 (Ch. 4 grid centre)."
_SI_NOTE = ("Chosen subsetting rule: draw n records directly and round to integers (numpy.rint); no filtering. "
            "Key variables: the {m} columns with the fewest repeated values (rule fewest_repeats, ties to the "
            "earlier column).")

GENERATORS = [
    _thesis_set(uniform, 3, 3000, _bounds(1000.0, "1000"), "Uniform U[low, high] (Fayyoumi thesis item 3, scalability "
                "grids)", "Continuous, like Matlab rand scaled to [low, high]." + _GRID_NOTE),
    _thesis_set(normal, 4, 3000, _spread(0.0, 0.05), "Normal N(mu, sigma^2) (Fayyoumi thesis item 4, scalability grids)",
                "Continuous, like Matlab mu + sigma*randn." + _GRID_NOTE),
    _thesis_set(uniform_si, 5, 4800, _bounds(40000.0, "40,000"), "Uniform U[0, 40000], integer-valued, 4800 x 16 "
                "(thesis SI set, item 5)", _SI_NOTE.format(m=3), key_variables=3),
    _thesis_set(normal_si, 6, 1560, _spread(500.0, 150.0), "Normal N(500, 150^2), integer-valued, 1560 x 16 (thesis SI "
                "set, item 6)", _SI_NOTE.format(m=5) + " Values are not truncated at 0.", key_variables=5),
]
