# mabench: reproducible microaggregation benchmarks (Snakemake workflow).
#
#   snakemake --workflow-profile workflow/profiles/default                                # default config
#   snakemake --workflow-profile workflow/profiles/default --configfile config/smoke.yaml # tiny (< 1 min)
#   snakemake --workflow-profile workflow/profiles/slurm                                  # SLURM cluster
#   snakemake --report results/report.html                                               # HTML report
#
# Stages (workflow/rules/): data (fetch, prepare) -> run (batches of cells) -> aggregate -> tables, figures, report.
# Config keys: mabench/bench/config.schema.yaml and config/README.md.

import os

from snakemake.utils import min_version

min_version("8.10")

# The default config file is config/config.yaml (in the working directory if present, else this
# repository's). A --configfile on the command line replaces it instead of being merged into it,
# so a smaller config (config/smoke.yaml) does not inherit the default data sets.
DEFAULT_CONFIGFILE = (
    "config/config.yaml"
    if os.path.exists("config/config.yaml")
    else os.path.join(workflow.basedir, "config", "config.yaml")
)
if not workflow.overwrite_configfiles:

    configfile: DEFAULT_CONFIGFILE


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/run.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


# Snakemake regenerates a missing intermediate file only when a target needs it, so `all` asks for
# every batch's marker and for each cell file that is missing or damaged: a deleted or never-finished
# cell is redone (and re-aggregated) on the next run, and nothing else is.
rule all:
    """The results table, the regenerated tables, the figures and the HTML reproduction reports (and every batch job, and any cell that is missing or damaged)."""
    input:
        "results/results.parquet",
        "results/tables/index.md",
        "results/figures/il_vs_k.png",
        "results/figures/il_vs_k.pdf",
        "results/figures/anytime.png",
        "results/tables/best_known.md",
        REPORT_PAGES,
        BATCH_DONE.values(),
        PLAN.data_files,
        cells_to_redo,  # missing or damaged cells of finished batches (workflow/rules/common.smk)
    default_target: True
    localrule: True


rule cells:
    """Every cell's record and partition, without aggregating (`snakemake cells`)."""
    input:
        BATCH_DONE.values(),
        cells_to_redo,
    localrule: True
