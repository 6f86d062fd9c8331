"""Lowering shared by the code targets (not a generator: it has no GENERATOR).

Turns the DSL's compute descriptions into C and NumPy expressions, so that the
``c``, ``python`` and ``tests`` generators emit one meaning (ADR 0005).
"""
