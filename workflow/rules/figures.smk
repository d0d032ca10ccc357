# Figures: information loss against k, one panel per data set, one line per method.


rule figures:
    """IL versus k (mean and 95 % CI over draws) as PNG and PDF."""
    input:
        "results/results.parquet",
    output:
        png=report(
            "results/figures/il_vs_k.png",
            caption="../report/figures.rst",
            category="Figures",
        ),
        pdf="results/figures/il_vs_k.pdf",
    log:
        "results/logs/figures.log",
    localrule: True
    shell:
        "mabench figures --results {input:q} --out-dir results/figures > {log:q} 2>&1"
