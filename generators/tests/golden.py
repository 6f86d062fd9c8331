"""Golden vectors: the NumPy reference run at generation time, written as a pure-C test."""

from __future__ import annotations

import math
import re
import types
from typing import Any

import numpy as np

from dsl import compute as C
from dsl.model import Namespace, Op
from generators import abi
from generators.formatting import c_comment, c_string
from generators.kernels import evaluate, py_names
from generators.kernels.evaluate import reference_functions
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.selection import variants_of
from generators.tests import inputs
from generators.kernels.scalar_c import c_array
from generators.tests.golden_args import CArguments

MAX_GOLDEN_ELEMENTS = 64
CASES_PER_VARIANT = 3
PHILOX_KAT = (
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
)


class _Case:
    """One golden case: computes the expectation and writes its C test function."""

    def __init__(self, op: Op, dtype: str, spec: dict[str, Any], fn: Any, index: int) -> None:
        self.op, self.dtype, self.spec, self.fn, self.index = op, dtype, spec, fn, index
        self.kwargs = inputs.build(spec, lambda name, fields: types.SimpleNamespace(**fields))

    def size_ok(self) -> bool:
        sizes = [v.size for v in self.kwargs.values() if isinstance(v, np.ndarray)]
        shape = self.kwargs.get("shape")
        if shape is not None:
            sizes.append(int(np.prod(shape, dtype=np.int64)))
        return all(s <= MAX_GOLDEN_ELEMENTS for s in sizes)

    def expected(self) -> np.ndarray | None:
        """The reference result, or None where the op must refuse the inputs (computed once)."""
        if not hasattr(self, "_expected"):
            self._expected = evaluate.run(self.op, self.fn, self.kwargs, self.dtype)
        return self._expected

    def variant_dtype(self, name: str) -> str:
        return next(v for v in variants_of(self.op) if v.dtype == self.dtype).of(name)

    def arg(self, name: str) -> Any:
        return evaluate.arg_value(self.op, self.kwargs, name)

    def in_place_input(self) -> str | None:
        """An input the op may write its result over (ADR 0006) that has the result's shape and
        dtype, preferring one whose fellow operands are broadcast (the strided kernel), or None."""
        expected = self.expected()
        if expected is None or isinstance(expected, tuple) or not self.size_ok():
            return None
        fits = [n for n in C.in_place_inputs(self.op)
                if (a := np.asarray(self.kwargs[py_names.py_name(n)])).shape == expected.shape
                and a.dtype == expected.dtype]
        shapes = {np.asarray(self.kwargs[py_names.py_name(i.name)]).shape for i in self.op.inputs}
        return next((n for n in fits if len(shapes) > 1), fits[0] if fits else None)

    def c_function(self, in_place: str | None = None) -> str | None:
        """The case as a C test function; with ``in_place``, the output is that input itself."""
        if not self.size_ok():
            return None
        expected = self.expected()
        # One expected array per output (an op with several outputs gives a tuple).
        wants = None if expected is None else (expected if isinstance(expected, tuple) else (expected,))
        op = self.op
        lines = [f"/* {c_comment(op.qualified_name)} {self.dtype} case {self.index} (seed {self.spec['seed']})"
                 f"{', in place over ' + in_place if in_place else ''} */",
                 f"static void case_{self.index}(void)", "{"]
        args = CArguments(self, wants, in_place)
        for p in abi.parameters(op):
            getattr(args, p.role)(p)
        lines += args.lines
        call = [*args.call, "&detail"]
        name = c_string(f"{op.qualified_name} {self.dtype} case {self.index}" + (" in place" if in_place else ""))
        lines += ["const char* detail = NULL;",
                  f"const opforge_status st = {abi.function(op)}({', '.join(call)});"]
        if expected is None:
            if abi.has_workspace(op):
                lines.append("(void)st_workspace;")
            lines.append(f"report({name}, st != OPFORGE_OK, detail);")
        else:
            tol = self.spec["tol"]
            compares = []
            for k, want in enumerate(wants):
                tag = str(k) if k else ""
                got = f"data_{abi.c_name(in_place)}" if in_place else f"data_out{tag}"
                scale = _scale(self.kwargs, want)
                kind = want.dtype.name
                if kind in ("float16", "float32", "float64"):
                    compares.append(f"same_{kind}({got}, want{tag}, {want.size}, {int(tol['ulps'])}, "
                                    f"{tol['abs'] * scale!r})")
                elif tol["ulps"] and kind != "bool":  # (an integer through floats: within ulps of it)
                    compares.append(f"same_{kind}({got}, want{tag}, {want.size}, {int(tol['ulps'])})")
                else:
                    compares.append(f"(memcmp({got}, want{tag}, sizeof(want{tag}[0]) * {want.size}) == 0)")
            compare = " && ".join(compares) or "true"  # (an empty list output: nothing to compare)
            if abi.has_workspace(op):
                compare += " && st_workspace == OPFORGE_OK && workspace_need <= sizeof workspace"
            lines.append(f"report({name}, st == OPFORGE_OK && {compare}, detail);")
        lines.append("}")
        return "\n".join(lines)


