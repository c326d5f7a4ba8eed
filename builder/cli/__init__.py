"""The ``builder`` command line (see :mod:`builder.cli.main`)."""
