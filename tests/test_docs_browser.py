"""The docs site in a real browser (issue 22): the starter catalogue's site, built by mkdocs and
served locally, driven in Debian's headless chromium through Playwright. The index, a namespace
page and an op's section render with no console error, and the search box finds an op by name.
Screenshots of an op's section and of the search results are kept as artefacts in
``build/test-artifacts/`` (the ones in ``docs/screenshots/`` were taken so)."""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import sys
import threading
from typing import Iterator

import pytest

from conftest import ROOT
from test_docs_generator import build_site

ARTIFACTS = ROOT / "build" / "test-artifacts"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The starter catalogue's site, built strictly, at a local address."""
    out = tmp_path_factory.mktemp("browsed")
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "docs", "-opsdir", str(ROOT / "ops"),
                    "-outdir", str(out)], cwd=ROOT, check=True, capture_output=True)
    built = build_site(out / "docs", out / "site")
    assert built.returncode == 0, built.stderr
    handler = functools.partial(_Quiet, directory=str(out / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium, "chromium is missing: ./test.sh installs Debian's"
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page that records every console error and uncaught exception."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    opened = context.new_page()
    opened.errors = []
    opened.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: opened.errors.append(str(e)))
    try:
        yield opened
    finally:
        context.close()


def _visible_words(page: object) -> str:
    return " ".join(page.inner_text("article").split())  # type: ignore[attr-defined]


def test_the_index_and_a_namespace_page_render(served: str, page: object) -> None:
    page.goto(served + "/")  # type: ignore[attr-defined]
    assert "opforge" in page.title()  # type: ignore[attr-defined]
    assert "math" in _visible_words(page)
    page.goto(served + "/math/")  # type: ignore[attr-defined]
    words = _visible_words(page)
    assert "Elementwise addition" in words and "opforge_math_add" in words
    assert page.errors == []  # type: ignore[attr-defined]


def test_an_op_section_renders_with_its_signature_prototype_and_dtypes(served: str, page: object) -> None:
    page.goto(served + "/math/#op-add")  # type: ignore[attr-defined]
    heading = page.locator("h2#add")  # type: ignore[attr-defined]
    heading.wait_for()
    assert heading.is_visible()
    section = page.evaluate(  # type: ignore[attr-defined]
        """() => { let e = document.getElementById('add'), text = '';
                   for (e = e.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling) text += e.innerText + '\\n';
                   return text; }""")
    words = " ".join(section.split())
    assert "def add( x: ArrayLike, y: ArrayLike, *, out: np.ndarray | None = None," in words
    assert "opforge_status opforge_math_add(const opforge_tensor* x" in words
    assert "int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64" in words
    # Its formula, KaTeX's MathML, laid out by the browser's own MathML (no script, no font).
    shown = page.evaluate(  # type: ignore[attr-defined]
        """() => { let e = document.getElementById('add');
                   for (e = e.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling) {
                       const m = e.querySelector && e.querySelector('.katex math');
                       if (m) { const r = m.getBoundingClientRect();
                                return [getComputedStyle(m).display, r.width, r.height, m.textContent]; } }
                   return null; }""")
    assert shown is not None, "no formula in add's section"
    display, width, height, text = shown
    assert "math" in display and width > 40 and height > 10, shown
    assert text.startswith("output=x+y"), text
    page.locator("h2#add ~ div.formula").first.scroll_into_view_if_needed()  # type: ignore[attr-defined]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "op-page.png"))  # type: ignore[attr-defined]
    assert (ARTIFACTS / "op-page.png").stat().st_size > 10_000
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_search_box_finds_an_op_by_name(served: str, page: object) -> None:
    page.goto(served + "/")  # type: ignore[attr-defined]
    page.click("label.md-search__icon, .md-search__input")  # type: ignore[attr-defined]
    page.fill("input.md-search__input", "cumsum")  # type: ignore[attr-defined]
    result = page.locator(".md-search-result__item", has_text="cumsum").first  # type: ignore[attr-defined]
    result.wait_for(timeout=20_000)
    assert "cumsum" in result.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "search.png"))  # type: ignore[attr-defined]
    assert page.errors == []  # type: ignore[attr-defined]