def _scale(kwargs: dict[str, Any], expected: np.ndarray) -> float:
    values = [1.0]
    for v in [*kwargs.values(), expected]:
        if isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size:
            finite = v[np.isfinite(v)]
            if finite.size:
                values.append(float(np.max(np.abs(finite))))
    return max(values)


class _Queue:
    """The reference class of a stream op, shaped like the binding for ``inputs.stream_events``."""

    def __init__(self, cls: Any, window: int, stride: int, frame: tuple[int, ...], dtype: str) -> None:
        self.impl = cls(window, stride, frame, dtype)
        self.shape = (window, *frame)
        self.dtype = dtype

    def enqueue(self, x: np.ndarray) -> None:
        self.impl.enqueue(x)

    def ready(self) -> bool:
        return self.impl.ready()

    def dequeue(self) -> np.ndarray:
        out = np.empty(self.shape, dtype=self.dtype)
        self.impl.dequeue(out)
        return out


def stream_c_function(op: Op, dtype: str, spec: dict[str, Any], cls: Any, index: int) -> str:
    """A golden stream scenario: the reference's enqueue outcomes and windows, replayed in C."""
    stream = spec["stream"]
    events = inputs.stream_events(lambda w, s, f, d, backend: _Queue(cls, w, s, f, d), stream, spec["seed"], "python")
    fn = abi.function(op)
    frame = tuple(stream["frame_shape"])
    frame_bytes = int(np.prod(frame, dtype=np.int64)) * np.dtype(dtype).itemsize
    state_bytes = 256 + 2 * stream["window"] * frame_bytes
    dims = ", ".join(str(d) for d in frame) or "0"
    lines = [f"/* {c_comment(op.qualified_name)} {dtype} stream case {index} (seed {spec['seed']}) */",
             f"static void case_{index}(void)", "{",
             f"static uint64_t state[{(state_bytes + 7) // 8}];",
             f"opforge_tensor frame = {{.data = NULL, .dtype = {abi.DTYPE_ENUM[dtype]}, .rank = {len(frame)}, .shape = {{{dims}}}}};",
             "size_t need = 0;", "bool ready = false;", "const char* detail = NULL;",
             f"bool ok = {fn}_state_size({stream['window']}, {stream['stride']}, &frame, &need, &detail) == OPFORGE_OK"
             f" && need <= sizeof state && {fn}_init(state, sizeof state, {stream['window']}, {stream['stride']}, "
             "&frame, &detail) == OPFORGE_OK;"]
    for k, event in enumerate(events):
        if event[0] == "enqueue":
            block = event[1]
            lines.append(c_array(f"block_{k}", block, dtype))
            bdims = ", ".join(str(d) for d in block.shape)
            lines.append(f"opforge_tensor t_{k} = {{.data = (void*)block_{k}, .dtype = {abi.DTYPE_ENUM[dtype]}, .rank = {block.ndim}, .shape = {{{bdims}}}}};")
            want = "==" if event[2] == "ok" else "!="
            lines.append(f"ok = ok && {fn}_enqueue(state, &t_{k}, &detail) {want} OPFORGE_OK;")
        else:
            window = event[1]
            lines.append(c_array(f"want_{k}", window, dtype))
            lines.append(f"static {C_TYPE[dtype]} got_{k}[{max(1, window.size)}];")
            wdims = ", ".join(str(d) for d in window.shape)
            lines.append(f"opforge_tensor w_{k} = {{.data = (void*)got_{k}, .dtype = {abi.DTYPE_ENUM[dtype]}, .rank = {window.ndim}, .shape = {{{wdims}}}}};")
            lines.append(f"ok = ok && {fn}_ready(state, &ready, &detail) == OPFORGE_OK && ready;")
            lines.append(f"ok = ok && {fn}_dequeue(state, &w_{k}, &detail) == OPFORGE_OK && "
                         f"memcmp(got_{k}, want_{k}, sizeof want_{k}) == 0;")
    lines.append(f"ok = ok && {fn}_ready(state, &ready, &detail) == OPFORGE_OK && !ready;")
    lines.append(f"report({c_string(f'{op.qualified_name} {dtype} stream case {index}')}, ok, detail);")
    lines.append("}")
    return "\n".join(lines)


