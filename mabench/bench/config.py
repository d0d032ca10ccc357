"""A workflow configuration, loaded and checked in one place.

The one source of its defaults is the packaged schema (``config.schema.yaml`` beside this module):
:func:`with_defaults` fills every default it declares, nested ones included (as Snakemake's
``validate(..., set_default=True)`` would). :func:`load` reads a file for the commands
(``mabench compile``, ``regress``); :func:`prepare` is what the workflow (workflow/rules/common.smk)
calls on Snakemake's configuration. Both run :func:`check_config`, whose problems fail
`snakemake -n` with one line, before any job: duplicate keys in the YAML files (YAML keeps the last
one silently), the schema (one line naming the offending key), every plugin parameter against its
declared range, column selections of catalog data sets, univariate methods on multivariate data,
and the cost of generated data (n·d·8 bytes per draw, and all draws of a data set together); the
plan (:func:`mabench.bench.plan.build`) checks what needs the plugins and the data (k against n, ids).
"""

from __future__ import annotations

import copy
import functools
import os
from pathlib import Path

import yaml

from mabench.errors import UserError

# A workflow configuration is a few kilobytes of YAML (config/full.yaml: 6 kB); more is not one.
MAX_CONFIG_BYTES = 1024**2


def read_config_text(path, what: str = "config") -> str:
    """The text of a configuration file, refused in one line when it cannot be one: a device, a pipe
    or a folder (``/dev/zero`` would be read until memory runs out, a FIFO waits forever), more than
    MAX_CONFIG_BYTES, or not UTF-8. OSErrors other than these (a missing file) are the caller's."""
    import stat

    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a device or a pipe)"
        raise UserError(f"{what} {str(path)!r} is {kind}; give a YAML file")
    with open(path, "rb") as fh:  # bounded: a file that grows, or /proc's size 0, cannot make it unbounded
        data = fh.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise UserError(f"{what} {str(path)!r} is larger than {MAX_CONFIG_BYTES // 1024} KiB; a workflow "
                        "configuration is a short YAML file (see config/config.yaml)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{what} {str(path)!r} is not UTF-8 text; give a YAML file") from None


# One draw of a generated data set must fit in memory several times over (values, z-scores,
# a partition's working arrays): refuse a configuration whose draw alone needs more than this.
MAX_DRAW_BYTES = 2 * 1024**3
# All draws of one generated data set are prepared (written as data files) before any cell runs: their
# n*d*8 bytes together must fit a working disk, or the workflow fails hours in with the disk full.
MAX_PREPARED_BYTES = 64 * 1024**3


def _no_duplicate_keys(path: str) -> None:
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
        yaml.load(read_config_text(path), Loader=Strict)  # noqa: S506 - a SafeLoader subclass
    except OSError:
        return  # Snakemake reports a missing config file itself
    except yaml.YAMLError as exc:
        raise UserError(f"config {path}: not valid YAML ({' '.join(str(exc).split())[:200]})") from None
    if twice:
        key, line = twice[0]
        raise UserError(f"config {path}: key {key!r} appears twice (line {line}); YAML would silently keep "
                        "only the last one, so remove or rename one")


SCHEMA_FILE = Path(__file__).with_name("config.schema.yaml")


@functools.cache
def schema() -> dict:
    """The configuration's JSON schema (keys, ranges, defaults and descriptions of every key)."""
    return yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))


