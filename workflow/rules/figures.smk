# Figures: information loss against k (one panel per data set, one line per method) and the
# R-U map (G_IL against G_DR per method and k, thesis Figure 4.6).


rule figures:
    """IL versus k (mean and 95 % CI over draws) and the R-U map, as PNG and PDF."""
    input:
        "results/results.parquet",
    output:
        png=report(
            "results/figures/il_vs_k.png",
            caption="../report/figures.rst",
            category="Figures",
        ),
        pdf="results/figures/il_vs_k.pdf",
        ru_png=report(
            "results/figures/ru_map.png",
            caption="../report/ru_map.rst",
            category="Figures",
        ),
        ru_pdf="results/figures/ru_map.pdf",
        anytime_png=report(
            "results/figures/anytime.png",
            caption="../report/anytime.rst",
            category="Figures",
        ),
        anytime_pdf="results/figures/anytime.pdf",
    log:
        "results/logs/figures.log",
    localrule: True
    shell:
        "mabench figures --results {input:q} --out-dir results/figures > {log:q} 2>&1"
