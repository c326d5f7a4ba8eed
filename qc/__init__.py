"""Quality control (floor 2): one check per module, the gate and its report.

Reads a dataset folder through :mod:`schemas.dataset` and imports nothing from
``builder``, so the gate can be read, tested and reused without the pipeline;
``builder qc`` is its command-line face.
"""