class CaseBook:
    """The golden cases of one namespace, each built and evaluated once for all the
    C tests that use it (the golden test, then the hostile one)."""

    def __init__(self, ns: Namespace) -> None:
        self.fns = reference_functions(ns)
        self._cases: dict[tuple[str, str, int], _Case] = {}

    def case(self, op: Op, dtype: str, spec: dict[str, Any], index: int) -> _Case:
        key = (op.name, dtype, spec["seed"])
        if key not in self._cases:
            self._cases[key] = _Case(op, dtype, spec, self.fns[py_names.ref_name(op.name)], index)
        found = self._cases[key]
        found.index = index
        return found


def c_test(ns: Namespace, ops_cases: list[tuple[Op, str, dict[str, Any]]], header: str,
           book: CaseBook | None = None) -> tuple[str, int]:
    """The pure-C golden test of a namespace, and how many cases it holds."""
    book = book or CaseBook(ns)
    fns = book.fns
    bodies: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    in_place_done: set[tuple[str, str]] = set()
    for op, dtype, spec in ops_cases:
        key = (op.name, dtype)
        if "stream" not in spec and key not in in_place_done and C.in_place_inputs(op):
            # One call per op and dtype with the output over an input, as firmware saves RAM (ADR 0006).
            case = book.case(op, dtype, spec, len(bodies))
            if (over := case.in_place_input()) is not None and (body := case.c_function(over)) is not None:
                bodies.append(body)
                in_place_done.add(key)
        if seen.get(key, 0) >= CASES_PER_VARIANT:
            continue
        if "stream" in spec:
            body = stream_c_function(op, dtype, spec, fns[py_names.class_name(op)], len(bodies))
        else:
            body = book.case(op, dtype, spec, len(bodies)).c_function()
        if body is not None:
            bodies.append(body)
            seen[key] = seen.get(key, 0) + 1
    runs = "\n".join(f"    case_{i}();" for i in range(len(bodies)))
    return PRELUDE.format(header=header) + "\n\n".join(bodies) + f"""

int main(void)
{{
{runs}
    return summary();
}}
""", len(bodies)


