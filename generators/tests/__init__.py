"""The ``tests`` generator: C-versus-NumPy parity tests (pytest) and golden-vector tests in pure C."""

from generators.tests.generator import TestsGenerator

GENERATOR = TestsGenerator()
