"""The built-in microaggregation methods, one plugin file each (installed as ``mabench.algorithms``)."""
