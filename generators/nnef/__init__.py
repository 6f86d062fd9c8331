"""The ``nnef`` generator: NNEF fragment declarations per namespace and shape functions for ``nnef.infer_shapes``."""

from generators.nnef.generator import NnefGenerator

GENERATOR = NnefGenerator()
