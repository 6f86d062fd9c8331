"""Builds the docs site: ``mkdocs.yml``, ``docs/index.md``, a page per namespace
and a page per ops source file (so that every op links to its source line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import jinja2
import yaml

from dsl import doc_tokens
from dsl import fixed_point as F
from dsl.counterparts import differences
from dsl.dtypes import SYSTEM_TYPE, in_units
from dsl.model import Alias, Config, DocSection, Namespace, Op, Problem
from dsl.types import FIXED_POINT_TYPES, DataType, DocScope, Language
from generators.api import GENERATED_MARK, GeneratedFile, GenerationContext, GenerationError
from generators.formatting import black_format, clang_format
from generators.docs import fixed_point_page, formula, getting_started, training
from generators.docs import markdown as md
from generators.kernels import shape_text
from generators.docs.compute_text import compute_text, fixed_point_rows
from generators.kernels.readable import READABLE, default_text, through_float_text
from generators import abi
from generators.kernels import evaluate, examples, fixed_point, py_names, py_signature
from generators.kernels.selection import follows, variants_of

#: Doc scopes shown as the op's description on its page (class-level docs).
DESCRIPTION_SCOPES = doc_tokens.DESCRIPTION_SCOPES
#: Doc scopes shown with the signatures (the op's creator functions).
CREATOR_SCOPES = (DocScope.CREATORS_ONLY,)
#: Doc scopes shown for the op as a node of a graph (an NNEF fragment, a unit: ND4J's constructors).
NODE_SCOPES = (DocScope.CONSTRUCTORS_ONLY,)
#: What ``%INPUT_TYPE%`` means on the docs site.
TENSOR_TYPE_NAME = "tensor"
#: Where an ONNX operator of the default domain is documented.
ONNX_OPERATOR_URL = "https://onnx.ai/onnx/operators/onnx__{name}.html"
NUMPY_FUNCTION_URL = "https://numpy.org/doc/stable/reference/generated/numpy.{name}.html"
#: Where NNEF's standard operations are defined (the specification is one page).
NNEF_SPEC_URL = "https://registry.khronos.org/NNEF/specs/1.0/nnef-1.0.5.html"

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("generators.docs", "templates"),
    undefined=jinja2.StrictUndefined,
    autoescape=False,  # Markdown: values are escaped by generators.docs.markdown
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def op_anchor(name: str) -> str:
    return f"op-{name}"


def config_anchor(name: str) -> str:
    return f"config-{name}"


def _source_page(path: str) -> str:
    return f"source/{path}.md"


def line_anchor(line: int) -> str:
    """The anchor of the definition that starts at ``line`` on its source page."""
    return f"L{line}"


def numpy_link(name: str) -> dict[str, str | None]:
    """A NumPy function's name and its reference page."""
    return {"text": md.code(f"numpy.{name}"), "href": NUMPY_FUNCTION_URL.format(name=name)}


def onnx_link(name: str) -> dict[str, str | None]:
    """An ONNX operator's name and, for the default domain, its page."""
    href = ONNX_OPERATOR_URL.format(name=name) if "." not in name else None
    return {"text": md.code(name), "href": href}


def counterpart_links(op: Op) -> dict[str, dict[str, Any] | None]:
    """The op's ONNX and NNEF counterparts (None where it names none), each linked, with how the
    op differs from it (ADR 0059) and what the page says where it does not."""
    return {
        "onnx": {**onnx_link(op.onnx), "unlike": [md.inline(d) for d in differences(op, "onnx")],
                 "same": "ONNX's own node tests run through this op"} if op.onnx else None,
        "nnef": {"text": md.code(op.nnef), "href": NNEF_SPEC_URL, "same": "the same computation",
                 "unlike": [md.inline(d) for d in differences(op, "nnef")]} if op.nnef else None,
    }


def _tokens(owner: Op | Config) -> dict[str, str]:
    """What the doc tokens mean on the docs site."""
    native = owner.native_name if isinstance(owner, Op) else owner.name
    return {doc_tokens.OPNAME: owner.name, doc_tokens.NATIVE_OPNAME: native,
            doc_tokens.INPUT_TYPE: TENSOR_TYPE_NAME}


#: Pages measured on real builds (benchmarks/ writes them), kept beside the ops tree.
MEASURED_DIR = "docs"
#: How many related ops an op's "See also" names at most.
SEE_ALSO = 8