@functools.cache
def _filling_validator():
    """The schema's validator that also fills every default it meets (``properties`` of nested
    objects included), the way Snakemake's ``validate(set_default=True)`` does."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    properties = base.VALIDATORS["properties"]

    def fill(validator, props, instance, sub):
        if isinstance(instance, dict):
            for name, spec in props.items():
                if "default" in spec:
                    instance.setdefault(name, copy.deepcopy(spec["default"]))
        yield from properties(validator, props, instance, sub)

    return jsonschema.validators.extend(base, {"properties": fill})(schema())


def with_defaults(config: dict) -> dict:
    """A copy of a configuration with every default of the schema filled in (nothing else checked)."""
    out = copy.deepcopy(config)
    for _ in _filling_validator().iter_errors(out):
        pass  # the checks are check_config's; here only the filling matters
    return out


def _schema(cfg: dict, schema_path: str) -> None:
    import jsonschema

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
    if not spec or data.file_of(spec) is not None:
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
        draws = int(entry.get("draws") or 1)
        if n and d and draws * n * d * 8 > MAX_PREPARED_BYTES:
            return [f"{where}: {spec!r} x {draws} draws needs {draws * n * d * 8 / 1024**3:.1f} GiB of prepared "
                    f"data (limit {MAX_PREPARED_BYTES / 1024**3:.0f} GiB); choose fewer draws or a smaller n"]
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


def prepare(config: dict, files=()) -> None:
    """The workflow's configuration as Snakemake loaded it (``files``: its config files), in place:
    ``extends`` resolved (a file beside the last one), checked, every schema default filled in."""
    if config.get("extends") and files:
        merged = resolve_extends(dict(config), Path(os.path.abspath(files[-1])).parent)
        config.clear()
        config.update(merged)
    check_config(config, files, str(SCHEMA_FILE))
    filled = with_defaults(config)
    config.clear()
    config.update(filled)


def _read_yaml(path: Path, what: str, fix: str):
    try:
        return yaml.safe_load(read_config_text(path, what))
    except FileNotFoundError:
        raise UserError(f"{what} {str(path)!r} does not exist; {fix}") from None
    except (yaml.YAMLError, UnicodeDecodeError, IsADirectoryError):
        raise UserError(f"{what} {str(path)!r} is not valid YAML") from None


def resolve_extends(config: dict, folder: Path) -> dict:
    """A configuration with ``extends: BASE.yaml`` (a file in ``folder``) is that base with this
    file's keys laid over it: entries of ``algorithms`` and ``datasets`` are added or replaced by id,
    every other key replaced. So a configuration that runs more (``config/full.yaml``) names only what
    it adds to the default instead of copying it."""
    name = config.get("extends")
    if not name:
        return config
    path = Path(folder) / str(name)
    base = _read_yaml(path, "extends:", "name a configuration file beside this one")
    if not isinstance(base, dict):
        raise UserError(f"extends: {str(path)!r} is not a mapping of configuration keys")
    if base.get("extends"):
        raise UserError(f"extends: {str(path)!r} extends another file in turn; extend the base configuration directly")
    merged = dict(base)
    for key, value in config.items():
        if key == "extends":
            continue
        if key in ("algorithms", "datasets") and isinstance(value, dict):
            merged[key] = {**(base.get(key) or {}), **value}
        else:
            merged[key] = value
    return merged


def load(path: str | Path | None = None) -> dict:
    """A configuration file (default: the bundled ``config.yaml``) read, checked and with every schema
    default filled in: the same configuration the workflow builds its plan from."""
    from mabench import resources

    path = Path(path) if path else resources.config_path("config.yaml")
    config = _read_yaml(path, "config", "give --config FILE")
    if not isinstance(config, dict):
        raise UserError(f"config {str(path)!r} is not a workflow configuration (not a mapping of configuration keys); "
                        "see config/config.yaml")
    config = resolve_extends(config, path.parent)
    if not isinstance(config.get("algorithms"), dict) or not isinstance(config.get("datasets"), dict):
        raise UserError(f"config {str(path)!r} is not a workflow configuration: it needs the mappings `algorithms` "
                        "and `datasets` (see config/config.yaml)")
    for ds_id, entry in config["datasets"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
            raise UserError(f"config {str(path)!r}: datasets.{ds_id} needs a `spec` (e.g. spec: tarragona)")
    for algo_id, entry in config["algorithms"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("algorithm"), str):
            raise UserError(f"config {str(path)!r}: algorithms.{algo_id} needs an `algorithm` (e.g. algorithm: mdav)")
    check_config(config, [path], str(SCHEMA_FILE))
    return with_defaults(config)
