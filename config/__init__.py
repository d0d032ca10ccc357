"""Bundled configuration: the published-values registry, the best-known partitions and the default
workflow configuration (installed as ``mabench.config``)."""