PRELUDE = """/* {header} */
#include "opforge/opforge_all.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Text out: stdout on a host; a firmware build names its own writer (semihosting), so
 * that no printf (and no heap behind it) is linked. */
#ifdef OPF_TEST_SAY
void OPF_TEST_SAY(const char* text);
#define say OPF_TEST_SAY
#else
#include <stdio.h>
static void say(const char* text)
{{
    fputs(text, stdout);
}}
#endif

static int passed, failed;

static void report(const char* name, bool ok, const char* detail)
{{
    if (ok) {{
        passed++;
    }} else {{
        failed++;
        say("FAIL ");
        say(name);
        if (detail != NULL) {{
            say(": ");
            say(detail);
        }}
        say("\\n");
    }}
}}

/* "<passed> passed, <failed> failed", the line the runners read; the exit status. */
static int summary(void)
{{
    char text[64];
    int at = (int)sizeof text;
    text[--at] = '\\0';
    const int counts[2] = {{failed, passed}};
    const char* const words[2] = {{" failed\\n", " passed, "}};
    for (int k = 0; k < 2; k++) {{
        const size_t length = strlen(words[k]);
        at -= (int)length;
        memcpy(text + at, words[k], length);
        int value = counts[k];
        do {{
            text[--at] = (char)('0' + value % 10);
            value /= 10;
        }} while (value > 0);
    }}
    say(text + at);
    return failed != 0;
}}

static inline int64_t order_f32(float v)
{{
    int32_t i;
    memcpy(&i, &v, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}}

static inline int64_t order_f64(double v)
{{
    int64_t i;
    memcpy(&i, &v, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
}}

#define SAME_FLOATS(NAME, T, ORDER)                                                               \\
    static inline bool NAME(const T* got, const T* want, int64_t n, int64_t ulps, double tolerance)       \\
    {{                                                                                             \\
        for (int64_t i = 0; i < n; i++) {{                                                         \\
            if (isnan(got[i]) || isnan(want[i])) {{                                                \\
                if (!(isnan(got[i]) && isnan(want[i]))) {{                                         \\
                    return false;                                                                 \\
                }}                                                                                 \\
                continue;                                                                         \\
            }}                                                                                     \\
            const int64_t a = ORDER(got[i]), b = ORDER(want[i]);                                  \\
            const bool near = (a > b ? a - b : b - a) <= ulps;                                    \\
            const bool close = isfinite(got[i]) && isfinite(want[i]) &&                           \\
                               fabs((double)got[i] - (double)want[i]) <= tolerance;               \\
            if (!near && !close) {{                                                                \\
                return false;                                                                     \\
            }}                                                                                     \\
        }}                                                                                         \\
        return true;                                                                              \\
    }}

SAME_FLOATS(same_float32, float, order_f32)
SAME_FLOATS(same_float64, double, order_f64)

/* A half's value from its bits, written apart from the runtime's opf_f16_to_f32 (ADR 0075). */
static inline double half_value(uint16_t h)
{{
    const int exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
    const double size = exponent == 0x1F ? (fraction ? NAN : INFINITY)
                        : exponent ? ldexp(1024 + fraction, exponent - 25) : ldexp(fraction, -24);
    return (h & 0x8000) ? -size : size;
}}

/* Halves (their bits) within ulps or the tolerance of each other, as SAME_FLOATS. */
static inline bool same_float16(const uint16_t* got, const uint16_t* want, int64_t n, int64_t ulps, double tolerance)
{{
    for (int64_t i = 0; i < n; i++) {{
        const double g = half_value(got[i]), w = half_value(want[i]);
        if (isnan(g) || isnan(w)) {{
            if (!(isnan(g) && isnan(w))) {{
                return false;
            }}
            continue;
        }}
        const int64_t a = (got[i] & 0x8000) ? -(int64_t)(got[i] & 0x7FFF) : got[i];
        const int64_t b = (want[i] & 0x8000) ? -(int64_t)(want[i] & 0x7FFF) : want[i];
        if ((a > b ? a - b : b - a) > ulps && !(isfinite(g) && isfinite(w) && fabs(g - w) <= tolerance)) {{
            return false;
        }}
    }}
    return true;
}}

/* Integers within ulps of each other (an integer computed through floats, ADR 0058). */
#define SAME_INTS(NAME, T)                                                                          \\
    static inline bool NAME(const T* got, const T* want, int64_t n, int64_t ulps)                  \\
    {{                                                                                             \\
        for (int64_t i = 0; i < n; i++) {{                                                         \\
            const int64_t a = (int64_t)got[i], b = (int64_t)want[i];                              \\
            if ((a > b ? a - b : b - a) > ulps) {{                                                 \\
                return false;                                                                     \\
            }}                                                                                     \\
        }}                                                                                         \\
        return true;                                                                              \\
    }}

SAME_INTS(same_int8, int8_t)
SAME_INTS(same_int16, int16_t)
SAME_INTS(same_int32, int32_t)
SAME_INTS(same_int64, int64_t)
SAME_INTS(same_uint8, uint8_t)
SAME_INTS(same_uint16, uint16_t)
SAME_INTS(same_uint32, uint32_t)

"""


