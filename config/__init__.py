"""The bundled workflow configurations (installed as ``mabench.config``): the default
``config.yaml`` and the smoke, full and scale variants. The registries are in ``mabench.registry``."""
