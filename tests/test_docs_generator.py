"""The docs generator: a site mkdocs builds strictly, with every op's
signatures, parameters, constraints, configs and source link, and doc text
that shows exactly as written."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl import compute as C
from dsl.loader import load
from conftest import ROOT, Cli, write_ops
from generators.docs import markdown as md

MKDOCS_EXTENSIONS = ["tables", "admonition", "toc", "pymdownx.highlight", "pymdownx.superfences"]


def build_site(docs_root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(docs_root / "mkdocs.yml"), "-d", str(site)],
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Text()
    parser.feed(page)
    return " ".join(" ".join(parser.parts).split())


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def starter_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("starter")
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "docs",
                    "-opsdir", str(ROOT / "ops"), "-outdir", str(out)], cwd=ROOT, check=True,
                   capture_output=True)
    proc = build_site(out / "docs", out / "site")
    assert proc.returncode == 0, proc.stderr
    (out / "build.log").write_text(proc.stdout + proc.stderr)
    return out


def test_a_clean_build_prints_nothing_but_its_result(starter_site: Path) -> None:
    """Issue 17.11: mkdocs build printed 265 INFO lines "... does not contain an anchor" (links to
    line anchors that only the highlighted HTML had). Material's end-of-life notice is its own,
    switched off by NO_MKDOCS_2_WARNING as the README says."""
    lines = [line for line in (starter_site / "build.log").read_text().splitlines() if line.strip()]
    assert len(lines) == 3, "\n".join(lines[:10])
    assert lines[0] == "INFO    -  Cleaning site directory"
    assert lines[1].startswith("INFO    -  Building documentation to directory: ")
    assert re.fullmatch(r"INFO    -  Documentation built in [\d.]+ seconds", lines[2])


def test_mkdocs_strict_build_of_the_starter_catalogue(starter_site: Path) -> None:
    site = starter_site / "site"
    for page in ("index.html", "math/index.html", "random/index.html", "bitwise/index.html"):
        assert (site / page).is_file(), page
    assert (site / "search" / "search_index.json").is_file()
    index = visible_text((site / "index.html").read_text())
    catalogue = load(ROOT / "ops").catalogue
    total = sum(len(ns.concrete_ops) for ns in catalogue.namespaces)
    assert f"{total} ops in {len(catalogue.namespaces)} namespaces" in index
    for ns in catalogue.namespaces:
        assert f"{ns.name} {len(ns.concrete_ops)} {len(ns.aliases)} {len(ns.configs)}" in index
    # The counterparts table: every op that names an ONNX operator or an NNEF operation, marked
    # where its page states a difference (ADR 0059).
    onnx = [o for ns in catalogue.namespaces for o in ns.concrete_ops if o.onnx]
    nnef = [o for ns in catalogue.namespaces for o in ns.concrete_ops if o.nnef]
    assert len(onnx) >= 50 and len(nnef) >= 70
    assert (f"{len(onnx)} ops have an ONNX operator of the same job and {len(nnef)} an NNEF standard "
            "operation") in index
    assert "math.sum ReduceSum * sum_reduce *" in index and "bitwise.and BitwiseAnd" in index
    assert "math.abs Abs abs math.acos" in index
    assert 'href="https://onnx.ai/onnx/operators/onnx__ReduceSum.html"' in (site / "index.html").read_text()


def test_the_site_shows_the_measured_resource_table_of_every_op(starter_site: Path) -> None:
    """docs/cortex-m-resources.md (benchmarks/cortex_m_resources.py measures it) is in the site,
    under Measurements, and has a row per op of the catalogue: a new op means measuring again."""
    page = starter_site / "site" / "measured" / "cortex-m-resources" / "index.html"
    text = visible_text(page.read_text())
    assert "op .text bytes worst-case stack bytes newlib and libgcc calls workspace bytes" in text
    nav = (starter_site / "docs" / "mkdocs.yml").read_text().split("- Measurements:\n", 1)[1]
    assert "  - Cortex-M4 resources: measured/cortex-m-resources.md" in nav
    # ./bench.sh's page and its plot, the plot byte for byte
    assert "  - Benchmarks: measured/benchmarks.md" in nav
    site_plot = starter_site / "site" / "measured" / "benchmarks.png"
    assert site_plot.read_bytes() == (ROOT / "docs" / "benchmarks.png").read_bytes()
    measured = (ROOT / "docs" / "cortex-m-resources.md").read_text()
    rows = re.findall(r"^\| `(\w+\.\w+)` \| \d+ \| \d+ \| .* \| .+ \|$", measured, re.M)
    ops = [op.qualified_name for ns in load(ROOT / "ops").catalogue.namespaces for op in ns.concrete_ops]
    assert sorted(rows) == sorted(ops)


def test_source_links_point_at_existing_line_anchors(starter_site: Path) -> None:
    page = (starter_site / "docs/docs/math.md").read_text()
    links = re.findall(r"\]\((source/ops/math\.py\.md)#(L(\d+))\)", page)
    assert len(links) >= 13
    source_html = (starter_site / "site/source/ops/math.py/index.html").read_text()
    source_lines = (ROOT / "ops/math.py").read_text().splitlines()
    for _, anchor, line in links:
        assert f'id="{anchor}"' in source_html
        assert "Op(" in source_lines[int(line) - 1] or "Alias(" in source_lines[int(line) - 1]
    # every line of the file is on its page, once, numbered as in the file
    markdown_page = (starter_site / "docs/docs/source/ops/math.py.md").read_text()
    blocks = re.findall(r'^```python linenums="(\d+)"\n(.*?)^```$', markdown_page, re.M | re.S)
    numbered = [(int(first) + k, line) for first, text in blocks for k, line in enumerate(text.splitlines())]
    assert numbered == list(enumerate(source_lines, 1))


def test_op_section_content(starter_site: Path) -> None:
    text = visible_text((starter_site / "site/math/index.html").read_text())
    assert "log(x) : Natural logarithm" in text
    assert "log(x, base=None) : Logarithm to the given base" in text
    assert "base must be positive and not 1: base == None or base > 0 and base != 1" in text
    assert "mode arg str : half_to_even , half_away_from_zero 1 \"half_to_even\"" in text
    assert "axes arg int at least 0 [] Axes to reduce" in text
    # The real Python function and C prototype, and the concrete dtypes (issue 22).
    markdown = (starter_site / "docs/docs/math.md").read_text()
    assert ("def add(\n    x: ArrayLike,\n    y: ArrayLike,\n    *,\n    out: np.ndarray | None = None,\n"
            '    backend: Literal["c", "python"] = "c"\n) -> np.ndarray | opforge.fixed_point.FixedPointArray\n') in markdown
    assert "opforge_status opforge_math_add(const opforge_tensor* x, const opforge_tensor* y" in markdown
    assert ("| `x` | int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64 | q7, "
            "q15, q31, d8, "
            "d16 | Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float32, Float64, Q7, Q15, Q31, D8, D16 |"
            ) in markdown
    assert "Mixins" not in text and "NUMERIC" not in text and "AtLeast(" not in text
    # An op of a NumPy name and another meaning says how it differs (op.unlike_numpy).
    assert ("**NumPy**: unlike [`numpy.cumsum`](https://numpy.org/doc/stable/reference/generated/numpy.cumsum.html) "
            "of the same name: takes exclusive and reverse args") in markdown
    # Each counterpart with how the op differs from it: derived from its form, then declared (ADR 0059).
    nnef_spec = "https://registry.khronos.org/NNEF/specs/1.0/nnef-1.0.5.html"
    assert f"**NNEF**: [`abs`]({nnef_spec}) (the same computation)" in markdown
    assert (f"**NNEF**: [`add`]({nnef_spec}), unlike this op:\n\n- NNEF aligns operands of different ranks at their "
            "first axes") in markdown
    assert ("**ONNX**: [`ArgMax`](https://onnx.ai/onnx/operators/onnx__ArgMax.html), unlike this op:\n\n"
            "- ONNX keeps each reduced axis with size 1 unless keepdims = 0; this op drops them unless keep\\_dims "
            "is set\n- ONNX's axis defaults to 0") in markdown
    # See also: a derivative's forward op first, then ops of its display group.
    nn_markdown = (starter_site / "docs/docs/nn.md").read_text()
    derivative = nn_markdown[nn_markdown.index("## elu_derivative"):]
    assert derivative[derivative.index("**See also**"):].startswith("**See also**: [elu](#op-elu), ")
    # Formulas from the compute forms, as KaTeX's MathML with their LaTeX kept.
    for tex in (r"\mathrm{output} = x + y", r"\mathrm{output} = \frac{\sum_{i} x_{i}}{n}",
                r"\mathrm{output} = \frac{\ln\left(x\right)}{\ln\left(\mathrm{base}\right)} \quad \text{when base is given}",
                # (an einsum: the output's element, a sum over the labels the inputs alone have)
                r"\mathrm{output}_{\ldots i j} = \sum_{k} a_{\ldots i k} \, b_{\ldots k j}",
                r"\mathrm{output}_{\ldots j i} = x_{\ldots i j}",
                r"\text{$\ldots$ stands for the leading (batch) axes, which broadcast}",
                # (a reduction of several sums, a sum a factor of a product: in parentheses)
                r"\mathrm{output} = \frac{\sum_{i} x_{i} \cdot y_{i}}{\sqrt{\left(\sum_{i} x_{i} \cdot x_{i}\right) "
                r"\cdot \left(\sum_{i} y_{i} \cdot y_{i}\right)}}",
                r"\mathrm{output} = \min \operatorname*{arg\,max}_{i} \left|x_{i}\right|"):
        assert f'<annotation encoding="application/x-tex">{html.escape(tex, quote=True)}</annotation>' in markdown, tex
    # Integers through floats (ADR 0058): the rule, and where Python keeps NumPy's meaning.
    assert ("int8, int16 and int32 inputs compute through float64: each element is converted to float64 and the "
            "result back as cast converts a float to an integer (truncated toward zero, saturated at the dtype's "
            "limits, NaN as 0), in the C API and the units; the Python function keeps numpy.mean's meaning for "
            "them.") in markdown
    assert "Alias of bitwise.left_shift" in text
    assert "elementwise, NumPy broadcasting: output = log(x) / log(base) when base is given" in text
    assert "einsum ...|ik;...|kj=>...|ij over a, b" in text
    assert "ONNX : ReduceSum" in text
    # Examples come from running the reference: sum over axis 1 of [[-1.5, 0, 0.5], [2, 1, -0.25]].
    source = (starter_site / "docs/docs/math.md").read_text()
    assert "opforge.math.sum(x, axis=1)\n# array([-1.  ,  2.75], dtype=float32)\n" in source
    base_markdown = (starter_site / "docs/docs/base.md").read_text()
    cast = base_markdown[base_markdown.index("## cast"):]
    assert "| `output` | bool, int8, int16" in cast[:cast.index("## ", 3)]  # (its own dtype, not x's)
    for tex in (r"\mathrm{output}_{\mathrm{indices}_{k}} \leftarrow \mathrm{output}_{\mathrm{indices}_{k}} + "
                r"\mathrm{updates}_{k}",
                r"\mathrm{output}_{s} = \frac{1}{n_{s}} \sum_{k \,:\, \mathrm{segment\_ids}_{k} = s} \mathrm{data}_{k}"):
        assert f'<annotation encoding="application/x-tex">{html.escape(tex, quote=True)}</annotation>' in base_markdown
    range_tex = (r"\mathrm{output}_{i} = \mathrm{start} + i \cdot \mathrm{delta}, \quad 0 \leq i < "
                 r"\left\lceil \frac{\mathrm{limit} - \mathrm{start}}{\mathrm{delta}} \right\rceil")
    assert f'<annotation encoding="application/x-tex">{html.escape(range_tex, quote=True)}</annotation>' in base_markdown
    nn_page = (starter_site / "docs/docs/nn.md").read_text()  # (a fragment's declared formula)
    softmax_tex = r"\mathrm{output}_{i} = \frac{e^{x_{i} - m}}{\sum_{j} e^{x_{j} - m}}, \quad m = \max_{j} x_{j}"
    assert f'<annotation encoding="application/x-tex">{html.escape(softmax_tex, quote=True)}</annotation>' in nn_page
    random_markdown = (starter_site / "docs/docs/random.md").read_text()
    for tex in (r"\mathrm{output}_{i} \sim \mathcal{N}\left(\mathrm{mean}, \mathrm{stddev}^{2}\right)",
                r"\mathrm{output}_{i} \sim \mathcal{U}\left[\mathrm{min}, \mathrm{max}\right)"):
        assert f'<annotation encoding="application/x-tex">{html.escape(tex, quote=True)}</annotation>' in random_markdown
    random_text = visible_text((starter_site / "site/random/index.html").read_text())
    assert ('def binomial(\n    n_trials: int,\n    p: float,\n    shape: Sequence[int],\n    dtype: DTypeLike = "float32",\n'
            "    random_config: RandomConfig | None = None,\n") in (starter_site / "docs/docs/random.md").read_text()
    assert "Used by: uniform , normal , bernoulli , binomial" in random_text
    bitwise_text = visible_text((starter_site / "site/bitwise/index.html").read_text())
    assert "Also available as : bitwise.bit_shift , math.bit_shift" in bitwise_text


def test_an_op_page_shows_what_each_fixed_point_type_derives_or_why_not(starter_site: Path) -> None:
    """Every op with a compute form has a row per type (ADR 0036): its kernel, the output's
    attributes (the form's shift) and its error bound, or the reason it has none."""
    text = visible_text((starter_site / "site/math/index.html").read_text())
    assert ("Q15 add of the inputs moved right to the larger shift, saturated (arm_add_q15 at equal shifts) "
            "shift maximum(x.shift, y.shift) exact at equal shifts") in text
    assert "Q7 the product's top bits, saturated (arm_mult_q7) shift (x.shift + y.shift)" in text
    assert "shift (x.shift + h), h = ceil(log2 n) for n values summed within 1 step" in text
    assert "Q31 none: a table of a 32-bit type is too large" in text
    source = (starter_site / "docs/docs/math.md").read_text()
    sections = source.split("\n## ")[1:]
    conversions = {op.name for ns in load(ROOT / "ops").catalogue.namespaces for op in ns.ops
                   if isinstance(op.compute, C.FixedPointConversion)}  # (they convert between the types: ADR 0068)
    assert conversions
    for section in sections:
        if section.split("\n", 1)[0] in conversions:
            assert "**Fixed point**" not in section and "**Computes**" in section, section.splitlines()[0]
            continue
        if "**Computes**" in section:
            rows = [line for line in section.splitlines() if line.startswith(("| Q", "| D"))]
            assert [r.split(" | ")[0] for r in rows] == ["| Q7", "| Q15", "| Q31", "| D8", "| D16", "| D32"], \
                section.splitlines()[0]


def test_generated_header_names_sources(starter_site: Path) -> None:
    page = (starter_site / "docs/docs/random.md").read_text()
    assert page.startswith("<!-- GENERATED - DO NOT EDIT: generated by opforge (docs) from ops/random.py -->")
    assert (starter_site / "docs/mkdocs.yml").read_text().startswith("# GENERATED - DO NOT EDIT")


NASTY = r"""Stars *a* and __b__, `code`, [link](http://x), <b>bold</b> &amp; & <!-- c -->
| a | b |
# not a heading
1. not a list
- nor this
    indented four, */ /* \"\"\" ''' \\ ]]> {{ x }} {% y %} #pragma once
=====
!!! note
:  colon start, 50% off, %%OPNAME%% stays, naïve ünïcödé ✓"""


def test_doc_scopes_languages_tokens_and_injection(project: Path, cli: Cli) -> None:
    write_ops(project, {"defs.py": f'''
        from dsl import *
        with Namespace("demo"):
            with Op("thing") as op:
                op.native_name = "thing_native"
                x = Input(NUMERIC, "x", description="the | input *x*")
                Arg(ENUM, "mode", possible_values=["a|b", "c`d"], default="a|b", description="mode <m>")
                Output(NUMERIC, "out", description="out")
                BackendConstraint("x is small", x.rank() <= 4)
                Doc(Language.ANY, DocScope.ALL, "The %OPNAME% op (native %NATIVE_OPNAME%) takes a %INPUT_TYPE%.")
                Doc(Language.ANY, DocScope.CLASS_DOC_ONLY, "Class doc.")
                Doc(Language.ANY, DocScope.CONSTRUCTORS_ONLY, "Constructor doc.")
                Doc(Language.ANY, DocScope.CREATORS_ONLY, "Creator doc.")
                Doc(Language.C, DocScope.ALL, "Only for C.")
                Doc(Language.MARKDOWN, DocScope.ALL, {NASTY!r})
    '''})
    run = cli("generate", "demo", "-projects", "docs")
    assert run.exit_code == 0, run.output
    proc = build_site(project / "out/docs", project / "site")
    assert proc.returncode == 0, proc.stderr
    page = (project / "site/demo/index.html").read_text()
    text = visible_text(page)
    assert "The thing op (native thing_native) takes a tensor." in text
    assert "Class doc." in text and "Creator doc." in text
    assert "As a graph node (NNEF fragment, DEEPCRAFT unit) Constructor doc." in text and "Only for C." not in text
    assert "(checked by the backend) x is small: x.rank() <= 4" in text
    assert "the | input *x*" in text and "mode <m>" in text
    assert 'a|b' in text and "c`d" in text
    expected = squash(NASTY.replace("%%OPNAME%%", "%OPNAME%"))
    assert expected in text
    assert "<b>bold</b>" not in page and "<h1>not a heading" not in page


_PRINTABLE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Co", "Cn")),
                     max_size=60)