def philox_c_test(header: str) -> str:
    checks = []
    for i, (ctr, key, want) in enumerate(PHILOX_KAT):
        checks.append(f"""    {{
        const uint32_t ctr[4] = {{{', '.join(f'0x{v:08x}u' for v in ctr)}}};
        const uint32_t key[2] = {{{', '.join(f'0x{v:08x}u' for v in key)}}};
        const uint32_t want[4] = {{{', '.join(f'0x{v:08x}u' for v in want)}}};
        uint32_t got[4];
        opforge_philox4x32_10(ctr, key, got);
        report("philox4x32_10 known answer {i}", memcmp(got, want, sizeof want) == 0, NULL);
    }}""")
    return PRELUDE.format(header=header) + "int main(void)\n{\n" + "\n".join(checks) + """
    return summary();
}
"""


_DESCRIPTOR = re.compile(r"^opforge_tensor (t_\w+) = \{\.data = \(void\*\)(data_\w+), \.dtype = (\w+), "
                         r"\.rank = (\d+), \.shape = \{([^}]*)\}\};$")


def _mutations(name: str, rank: int, dims: list[int], output: bool, nullable: bool) -> list[tuple[str, str]]:
    """(what, C statement) for each way to spoil the descriptor ``name``; "NULL" replaces
    the descriptor itself in the call."""
    out = [] if nullable else [("NULL descriptor", "NULL")]
    if rank >= 0 and math.prod(dims) > 0:
        out.append(("NULL data", f"{name}.data = NULL;"))
    out += [("unknown dtype", f"{name}.dtype = (opforge_dtype)99;"), ("rank 9", f"{name}.rank = 9;")]
    if rank >= 1:
        out.append(("negative size", f"{name}.shape[0] = -1;"))
    if rank >= 2 and all(d > 0 for d in dims):
        out.append(("element count beyond int64", f"{name}.shape[0] = {name}.shape[1] = INT64_C(1) << 32;"))
    if output:
        out.append(("wrong output shape", f"{name}.shape[{rank - 1}] += 1;" if rank >= 1 else
                    f"{name}.rank = 1;\n{name}.shape[0] = 2;"))
    return out


def _descriptors(body: str) -> list[tuple[str, int, list[int], bool]]:
    """(name, rank, dims, is an output) of each descriptor a golden case declares."""
    return [(name, rank, dims, output) for name, _, rank, dims, output in _described(body)]


def _described(body: str) -> list[tuple[str, str, int, list[int], bool]]:
    """(name, dtype enum, rank, dims, is an output) of each descriptor a golden case declares."""
    found = []
    for line in body.splitlines():
        m = _DESCRIPTOR.match(line.strip())
        if m:
            rank = int(m[4])
            dims = [int(d) for d in m[5].split(",")][:rank] if rank else []
            found.append((m[1], m[3], rank, dims, m[2].startswith("data_out")))
    return found


_BYTES = {abi.DTYPE_ENUM[d]: np.dtype(d).itemsize for d in abi.DTYPES}


