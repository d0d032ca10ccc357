# Aggregate: every cell's run record, metrics and benchmark into one results table.


rule effective_config:
    """The configuration as used (schema defaults filled in); its hash goes into the results' provenance."""
    output:
        "results/config.yaml",
    log:
        "results/logs/effective_config.log",
    params:
        text=EFFECTIVE_CONFIG,
    priority: 1000  # the compile step reads it
    localrule: True
    run:
        from mabench import io

        io.write_text(output[0], f"{params.text}\n")  # the one atomic writer, like every other output


rule aggregate:
    """One row per cell: results/results.parquet (with provenance columns)."""
    input:
        batches=BATCH_DONE.values(),  # each batch's cells (see BATCH_DONE)
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
        cells=CELL_RECORDS,
    localrule: True
    shell:
        "mabench aggregate --out {output:q} --root-seed {params.root_seed} --config {input.config:q}"
        " --cells-dir results/cells --benchmarks-dir results/benchmarks"
        " {params.cells:q} > {log:q} 2>&1"
