"""The built-in data-set generators, the catalog of fetched data sets and their vendored files
(installed as ``mabench.generators``)."""
