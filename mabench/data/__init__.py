"""The data layer: data sets by name, file or generator spec (:mod:`.loader`), the fetched
catalog (:mod:`.fetch`), z-scores (:mod:`.standardize`) and the seed of every draw (:mod:`.seeds`)."""

from mabench.data.loader import (  # noqa: F401  (the layer's interface)
    CSV_SUFFIXES,
    META_KEY,
    PARQUET_SUFFIXES,
    SELECTION,
    Dataset,
    base_name,
    file_of,
    check_values,
    load,
    looks_like_path,
    metric_defaults,
    names,
    parse_spec,
    read_frame,
    read_table,
    select_columns,
    split_selection,
    with_columns,
)
