# Run: one batch job per group of at most `algorithms_per_job` algorithm ids of a data set (small
# groups packed together up to `records_per_job`: mabench/bench/plan.py) runs every algorithm, draw
# and k of its groups in one process, with every configured metric, and
# writes one record (JSON) and one partition (CSV) per cell. Finished cells are also kept in
# results/cache/cells, so a job that is re-run (it died, an output was deleted, a k was added)
# recomputes only the cells that are not there.


LEAD_JOB = PLAN.lead_job()
# The compile step's progress, which the lead job follows (mabench/bench/handoff.py): not an output,
# it only decides who compiles a kernel, never a result.
COMPILE_PROGRESS = "results/batches/compile-progress.json"


rule plans:
    """Every batch job's plan (results/plans.json, read by `mabench batch --plans`), from the plan
    this workflow built; rewritten when any job's plan changes."""
    output:
        "results/plans.json",
    log:
        "results/logs/plans.log",
    params:
        digest=PLAN.job_digest(),
    priority: 1000  # every batch job reads it
    localrule: True
    run:
        from mabench import io

        io.write_text(output[0], PLAN.plans_text())


rule compile:
    """The kernels of every run compiled into Numba's on-disk cache before the jobs that wait for it
    start, so that no two of them compile the same kernel at once and a cold clone compiles each
    kernel once. The lead job (PLAN.lead_job: the longest) does not wait for all of it: it starts with
    its data while this step compiles the lead job's runs in the lead job's order and then the other
    jobs', and before each run it waits until this step has done that run (COMPILE_PROGRESS). In
    `compile_jobs` processes, with the batches' Numba thread count (it decides the tree kernels'
    specialization)."""
    input:
        config="results/config.yaml",
        data=PLAN.data_files,
    output:
        compiled="results/compiled.json",
    log:
        "results/logs/compile.log",
    params:
        digest=PLAN.job_digest(),  # any job's plan changed: compile its kernels
        numba_threads=config["threads_per_run"],
        progress=COMPILE_PROGRESS,
    threads: config["compile_jobs"]
    priority: 1000
    resources:
        mem_mb=config["mem_mb_per_run"],
        runtime=30,
    shell:
        "NUMBA_NUM_THREADS={params.numba_threads} mabench compile --config {input.config:q} --jobs {threads}"
        " --progress-out {params.progress:q} --json-out {output.compiled:q} > {log:q} 2>&1"


for _job in PLAN.jobs:

    rule:
        """All draws and k values of a group of algorithms on one data set (records, partitions, metrics)."""
        name:
            rule_name("run", *_job.name.split("/"))
        input:
            PLAN.job_inputs(_job),
            # compiled first (but the lead job); a later compile does not re-run the batches (the
            # digest below does)
            [] if _job is LEAD_JOB else ancient("results/compiled.json"),
            plans=ancient("results/plans.json"),
            code=JOB_STAMPS[_job.name],  # this job's plan or code changed: re-run it (and no other)
        output:
            done=touch(BATCH_DONE[_job.name]),  # first: Snakemake looks for a requested file in this order
            records=[f"results/cells/{c}.json" for c in TRACKED_CELLS[_job.name]],  # see TRACKED_CELLS
            partitions=[f"results/cells/{c}.csv" for c in TRACKED_CELLS[_job.name]],
            # the job's own wall, CPU and peak memory (not a `benchmark:`, which samples it with psutil)
            benchmark=f"results/benchmarks/{_job.name}.tsv",
        log:
            f"results/logs/run/{_job.name}.log",
        params:
            job=_job.name,
            digest=PLAN.job_digest(_job),  # also in JOB_STAMPS, which is what re-runs a finished job
            follow=f" --follow {COMPILE_PROGRESS}" if _job is LEAD_JOB else "",
        threads: config["threads_per_run"]
        priority: _job.priority
        resources:
            mem_mb=config["mem_mb_per_run"],
            runtime=config["runtime_per_run"],
        shell:
            "NUMBA_NUM_THREADS={threads} mabench batch --plans {input.plans:q} --job {params.job:q}"
            " --cache-dir results/cache/cells --benchmark-out {output.benchmark:q}{params.follow} > {log:q} 2>&1"
