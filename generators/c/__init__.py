"""The ``c`` generator: a static C99 library of Imaginet-style kernels behind checked API functions."""

from generators.c.generator import CGenerator

GENERATOR = CGenerator()
