"""The ``imunit`` generator: one Imaginet unit per op, with its C and Python fragment files."""

from generators.imunit.generator import ImunitGenerator

GENERATOR = ImunitGenerator()