_LINES = st.lists(_PRINTABLE, max_size=4).map("\n".join)


def test_a_declared_formula_shows_and_one_katex_refuses_is_a_definition_problem(project: Path, cli: Cli) -> None:
    """op.formula: where the form derives none, the op's own LaTeX, on its page; a formula KaTeX cannot
    lay out fails the docs target with one line per op at its definition (exit 2), nothing written."""
    ops = '''
        from dsl import *
        with Namespace("demo"):
            with Op("good") as op:
                op.formula = (r"y = \\frac{x}{2}", r"\\text{halved}")
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "y", description="y")
                Elementwise(lambda x: x * 3.0)
                Doc(Language.ANY, DocScope.ALL, "Good.")
            with Op("bad") as op:
                op.formula = r"y = \\frac{x"
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "y", description="y")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "Bad.")
    '''
    write_ops(project, {"defs.py": ops})
    run = cli("generate", "demo", "-projects", "docs")
    assert run.exit_code == 2 and not (project / "out/docs").exists(), run.output
    assert run.stderr.splitlines() == ["ops/defs.py:9: demo.bad: formula: KaTeX cannot lay out line 1: Unexpected end "
                                       "of input in a macro argument, expected '}' at end of input: y = \\frac{x",
                                       "1 definition problem"], run.stderr
    write_ops(project, {"defs.py": ops.replace('\\frac{x"', '\\frac{x}{1}"')})
    run = cli("generate", "demo", "-projects", "docs")
    assert run.exit_code == 0, run.output
    page = (project / "out/docs/docs/demo.md").read_text()
    assert '<annotation encoding="application/x-tex">y = \\frac{x}{2}</annotation>' in page  # (declared, not x * 3)


