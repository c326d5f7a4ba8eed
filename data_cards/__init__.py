"""Data cards: the card, ``LICENSE`` and ``ATTRIBUTION.md`` of an export (floor 2).

Builds on :mod:`schemas` only: the license registry
(:mod:`schemas.license_registry`), its combination rules
(:mod:`schemas.license_terms`) and the written override
(:class:`schemas.licensing.LicenseOverride`) are the contract that qc and the
license audit share; ``builder export`` renders the card and license files
with them.
"""
