# Run: one batch job per (data set id, algorithm id) runs every draw and every k in one process,
# with every configured metric, and writes one record (JSON) and one partition (CSV) per cell.
# Finished cells are also kept in results/cache/cells, so a batch that is re-run (it died, an
# output was deleted, a k was added) recomputes only the cells that are not there.


for _ds_id, _algo_id in BATCHES:

    rule:
        """All draws and k values of one algorithm on one data set (records, partitions, metrics)."""
        name:
            rule_name("run", _ds_id, _algo_id)
        input:
            sorted({data_file(_ds_id, s) for s in batch_seeds(_ds_id, _algo_id)}),
        output:
            records=[f"results/cells/{c}.json" for c in CELLS if c.startswith(f"{_ds_id}/{_algo_id}/")],
            partitions=[f"results/cells/{c}.csv" for c in CELLS if c.startswith(f"{_ds_id}/{_algo_id}/")],
        log:
            f"results/logs/run/{_ds_id}/{_algo_id}.log",
        benchmark:
            f"results/benchmarks/{_ds_id}/{_algo_id}.tsv"
        params:
            algorithm=ALGORITHMS[_algo_id]["algorithm"],
            args=batch_args(_ds_id, _algo_id),
            cells=lambda wildcards, output: os.path.dirname(os.path.dirname(output.records[0])),
        threads: config["threads_per_run"]
        resources:
            mem_mb=config["mem_mb_per_run"],
            runtime=config["runtime_per_run"],
        shell:
            "NUMBA_NUM_THREADS={threads} mabench batch {params.algorithm} {params.args}"
            " --cells-dir {params.cells:q} --cache-dir results/cache/cells > {log:q} 2>&1"
