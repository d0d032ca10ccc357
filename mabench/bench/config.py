"""Checks of a workflow configuration that must fail `snakemake -n` with one line, before any job.

The workflow (workflow/rules/common.smk) calls :func:`check_config` on the configuration as
loaded, before Snakemake's own schema validation (whose error is the whole schema). What is checked
here: duplicate keys in the YAML files (YAML keeps the last one silently), the schema (one line
naming the offending key), every plugin parameter against its declared range, column selections
of catalog data sets, univariate methods on multivariate data, and the cost of generated data
(n·d·8 bytes) — the rest (k against n, ids) stays in common.smk.
"""

from __future__ import annotations

import os

from mabench.errors import UserError

# One draw of a generated data set must fit in memory several times over (values, z-scores,
# a partition's working arrays): refuse a configuration whose draw alone needs more than this.
MAX_DRAW_BYTES = 2 * 1024**3


def _no_duplicate_keys(path: str) -> None:
    import yaml

    class Strict(yaml.SafeLoader):
        pass

    twice = []

    def mapping(loader, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                twice.append((key, key_node.start_mark.line + 1))
            seen.add(key)
        return loader.construct_mapping(node, deep)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        with open(path, encoding="utf-8") as fh:
            yaml.load(fh, Loader=Strict)  # noqa: S506 - a SafeLoader subclass
    except OSError:
        return  # Snakemake reports a missing config file itself
    except yaml.YAMLError as exc:
        raise UserError(f"config {path}: not valid YAML ({' '.join(str(exc).split())[:200]})") from None
    if twice:
        key, line = twice[0]
        raise UserError(f"config {path}: key {key!r} appears twice (line {line}); YAML would silently keep "
                        "only the last one, so remove or rename one")


def _schema(cfg: dict, schema_path: str) -> None:
    import jsonschema
    import yaml

    with open(schema_path, encoding="utf-8") as fh:
        schema = yaml.safe_load(fh)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(cfg))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise UserError(f"config {where}: {' '.join(error.message.split())[:300]}")


def _dataset_problems(ds_id: str, entry: dict, algorithms: dict) -> list[str]:
    import numpy as np

    from mabench import data, discovery
    from mabench.data import fetch
    from mabench.data.loader import Dataset

    where = f"datasets.{ds_id}"
    spec = str(entry.get("spec", "")).strip()
    if not spec or data.looks_like_path(spec):
        return []
    try:
        name, params = data.parse_spec(spec)
        own, selection = data.split_selection(spec, params)
    except UserError as exc:
        return [f"{where}: {exc}"]
    catalog, generators = fetch.catalog(), discovery.generators()
    d = None
    if name in catalog:
        columns = list(catalog[name]["columns"])
        try:
            d = len(data.select_columns(Dataset(name, np.empty((0, len(columns))), columns, {}, 0, {}),
                                        selection, spec).columns)
        except UserError as exc:
            return [f"{where}: {exc}"]
    elif name in generators:
        try:
            resolved = generators[name].resolve(own)
        except UserError as exc:
            return [f"{where}: {exc}"]
        n = resolved.get("n") or (resolved.get("clusters", 0) * resolved.get("per_cluster", 0)) or None
        d = resolved.get("d")
        if n and d and n * d * 8 > MAX_DRAW_BYTES:
            return [f"{where}: {spec!r} needs n*d*8 = {n * d * 8 / 1024**3:.1f} GiB per draw (limit "
                    f"{MAX_DRAW_BYTES / 1024**3:.0f} GiB); choose a smaller n or d"]
        if selection:
            d = None  # generated column names are known only once drawn
    else:
        return []  # common.smk names the unknown data set
    problems = []
    ids = entry.get("algorithms") or [a for a, e in algorithms.items() if (e or {}).get("on_every_dataset", True)]
    for algo_id in ids:
        plugin = (algorithms.get(algo_id) or {}).get("algorithm")
        try:
            algo = discovery.algorithm(plugin)
        except UserError:
            continue
        limit = getattr(algo, "max_columns", None)
        if d is not None and limit is not None and d > limit:
            problems.append(f"{where}: algorithm {plugin} ({algo_id}) takes at most {limit} column(s) but {spec!r} "
                            f"has {d}; select columns, e.g. {name}[columns=1], or remove it from this data set")
    return problems


def check_config(cfg: dict, files=(), schema_path: str | None = None) -> None:
    """Raise one UserError line for the first problem of a workflow configuration (see module doc)."""
    from mabench import discovery

    for path in files or ():
        _no_duplicate_keys(os.fspath(path))
    if schema_path is not None:
        _schema(cfg, schema_path)
    if not isinstance(cfg, dict):
        raise UserError("config: the configuration must be a mapping (see config/config.yaml)")
    algorithms = cfg.get("algorithms") or {}
    problems = []
    for algo_id, entry in algorithms.items():
        entry = entry or {}
        try:
            discovery.algorithm(entry.get("algorithm")).resolve(
                {str(k): str(v) for k, v in (entry.get("params") or {}).items()})
        except UserError as exc:
            problems.append(f"algorithms.{algo_id}: {exc}")
    for ds_id, entry in (cfg.get("datasets") or {}).items():
        problems += _dataset_problems(ds_id, entry or {}, algorithms)
    if problems:
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise UserError(f"invalid workflow configuration: {problems[0]}{more}")