def render(text: str) -> str:
    return visible_text(markdown.markdown(text, extensions=MKDOCS_EXTENSIONS))


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_block_text_renders_as_written(text: str) -> None:
    assert render(md.block(text)) == squash(text)


@settings(max_examples=300, deadline=None)
@given(_PRINTABLE)
def test_inline_text_renders_as_written(text: str) -> None:
    assert render("Before " + md.inline(text)) == squash("Before " + text)


@settings(max_examples=200, deadline=None)
@given(_PRINTABLE, _PRINTABLE)
def test_table_cells_and_code_spans_render_as_written(a: str, b: str) -> None:
    table = f"| A | B |\n| --- | --- |\n| {md.cell(a) } | {md.code(b) if b.strip() else 'x'} |\n"
    out = markdown.markdown(table, extensions=MKDOCS_EXTENSIONS)
    cells = re.findall(r"<td>(.*?)</td>", out, flags=re.S)
    assert len(cells) == 2
    assert squash(html.unescape(re.sub(r"<[^>]+>", " ", cells[0]))) == squash(a)
    if b.strip():
        assert squash(html.unescape(re.sub(r"<[^>]+>", "", cells[1]))) == squash(b)


def test_html_comment_cannot_be_closed_early() -> None:
    assert md.comment("a --> b") == "<!-- a - -&gt; b -->"


