# Data: fetch the catalog files once; write every fixed data set (catalog sets, their column
# selections, files) in one job, and every draw of a generated data set in one job per data set.


rule fetch:
    """Fetch (vendored copy first, then the pinned URL) and verify one catalog file."""
    output:
        "results/data/raw/{file}",
    log:
        "results/logs/fetch/{file}.log",
    params:
        name=lambda wildcards: PLAN.raw_files[wildcards.file],
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
        priority: max(PLAN.prepare_priority(ds_id) for ds_id in PLAN.fixed)
        params:
            args=shell_args(_args),
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "mabench prepare {params.args} > {log:q} 2>&1"


for _ds_id, _ds in PLAN.datasets.items():
    if _ds.fixed:
        continue

    rule:
        """Every draw of one generated data set as Parquet, in one process."""
        name:
            rule_name("prepare", _ds_id)
        output:
            [PLAN.data_file(_ds_id, s) for s in _ds.seeds],
        log:
            f"results/logs/prepare/{_ds_id}.log",
        priority: PLAN.prepare_priority(_ds_id)
        params:
            spec=_ds.spec,
            seeds=",".join(str(s) for s in _ds.seeds),
            out=lambda wildcards, _ds_id=_ds_id: f"results/data/{_ds_id}/seed{{seed}}.parquet",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "mabench prepare {params.spec:q} --seed {params.seeds} --out {params.out:q} > {log:q} 2>&1"
