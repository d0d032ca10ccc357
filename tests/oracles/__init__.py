"""Reference implementations in plain NumPy that follow the papers' pseudocode, not the kernels' bookkeeping."""
