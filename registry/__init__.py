"""Shipped registries (installed as ``mabench.registry``): the published numbers
(``published.csv`` and its schema), the best-known partitions and certified bounds (``best_known/``),
the regression baseline (``regress/baseline.csv``) and the measured agreement with sdcMicro
(``sdcmicro_agreement.csv``). Data the harness checks against, not settings a user edits
(those are in ``config/``)."""