def _measured(context: GenerationContext) -> tuple[list[dict[str, str]], list[GeneratedFile]]:
    """(nav entries, site files) of what the repository's ``docs/`` holds: each measured
    page as it is, under a header naming the file it comes from, and the plots they show."""
    folder = context.source_root / MEASURED_DIR
    nav: list[dict[str, str]] = []
    files: list[GeneratedFile] = []
    for found in sorted(folder.iterdir()) if folder.is_dir() else ():
        target = f"measured/{found.name}"
        if found.suffix == ".md":
            text = found.read_text(encoding="utf-8")
            title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), found.stem)
            head = md.comment(f"{GENERATED_MARK}: copied by opforge (docs) from {MEASURED_DIR}/{found.name}")
            nav.append({title: target})
            files.append(GeneratedFile(f"docs/{target}", f"{head}\n\n{text}"))
        elif found.suffix == ".png":
            files.append(GeneratedFile(f"docs/{target}", "", found.read_bytes()))
    return nav, files


class DocsGenerator:
    name = "docs"
    summary = "Markdown pages and mkdocs.yml for a mkdocs-material docs site"
    language = Language.MARKDOWN
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        refused = [Problem(op.location, op.qualified_name, f"formula: {why}") for ns in context.namespaces
                   for op in ns.ops if op.formula is not None and (why := formula.refusal(op)) is not None]
        if refused:  # (a declared formula KaTeX cannot lay out: every one, at its op)
            raise GenerationError(refused)
        sources = self._sources(context)
        measured_nav, measured_files = _measured(context)
        files = [
            GeneratedFile("mkdocs.yml", self._mkdocs_yml(context, sources, measured_nav)),
            GeneratedFile("docs/index.md", self._index(context, sources)),
        ]
        for page in getting_started.PAGES:
            template = f"getting_started/{page.rsplit('/', 1)[1]}.j2"
            files.append(GeneratedFile(f"docs/{page}", _ENV.get_template(template).render(
                header=md.comment(f"{GENERATED_MARK}: generated by opforge (docs)"),
                **getting_started.values(context.catalogue))))
        worked = training.values(context.namespaces)
        if worked is not None:  # (the backward ops' worked example, computed now, with its plot)
            trained = _ENV.get_template("getting_started/training.md.j2").render(
                header=md.comment(f"{GENERATED_MARK}: generated by opforge (docs)"), **worked)
            files.append(GeneratedFile(f"docs/{training.PAGE}", trained))
            files.append(GeneratedFile(f"docs/{training.PLOT}", "", worked["png"]))
        for ns in context.namespaces:
            files.append(GeneratedFile(f"docs/{ns.key}.md", self._namespace_page(context, ns)))
        files.append(GeneratedFile(f"docs/{fixed_point_page.PAGE}", _ENV.get_template("fixed_point.md.j2").render(
            header=md.comment(f"{GENERATED_MARK}: generated by opforge (docs) from dsl/fixed_point.py"),
            types=fixed_point_page.type_rows(), conversions=fixed_point_page.conversion_rows())))
        for path in sorted(sources):
            files.append(GeneratedFile(f"docs/{_source_page(path)}", self._source(context, path, sources[path])))
        return files + measured_files

    # -- helpers
    def _header(self, sources: Sequence[str]) -> str:
        return md.comment(f"{GENERATED_MARK}: generated by opforge (docs) from {', '.join(sources)}")

    def _sources(self, context: GenerationContext) -> dict[str, str]:
        """Source path (relative to the source root) -> file on disk, for every
        file that defines something on the generated pages."""
        found: dict[str, str] = {}
        for ns in context.namespaces:
            for loc in [ns.location, *(o.location for o in ns.ops), *(c.location for c in ns.configs),
                        *(a.location for a in ns.aliases)]:
                found.setdefault(context.source_path(loc.file), loc.file)
        return dict(sorted(found.items()))

    def _doc_text(self, owner: Op | Config, docs: Sequence[DocSection]) -> list[str]:
        return [md.block(doc_tokens.expand(d.text, _tokens(owner))) for d in docs]

    def _source_link(self, context: GenerationContext, file: str, line: int, page_dir: str = "") -> dict[str, str]:
        path = context.source_path(file)
        link = {"text": md.inline(f"{path}:{line}"),
                "href": f"{page_dir}{_source_page(path)}#{line_anchor(line)}"}
        if context.source_url:
            link["external"] = f"{context.source_url.rstrip('/')}/{path}#L{line}"
        return link

    def _page_link(self, context: GenerationContext, namespace: str, op: str) -> str | None:
        """A link to an op on another page, or None when that page is not generated."""
        if not any(n.key == namespace.lower() for n in context.namespaces):
            return None
        return f"{namespace.lower()}.md#{op_anchor(op)}"

    def _params(self, params: Sequence[Any]) -> list[dict[str, str]]:
        rows = []
        for p in params:
            default = default_text(p.default) if p.kind != "output" else None
            if p.kind == "output":
                default_cell = "&nbsp;"
            elif default is None:
                default_cell = "required"
            else:
                default_cell = md.code(default)
            if p.kind in ("input", "output"):
                type_cell = "array" if p.count.is_single else "arrays"
                if p.type in FIXED_POINT_TYPES:  # (ADR 0068: its stored values and attributes)
                    type_cell = "fixed-point array"
            else:  # (a fixed-point type's name is a str: ADR 0068)
                fixed_name = p.type is DataType.DATA_TYPE and p.default in F.TYPES
                type_cell = md.code("str" if fixed_name else py_signature.PY_TYPE.get(p.type, "object"))
            if getattr(p, "possible_values", ()):
                type_cell += ": " + ", ".join(md.code(v) for v in p.possible_values)
            rows.append({
                "name": md.code(p.name),
                "kind": p.kind,
                "type": type_cell,
                "count": "1" if p.count.is_single else md.inline(p.count.words()),
                "default": default_cell,
                "description": md.cell(p.description) if p.description else "&nbsp;",
            })
        return rows

    def _constraints(self, owner: Op | Config) -> list[dict[str, Any]]:
        items = []
        if isinstance(owner, Op):
            pairs = [(cfg, c) for cfg, c in owner.all_constraints()]
        else:
            pairs = [(None, c) for c in owner.constraints]
        for cfg, c in pairs:
            items.append({"message": md.inline(c.message), "expr": md.code(READABLE.render(c.expr)),
                          "backend": c.backend, "config": cfg.name if cfg else None})
        return items

    def _see_also(self, ns: Namespace, op: Op) -> list[dict[str, str]]:
        """Related ops of the namespace: the op a derivative (or an op derived from it) is named
        after, those of the same ONNX operator, NNEF operation or NumPy function, then those of its
        display group."""
        def base(name: str) -> str:
            return name.removesuffix("_derivative").removesuffix("_bp")

        others = [o for o in ns.ops if o.name != op.name and not o.abstract]
        related = [o for o in others if base(o.name) == base(op.name)
                   or (op.onnx and o.onnx == op.onnx) or (op.nnef and o.nnef == op.nnef)
                   or (op.numpy and o.numpy == op.numpy)]
        related += [o for o in others if o.display_path == op.display_path and o not in related]
        return [{"name": md.inline(o.name), "href": f"#{op_anchor(o.name)}"} for o in related[:SEE_ALSO]]

    def _call(self, op: Op, sig: Any) -> str:
        """A documented signature of the op as a Python call: inputs by position, args by
        keyword with their default (``...`` when required), outputs left to ``out=``."""
        parts = []
        for ref in sig.params:
            param = op.param(ref)
            if ref.kind == "output":
                continue
            if ref.kind == "config":
                parts.append(f"{py_names.config_param(ref.name)}={ref.name}(...)")
            elif ref.kind == "input" or param is None:
                parts.append(py_names.py_name(ref.name))
            else:
                default = default_text(param.default)  # type: ignore[union-attr]
                parts.append(f"{py_names.py_name(ref.name)}={default if default is not None else '...'}")
        return md.code(f"{py_names.function_name(op.name)}({', '.join(parts)})")

    def _python(self, ns: Namespace, op: Op) -> dict[str, str] | None:
        """The op's function as the package's stub declares it, in ``opforge.<module>``."""
        if op.abstract or op.compute is None:
            return None
        stub = black_format(py_signature.stub(op).replace("_fp.", "opforge.fixed_point."))
        text = f"# opforge.{py_names.module_name(ns.key)}\n" + stub.replace(": ...\n", "\n")
        return {"fence": md.fence_for(text), "text": text}

    def _c(self, ops: Sequence[Op]) -> dict[str, dict[str, str]]:
        """Each op's C prototypes, as opforge/<namespace>.h declares them (clang-formatted)."""
        texts = clang_format({f"{op.name}.h": "\n".join(p + ";" for p in abi.prototypes(op)) + "\n"
                              for op in ops if not op.abstract and op.compute is not None})
        return {name.removesuffix(".h"): {"fence": md.fence_for(text), "text": text} for name, text in texts.items()}

    def _dtypes(self, op: Op) -> list[dict[str, str]]:
        """The concrete dtypes of each tensor, as the C API and the package take them (the
        package converts other inputs first, by NumPy's promotion: ADR 0053), the
        fixed-point types they take besides (ADR 0040), and all of them by the System type
        names a unit's sockets declare."""
        if op.abstract or op.compute is None:
            return []
        variants = variants_of(op)
        fixed = list(dict.fromkeys([*fixed_point.api_types(op), *(t.name for t in fixed_point.api_moves(op))]))
        primary = op.inputs[0].name if op.inputs else None
        rows = []
        for t in (*op.inputs, *op.outputs):
            same = t.name != primary and primary is not None and follows(op, t.name, primary)
            kinds = list(dict.fromkeys(v.of(t.name) for v in variants))
            shown_fixed = fixed if fixed and (same or t.name == primary) else []
            # (a unit's sockets take the same types, by DEEPCRAFT's System names, but float16)
            system = [F.TYPES[k].system if k in F.TYPES else SYSTEM_TYPE[k] for k in kinds if in_units(k)] + \
                [F.TYPES[f].system for f in shown_fixed]
            rows.append({"name": md.code(t.name), "dtypes": md.inline(f"as {primary}" if same else ", ".join(kinds)),
                         "fixed": md.inline(", ".join(shown_fixed)) if shown_fixed else "&nbsp;",
                         "system": md.inline(f"as {primary}" if same else ", ".join(system))})
        return rows

    def _example(self, ns: Namespace, op: Op, functions: dict[str, Any]) -> dict[str, str] | None:
        """The op's example, computed now by the NumPy reference."""
        if op.abstract or op.compute is None:
            return None
        ex = examples.example(op, functions)
        if ex is None:
            return None
        text = "\n".join(["import numpy as np", "import opforge", "",
                          *examples.python_lines(op, ex, f"opforge.{py_names.module_name(ns.key)}")]) + "\n"
        return {"fence": md.fence_for(text), "text": text}

    def _op_view(self, context: GenerationContext, ns: Namespace, op: Op,
                 functions: dict[str, Any], prototypes: dict[str, dict[str, str]]) -> dict[str, Any]:
        tokens = _tokens(op)
        aliases = [
            {"name": md.inline(a.qualified_name), "href": self._page_link(context, a.namespace, a.name)}
            for other in context.catalogue.namespaces for a in other.aliases
            if a.target_namespace.lower() == ns.key and a.target_op == op.name
        ]
        return {
            "anchor": op_anchor(op.name),
            "name": op.name,
            "display_name": md.inline(op.display_name),
            "display_path": md.inline(op.display_path),
            "native_name": md.code(op.native_name),
            "abstract": op.abstract,
            "description": self._doc_text(op, op.docs_for(Language.MARKDOWN, DESCRIPTION_SCOPES)),
            "calls": [{"code": self._call(op, sig), "doc": md.inline(doc_tokens.expand(sig.doc, tokens))}
                      for sig in op.signatures if sig.doc],
            "python": self._python(ns, op),
            "c": prototypes.get(op.name),
            "dtypes": self._dtypes(op),
            "through_float": md.inline(text) if (text := through_float_text(op, python=False)) else None,
            "creator_docs": self._doc_text(op, op.docs_for(Language.MARKDOWN, CREATOR_SCOPES)),
            "node_docs": self._doc_text(op, op.docs_for(Language.MARKDOWN, NODE_SCOPES)),
            "formulas": [formula.mathml(tex) for tex in formula.formulas(op)],
            "derivative": self._derivative(context, op),
            "computes": [md.code(line) for line in compute_text(op)],
            "fixed_point": [{k: md.cell(v) for k, v in row.items()} for row in fixed_point_rows(op)]
            if op.compute is not None else [],
            # The output shapes and the refusals, as the op's form says them (ADR 0029).
            "output_shapes": [{"name": md.inline(name), "shape": md.code(text)}
                              for name, text in shape_text.output_shapes(op)] if op.compute is not None else [],
            "refusals": [{"words": md.inline(words), "condition": md.code(text) if text else None}
                         for words, text in shape_text.refusals(op)] if op.compute is not None else [],
            "example": self._example(ns, op, functions),
            # (each counterpart with how the op differs from it: ADR 0059)
            **counterpart_links(op),
            "numpy": numpy_link(op.numpy) if op.numpy else None,
            # (an op of a NumPy name and another meaning says how it differs)
            "unlike_numpy": {**numpy_link(("linalg." if ns.key == "linalg" else "") + py_names.function_name(op.name)),
                             "words": md.inline(op.unlike_numpy)} if op.unlike_numpy else None,
            "workspace": (md.code("8 * (" + READABLE.render(op.compute.workspace) + ")")  # type: ignore[union-attr]
                          if getattr(op.compute, "workspace", None) is not None else None),
            "params": self._params(op.params),
            "constraints": self._constraints(op),
            "configs": [{"name": md.inline(c.name), "href": f"#{config_anchor(c.name)}"} for c in op.configs],
            "aliases": aliases,
            "see_also": self._see_also(ns, op),
            "source": self._source_link(context, op.location.file, op.location.line),
        }

    def _derivative(self, context: GenerationContext, op: Op) -> dict[str, Any] | None:
        """Where the op stands in differentiation (ADR 0065): a backward op links its forward op and
        shows its formula beside its own; a forward op links its backward op or says why it has none."""
        def linked(qualified: str) -> dict[str, Any]:
            ns, name = qualified.split(".")
            return {"text": md.inline(qualified), "href": self._page_link(context, ns, name)}

        if op.gradient_of is not None:
            ns, name = op.gradient_of.split(".")
            found = context.catalogue.namespace(ns)
            forward = found.op(name) if found else None
            shown = [formula.mathml(tex) for tex in formula.formulas(forward)] if forward else []
            after = ", derived from its definition" + (", whose formula is" if shown else "")
            return {"words": "the gradient of", **linked(op.gradient_of), "after": after, "formulas": shown}
        if op.backward is not None:
            return {"words": "its gradient is", **linked(op.backward), "after": "", "formulas": []}
        if op.not_differentiable is not None:
            return {"words": md.inline(f"none ({op.not_differentiable})"), "text": None, "href": None, "after": "",
                    "formulas": []}
        return None

    def _alias_view(self, context: GenerationContext, alias: Alias) -> dict[str, Any]:
        return {
            "anchor": op_anchor(alias.name),
            "name": alias.name,
            "target": md.inline(alias.target),
            "href": self._page_link(context, alias.target_namespace, alias.target_op),
            "source": self._source_link(context, alias.location.file, alias.location.line),
        }

    def _config_view(self, context: GenerationContext, ns: Namespace, cfg: Config) -> dict[str, Any]:
        users = [o.name for o in ns.ops if any(c.name == cfg.name for c in o.configs)]
        return {
            "anchor": config_anchor(cfg.name),
            "name": cfg.name,
            "description": self._doc_text(cfg, cfg.docs_for(Language.MARKDOWN, DESCRIPTION_SCOPES)),
            "params": self._params(cfg.params),
            "constraints": self._constraints(cfg),
            "users": [{"name": u, "href": f"#{op_anchor(u)}"} for u in users],
            "source": self._source_link(context, cfg.location.file, cfg.location.line),
        }

    # -- pages
    def _namespace_page(self, context: GenerationContext, ns: Namespace) -> str:
        sources = sorted({context.source_path(o.location.file) for o in ns.ops} | {context.source_path(ns.location.file)})
        ops = sorted(ns.ops, key=lambda o: o.name)
        functions = evaluate.reference_functions(ns) if any(o.compute is not None for o in ns.ops) else {}
        prototypes = self._c(ops)
        return _ENV.get_template("namespace.md.j2").render(
            header=self._header(sources),
            name=ns.name,
            summary=[{"name": o.name, "anchor": op_anchor(o.name),
                      "first_line": md.cell(self._first_line(o))} for o in ops],
            ops=[self._op_view(context, ns, o, functions, prototypes) for o in ops],
            aliases=[self._alias_view(context, a) for a in sorted(ns.aliases, key=lambda a: a.name)],
            configs=[self._config_view(context, ns, c) for c in sorted(ns.configs, key=lambda c: c.name)],
        )

    def _first_line(self, op: Op) -> str:
        docs = op.docs_for(Language.MARKDOWN, DESCRIPTION_SCOPES)
        text = doc_tokens.expand(docs[0].text, _tokens(op)) if docs else ""
        return text.strip().split("\n\n")[0].replace("\n", " ")

    def _index(self, context: GenerationContext, sources: dict[str, str]) -> str:
        return _ENV.get_template("index.md.j2").render(
            header=self._header(list(sources)),
            namespaces=[{"name": md.inline(n.name), "href": f"{n.key}.md", "ops": len(n.concrete_ops),
                         "abstract": len(n.ops) - len(n.concrete_ops), "aliases": len(n.aliases),
                         "configs": len(n.configs)} for n in context.namespaces],
            total=sum(len(n.concrete_ops) for n in context.namespaces),
            counterparts=[{"op": md.inline(o.qualified_name), "href": f"{n.key}.md#{op_anchor(o.name)}",
                           **counterpart_links(o)}
                          for n in context.namespaces for o in sorted(n.concrete_ops, key=lambda o: o.name)
                          if o.onnx or o.nnef],
            with_onnx=sum(1 for n in context.namespaces for o in n.concrete_ops if o.onnx),
            with_nnef=sum(1 for n in context.namespaces for o in n.concrete_ops if o.nnef),
        )

    def _source(self, context: GenerationContext, path: str, file: str) -> str:
        """The file as code blocks, one from each definition a page links to, under a small
        heading whose id is that link's anchor: a heading is where mkdocs (and its anchor
        check) sees an id, where line numbers of a highlighted block are only HTML."""
        text = Path(file).read_text(encoding="utf-8")
        lines = text.splitlines()
        labels: dict[int, list[str]] = {}
        for ns in context.namespaces:
            defined = [(ns.location, f"namespace {ns.name}"), *((o.location, o.qualified_name) for o in ns.ops),
                       *((c.location, f"config {c.qualified_name}") for c in ns.configs),
                       *((a.location, f"alias {a.qualified_name}") for a in ns.aliases)]
            for location, label in defined:
                if context.source_path(location.file) == path and 1 <= location.line <= len(lines):
                    labels.setdefault(location.line, []).append(label)
        starts = sorted({1, *labels})
        chunks = []
        for first, end in zip(starts, [*starts[1:], len(lines) + 1]):
            label = ", ".join(sorted(labels[first])) if first in labels else None
            chunks.append({"heading": f"{md.inline(label)} {{#{line_anchor(first)}}}" if label else None,
                           "first": first, "text": "".join(f"{line}\n" for line in lines[first - 1:end - 1])})
        return _ENV.get_template("source.md.j2").render(
            header=self._header([path]), title=md.inline(path), fence=md.fence_for(text),
            chunks=[c for c in chunks if c["text"].strip() or c["heading"]],
        )

    def _mkdocs_yml(self, context: GenerationContext, sources: dict[str, str],
                    measured: list[dict[str, str]]) -> str:
        config = {
            "site_name": "opforge operators",
            "docs_dir": "docs",
            # (no web fonts: the site works offline and asks no third party for anything)
            "theme": {"name": "material", "font": False,
                      "features": ["navigation.sections", "navigation.top", "search.highlight", "toc.follow"]},
            "plugins": ["search"],
            "markdown_extensions": [
                "tables", "admonition", "attr_list", {"toc": {"permalink": True}},
                "pymdownx.highlight", "pymdownx.superfences",
            ],
            "not_in_nav": "/source/",
            "nav": [{"Home": "index.md"},
                    {"Getting started": [{title: page} for page, title in getting_started.PAGES.items()]
                     + ([{training.TITLE: training.PAGE}] if training.shown(context.namespaces) else [])},
                    {"Namespaces": [{ns.name: f"{ns.key}.md"} for ns in context.namespaces]},
                    {"Fixed-point types": fixed_point_page.PAGE}],
        }
        if measured:
            config["nav"].append({"Measurements": measured})
        head = f"# {GENERATED_MARK}: generated by opforge (docs) from {', '.join(sources)}\n".replace("\n", " ").rstrip() + "\n"
        return head + yaml.safe_dump(config, sort_keys=False, allow_unicode=False, width=1000)
