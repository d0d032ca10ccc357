"""What exists and how to get it: the methods, the data sets, and a data set as a DataFrame.

Part of the Python API (:mod:`mabench.api` re-exports these names; ``mabench.methods()`` etc.).
"""

from __future__ import annotations

import pandas as pd

from mabench.api_terms import in_api_terms


def methods() -> list[dict]:
    """Every microaggregation method: name, title, citation and parameters.

    Returns
    -------
    list of dict
        One dict per method: ``name``, ``title``, ``citation``, ``deterministic`` and ``parameters``
        (``{name: {"default", "choices", "doc"}}``; ``choices`` is None when any value of the
        default's type is allowed).

    Examples
    --------
    >>> import mabench
    >>> mdav = next(m for m in mabench.methods() if m["name"] == "mdav")
    >>> mdav["parameters"]["tail"]["default"]
    '3k'
    """
    from mabench import discovery

    out = []
    for name, algo in sorted(discovery.algorithms().items()):
        out.append({
            "name": name, "title": algo.title, "citation": algo.citation, "deterministic": algo.deterministic,
            "parameters": {p: {"default": v.default, "choices": None if v.choices is None else list(v.choices),
                               "doc": v.doc} for p, v in algo.params.items()},
        })
    return out


def scaling_table() -> str:
    """How each method grows, as a Markdown table generated from its declaration (``Algorithm.time``,
    ``Algorithm.memory``; stated nowhere else): the table of docs/scaling.md.

    Examples
    --------
    >>> from mabench.catalog import scaling_table
    >>> scaling_table().splitlines()[0]
    '| method | time | memory |'
    """
    from mabench import discovery

    def cell(text: str) -> str:
        return (text or "not declared").replace("|", "\\|")

    rows = [f"| `{name}` | {cell(algo.time)} | {cell(algo.memory)} |" for name, algo in sorted(discovery.algorithms().items())]
    return "\n".join(["| method | time | memory |", "|---|---|---|", *rows])


def datasets() -> list[dict]:
    """Every data set :func:`load` knows: the fetched catalog and the generators.

    Returns
    -------
    list of dict
        ``name``, ``kind`` ("fetched" or "generated"), ``title`` and, for generators, ``parameters``
        (``{name: default}``).

    Examples
    --------
    >>> import mabench
    >>> [d["name"] for d in mabench.datasets() if d["kind"] == "fetched"]
    ['census', 'eia', 'tarragona']
    """
    from mabench import data, discovery
    from mabench.data import fetch

    cat, gens = fetch.catalog(), discovery.generators()
    out = []
    for name in data.names():
        if name in cat:
            out.append({"name": name, "kind": "fetched", "title": cat[name]["title"]})
        else:
            out.append({"name": name, "kind": "generated", "title": gens[name].title,
                        "parameters": {p: v.default for p, v in gens[name].params.items()}})
    return out


@in_api_terms
def load(name: str, seed: int = 0) -> pd.DataFrame:
    """A catalog or generated data set (or a file) as a DataFrame, in original units.

    Parameters
    ----------
    name : str
        ``"tarragona"``, ``"census"``, ``"eia"``, a generator with parameters
        (``"uniform[n=300,d=3]"``), or a CSV/Parquet path.
    seed : int, default 0
        Seed of a generated data set's draw.

    Examples
    --------
    >>> import mabench
    >>> mabench.load("tarragona").shape
    (834, 13)
    >>> mabench.load("uniform[n=300,d=3]", seed=1).shape
    (300, 3)
    """
    from mabench import data
    from mabench.data.seeds import check_seed

    return data.load(str(name), check_seed(seed)).frame()