def test_every_distribution_has_its_formula() -> None:
    """A distribution the random form knows without a formula would leave its ops' pages without one."""
    from dsl.forms.sampling import RANDOM_DISTRIBUTIONS
    from generators.docs import formula

    assert set(formula.DISTRIBUTIONS) == set(RANDOM_DISTRIBUTIONS)
    for tex in formula.DISTRIBUTIONS.values():  # (each renders: KaTeX refuses what it cannot lay out)
        formula.mathml(tex.format(out="y_{i}", low="a", high="b", mean="m", stddev="s", p="p", n="n", rate="r"))


def test_every_generator_but_cast_has_its_formula() -> None:
    """The generation form's generators, each with its output's elements (cast's rule is words)."""
    from dsl.forms.generation import GENERATE_ROLES
    from generators.docs import formula

    assert set(formula.GENERATED) == set(GENERATE_ROLES) - {"cast"}
    for generator, lines in formula.GENERATED.items():  # (each renders, with every role it names)
        roles = {role: rf"\mathrm{{{role}}}" for role, _ in GENERATE_ROLES[generator]}
        for line in lines:
            formula.mathml(line.format(out="y", **roles))


def test_every_op_of_the_catalogue_shows_a_formula() -> None:
    """Issue 22: each op's page has its formula, derived from its form where the form has one
    (elementwise, reductions, contractions, lists, shape queries, ...), declared on the op
    otherwise (op.formula: fragments, layout moves); and KaTeX lays out every line."""
    from generators.docs import formula

    without = []
    for ns in load(ROOT / "ops").catalogue.namespaces:
        for op in ns.ops:
            if op.abstract or op.compute is None:
                continue
            lines = formula.formulas(op)
            without += [] if lines else [op.qualified_name]
            for line in lines:
                formula.mathml(line)
    assert without == []
