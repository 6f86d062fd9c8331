"""Infix rendering shared by the targets' expression languages: C-like ones (C,
Imaginet expressions: ``&&``, ``||``, ``!`` and pairwise checks) and Python's
(``and``, ``or``, ``not``)."""

from __future__ import annotations

from dsl import expr as E


class InfixRenderer(E.Renderer):
    """Subclasses name parameters (:meth:`name`) and render what differs."""

    def name(self, ref: E.ParamRef) -> str:
        return ref.name

    def render_compare(self, node: E.Compare) -> str:
        return f"({self.render(node.left)} {node.op} {self.render(node.right)})"

    def render_arith(self, node: E.Arith) -> str:
        op = "/" if node.op == "//" else node.op  # both languages truncate integer division
        return f"({self.render(node.left)} {op} {self.render(node.right)})"

    def render_neg(self, node: E.Neg) -> str:
        return f"(-{self.render(node.operand)})"

    def render_allof(self, node: E.AllOf) -> str:
        return "(" + " && ".join(self.render(t) for t in node.terms) + ")"

    def render_anyof(self, node: E.AnyOf) -> str:
        return "(" + " || ".join(self.render(t) for t in node.terms) + ")"

    def render_not(self, node: E.Not) -> str:
        return f"(!{self.render(node.term)})"

    def pairs(self, template: str, refs: tuple[E.ParamRef, ...]) -> str:
        """``template`` (with {0}, {1}) for the first ref against each other one, all required."""
        first = self.name(refs[0])
        return "(" + " && ".join(template.format(first, self.name(r)) for r in refs[1:]) + ")"

    def all_pairs(self, template: str, refs: tuple[E.ParamRef, ...]) -> str:
        """``template`` for every pair of refs, all required."""
        names = [self.name(r) for r in refs]
        return "(" + " && ".join(template.format(a, b) for i, a in enumerate(names) for b in names[i + 1:]) + ")"


class PyInfixRenderer(E.Renderer):
    """Python's arithmetic and logic (the constraint renderer of the bindings and the
    shape renderer both speak it); subclasses render the rest."""

    def render_arith(self, node: E.Arith) -> str:
        return f"({self.render(node.left)} {node.op} {self.render(node.right)})"

    def render_neg(self, node: E.Neg) -> str:
        return f"(-{self.render(node.operand)})"

    def render_allof(self, node: E.AllOf) -> str:
        return "(" + " and ".join(self.render(t) for t in node.terms) + ")"

    def render_anyof(self, node: E.AnyOf) -> str:
        return "(" + " or ".join(self.render(t) for t in node.terms) + ")"

    def render_not(self, node: E.Not) -> str:
        return f"(not {self.render(node.term)})"
