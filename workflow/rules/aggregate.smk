# Aggregate: every cell's run record, metrics and benchmark into one results table.


rule effective_config:
    """The configuration as used (schema defaults filled in); its hash goes into the results' provenance."""
    output:
        "results/config.yaml",
    log:
        "results/logs/effective_config.log",
    params:
        text=EFFECTIVE_CONFIG,
    localrule: True
    shell:
        "(printf '%s\\n' {params.text:q} > {output:q}.tmp && mv {output:q}.tmp {output:q}) 2> {log:q}"


rule aggregate:
    """One row per cell: results/results.parquet (with provenance columns)."""
    input:
        cells=CELL_RECORDS,
        partitions=CELL_PARTITIONS,
        benchmarks=BENCHMARKS,
        config="results/config.yaml",
    output:
        report(
            "results/results.parquet",
            caption="../report/results.rst",
            category="Results",
        ),
    log:
        "results/logs/aggregate.log",
    params:
        root_seed=config["root_seed"],
    localrule: True
    shell:
        "mabench aggregate --out {output:q} --root-seed {params.root_seed} --config {input.config:q}"
        " --cells-dir results/cells --benchmarks-dir results/benchmarks"
        " {input.cells:q} > {log:q} 2>&1"
