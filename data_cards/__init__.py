"""Data cards, the license registry and its combination rules (floor 2).

Builds on :mod:`schemas` only (the license override is
:class:`schemas.licensing.LicenseOverride`); ``builder export`` renders the
card and license files with it.
"""
