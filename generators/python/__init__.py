"""The ``python`` generator: an installable ``opforge`` package with NumPy reference kernels and cffi bindings."""

from generators.python.generator import PythonGenerator

GENERATOR = PythonGenerator()
