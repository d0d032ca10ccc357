# Data: fetch the catalog files once, then write every (data set, seed) as tidy Parquet.


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


rule prepare:
    """One data set draw as Parquet: fetched sets from their raw file (seed 0), generated sets drawn with the seed."""
    input:
        unpack(prepare_input),
    output:
        "results/data/{dataset_id}/seed{seed}.parquet",
    log:
        "results/logs/prepare/{dataset_id}/seed{seed}.log",
    params:
        args=prepare_args,
    shell:
        "mabench prepare {params.args} --out {output:q} > {log:q} 2>&1"
