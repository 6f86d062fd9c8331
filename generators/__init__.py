"""opforge's generator plug-ins and the machinery around them.

Each sub-package ``generators/<name>/`` is one target and exposes a
module-level ``GENERATOR`` (see :mod:`generators.api`). This package's own
modules hold what every target shares: the plug-in API, discovery, the
atomic writer and the command line.
"""
