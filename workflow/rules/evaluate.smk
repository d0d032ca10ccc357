# Evaluate: the configured metrics of each cell's partition, recomputed from the data.


rule evaluate:
    """Compute the configured metrics of one cell's partition (and check its group sizes against k)."""
    input:
        data="results/data/{dataset_id}/seed{seed}.parquet",
        partition="results/partitions/{dataset_id}/{algo_id}/k{k}/seed{seed}.csv",
    output:
        "results/metrics/{dataset_id}/{algo_id}/k{k}/seed{seed}.json",
    log:
        "results/logs/evaluate/{dataset_id}/{algo_id}/k{k}/seed{seed}.log",
    params:
        metrics=metric_names,
    threads: config["threads_per_run"]
    shell:
        "NUMBA_NUM_THREADS={threads} mabench evaluate {input.data:q} {input.partition:q}"
        " -k {wildcards.k} --seed {wildcards.seed} --metrics {params.metrics}"
        " --json-out {output:q} > {log:q} 2>&1"
