# Report: the reproduction report, one static self-contained HTML page per seed paper plus an index
# (results/report/<source>.html); it opens offline from the file system. `snakemake --report` stays.

import csv

with open(PUBLISHED, newline="", encoding="utf-8") as _fh:
    REPORT_SOURCES = sorted({row["source"] for row in csv.DictReader(_fh)})
REPORT_PAGES = ["results/report/index.html", "results/report/leaderboard.html"] + [
    f"results/report/{s}.html" for s in REPORT_SOURCES
]
# the report writes the leaderboard page too; `snakemake leaderboard` writes it alone
ruleorder: report > leaderboard


rule report:
    """Per-paper HTML reproduction reports: tables with verdict colours, figures, causes, provenance."""
    input:
        results="results/results.parquet",
        published=PUBLISHED,
    output:
        REPORT_PAGES,
    log:
        "results/logs/report.log",
    localrule: True
    shell:
        "mabench report --results {input.results:q} --published {input.published:q}"
        " --out-dir results/report > {log:q} 2>&1"


rule leaderboard:
    """Only the leaderboard page (`snakemake leaderboard`): every method run, ranked per data set and k, a
    figure per data set; what a method author's configuration needs, without the papers' pages."""
    input:
        results="results/results.parquet",
    output:
        "results/report/leaderboard.html",
    log:
        "results/logs/leaderboard.log",
    localrule: True
    shell:
        "mabench report --results {input.results:q} --out-dir results/report --only leaderboard > {log:q} 2>&1"