def _overlaps(op: Op, decls: str) -> list[tuple[str, str]]:
    """(what, C statement) for each output laid over an input in a way the op must refuse
    (ADR 0006): one byte into it, or exactly on it where the op may not write over that input
    or the two differ in dtype or shape (the input's data is const: a write would trap)."""
    in_place = {f"t_{abi.c_name(n)}" for n in C.in_place_inputs(op)}
    described = _described(decls)
    out = []
    for o, o_dtype, o_rank, o_dims, o_is_output in described:
        if not o_is_output or math.prod(o_dims) == 0:
            continue
        for i, i_dtype, i_rank, i_dims, i_is_output in described:
            if i_is_output or math.prod(i_dims) * _BYTES[i_dtype] < 2:
                continue
            out.append((f"{o.removeprefix('t_')} one byte into {i.removeprefix('t_')}",
                        f"{o}.data = (void*)((const char*){i}.data + 1);"))
            if i not in in_place or (o_dtype, o_rank, o_dims) != (i_dtype, i_rank, i_dims):
                out.append((f"{o.removeprefix('t_')} over {i.removeprefix('t_')}", f"{o}.data = (void*){i}.data;"))
    return out


def hostile_c_test(ns: Namespace, ops_cases: list[tuple[Op, str, dict[str, Any]]], header: str,
                   book: CaseBook | None = None) -> tuple[str, int]:
    """A pure-C test that calls each op of ``ns`` with one valid case spoiled in one way at a
    time (a NULL descriptor or data, an unknown dtype, rank 9, a negative size, an element
    count beyond int64, an output of the wrong shape, an output laid over an input): every
    call must return an error status (an overlap: OPFORGE_ERR_OVERLAP), and (built with
    sanitizers) touch no byte it should not."""
    book = book or CaseBook(ns)
    bodies: list[str] = []
    for op in dict.fromkeys(op for op, _, _ in ops_cases):
        picked = None
        for _, dtype, spec in [c for c in ops_cases if c[0] is op and "stream" not in c[2]]:
            case = book.case(op, dtype, spec, 0)
            if not case.size_ok() or case.expected() is None:
                continue
            text = case.c_function() or ""
            descriptors = _descriptors(text)
            full = all(rank >= 1 and math.prod(dims) > 0 for _, rank, dims, _ in descriptors)
            if picked is None or full:
                picked = text
            if full:
                break
        if picked is None:
            continue
        head, rest = picked.split("{\n", 1)
        decls, call = rest.split("const char* detail = NULL;\n", 1)
        call = call.split(";\n", 1)[0] + ";"  # const opforge_status st = fn(...);
        # What the valid case compared with is not needed; its workspace query is.
        decls = "".join(line + "\n" for line in decls.splitlines() if not re.match(r"static const \w+ want\d* ?\[", line))
        if "st_workspace" in decls:
            decls += "(void)st_workspace;\n"
        optional = {f"t_{abi.c_name(i.name)}" for i in op.inputs if i.has_default}
        for what, statement in _overlaps(op, decls):
            label = c_string(f"{op.qualified_name}: {what}")
            bodies.append(f"static void case_{len(bodies)}(void)\n{{\n{decls}{statement}\nconst char* detail = NULL;\n"
                          f"{call}\nreport({label}, st == OPFORGE_ERR_OVERLAP, detail);\n}}")
        for name, rank, dims, output in _descriptors(decls):
            for what, statement in _mutations(name, rank, dims, output, name in optional):
                if statement == "NULL":
                    if f"&{name}," not in call and f"&{name})" not in call:
                        continue  # a descriptor of a list: passed through its array
                    spoiled, mutate = re.sub(rf"&{name}\b", "NULL", call), f"(void){name};"
                else:
                    spoiled, mutate = call, statement
                label = c_string(f"{op.qualified_name}: {what} ({name.removeprefix('t_')})")
                bodies.append(f"static void case_{len(bodies)}(void)\n{{\n{decls}{mutate}\nconst char* detail = NULL;\n"
                              f"{spoiled}\nreport({label}, st != OPFORGE_OK, detail);\n}}")
    runs = "\n".join(f"    case_{i}();" for i in range(len(bodies)))
    text = PRELUDE.format(header=header) + "\n\n".join(bodies) + f"\n\nint main(void)\n{{\n{runs}\n    return summary();\n}}\n"
    return text, len(bodies)
