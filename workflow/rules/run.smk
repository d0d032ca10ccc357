# Run: one job per cell; the partition and the run record (incl. the algorithm's own time).


rule run:
    """Run one algorithm on one data set draw with one k (seeded by the cell seed)."""
    input:
        data="results/data/{dataset_id}/seed{seed}.parquet",
    output:
        partition="results/partitions/{dataset_id}/{algo_id}/k{k}/seed{seed}.csv",
        record="results/runs/{dataset_id}/{algo_id}/k{k}/seed{seed}.json",
    log:
        "results/logs/run/{dataset_id}/{algo_id}/k{k}/seed{seed}.log",
    benchmark:
        "results/benchmarks/{dataset_id}/{algo_id}/k{k}/seed{seed}.tsv"
    params:
        algorithm=algorithm_name,
        args=algorithm_args,
    threads: config["threads_per_run"]
    shell:
        "NUMBA_NUM_THREADS={threads} mabench run {params.algorithm} {input.data:q}"
        " -k {wildcards.k} --seed {wildcards.seed} {params.args}"
        " --out {output.partition:q} --json-out {output.record:q} > {log:q} 2>&1"
