"""The ``docs`` generator: Markdown pages and ``mkdocs.yml`` for a mkdocs-material site."""

from generators.docs.generator import DocsGenerator

GENERATOR = DocsGenerator()
