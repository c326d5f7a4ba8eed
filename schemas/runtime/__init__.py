"""The runtime beside the contract: processes, signals and files.

:mod:`.fanout` runs per-variant tasks on local worker processes or a Ray
cluster (results in task order); :mod:`.outputs` writes files and folders
atomically, with the fault hooks the interruption tests use; :mod:`.recovery`
cleans up after a killed run; :mod:`.provenance` names the tool and the
library versions that shape an output. These modules import only the error
family (:mod:`schemas.errors`); the contract modules of :mod:`schemas` may use
them, never the other way round (the ``runtime`` contract in pyproject.toml).
"""
