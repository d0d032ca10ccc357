# Data: fetch the catalog files once, then write every draw of each data set as tidy Parquet
# (one job per data set id: all its draws in one process).


rule fetch:
    """Fetch (vendored copy first, then the pinned URL) and verify one catalog file."""
    output:
        "results/data/raw/{file}",
    log:
        "results/logs/fetch/{file}.log",
    params:
        name=lambda wildcards: RAW_FILES[wildcards.file],
    localrule: True
    shell:
        "mabench fetch {params.name} --out {output:q} > {log:q} 2>&1"


for _ds_id, _ds in DATASETS.items():

    rule:
        """Every draw of one data set as Parquet (fetched sets and files: seed 0; generated sets: one file per draw)."""
        name:
            rule_name("prepare", _ds_id)
        input:
            prepare_input(_ds_id),
        output:
            [f"results/data/{_ds_id}/seed{s}.parquet" for s in ([0] if _ds["fixed"] else _ds["seeds"])],
        log:
            f"results/logs/prepare/{_ds_id}.log",
        params:
            args=prepare_args(_ds_id),
            out=lambda wildcards, _ds_id=_ds_id: f"results/data/{_ds_id}/seed{{seed}}.parquet",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "mabench prepare {params.args} --out {params.out:q} > {log:q} 2>&1"
