# Data: fetch the catalog files once; write every fixed data set (catalog sets, their column
# selections, files) in one job, and every draw of every generated data set in another.


rule fetch:
    """Fetch (vendored copy first, then the pinned URL) and verify one catalog file."""
    output:
        "results/data/raw/{file}",
    log:
        "results/logs/fetch/{file}.log",
    params:
        name=lambda wildcards: PLAN.raw_files[wildcards.file],
    priority: PLAN.prepare_priority(PLAN.fixed)  # before the jobs that need no data (best_known)
    localrule: True
    shell:
        "mabench fetch {params.name} --out {output:q} > {log:q} 2>&1"


if PLAN.fixed:
    _inputs, _args = PLAN.prepare_fixed()

    rule prepare_fixed:
        """Every fixed data set as Parquet (seed 0), in one process."""
        input:
            _inputs,
        output:
            [PLAN.data_file(ds_id, 0) for ds_id in PLAN.fixed],
        log:
            "results/logs/prepare/fixed.log",
        priority: PLAN.prepare_priority(PLAN.fixed)
        params:
            args=shell_args(_args),
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "mabench prepare {params.args} > {log:q} 2>&1"


if PLAN.generated:

    rule prepare_generated:
        """Every draw of every generated data set as Parquet, in one process."""
        output:
            [PLAN.data_file(ds_id, s) for ds_id in PLAN.generated for s in PLAN.datasets[ds_id].seeds],
        log:
            "results/logs/prepare/generated.log",
        priority: PLAN.prepare_priority(PLAN.generated)
        params:
            args=lambda wildcards: shell_args(PLAN.prepare_generated()),  # a function: {seed} is not a wildcard
        resources:
            mem_mb=config["mem_mb_per_run"],  # the largest draw (config/scale.yaml: 10^7 records) is held in memory
            runtime=30,
        shell:
            "mabench prepare {params.args} > {log:q} 2>&1"
