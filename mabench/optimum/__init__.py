"""The optimum layer: the best-known partitions (verify, improve, tabulate), certified lower bounds,
and set-partitioning recombination; between bench and report (the report only reads its files)."""
