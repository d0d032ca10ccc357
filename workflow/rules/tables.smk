# Tables: every published number next to the reproduced one, per source table (md, tex, csv).


rule tables:
    """Regenerate the published tables with verdicts; results/tables/index.md summarizes them."""
    input:
        results="results/results.parquet",
        published=PUBLISHED,
    output:
        report(
            "results/tables/index.md",
            caption="../report/tables.rst",
            category="Tables",
        ),
    log:
        "results/logs/tables.log",
    localrule: True
    shell:
        "mabench tables --results {input.results:q} --published {input.published:q}"
        " --out-dir results/tables > {log:q} 2>&1"


rule best_known:
    """The best-known partitions (registry/best_known) re-verified against the seeds' best published IL."""
    input:
        index=BEST_KNOWN_INDEX,
        published=PUBLISHED,
    output:
        report(
            "results/tables/best_known.md",
            caption="../report/best_known.rst",
            category="Tables",
        ),
        csv="results/tables/best_known.csv",
    log:
        "results/logs/best_known.log",
    localrule: True
    shell:
        "mabench best-known table --out-dir results/tables > {log:q} 2>&1"
