"""The C runtime is real C: each helper header compiles on its own, and its unit tests pass."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from generators import abi
from generators.kernels import c_runtime, numpy_runtime
from generators.kernels.scalar_c import C_TYPE, c_value, converted

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wvla", "-Wshadow", "-Wconversion",
          "-Wno-sign-conversion"]
HERE = Path(__file__).resolve().parent
RUNTIME = HERE.parent / "generators" / "kernels" / "runtime"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return c_runtime.write_library(tmp_path_factory.mktemp("runtime"), "runtime under test")


def _gcc(library: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", *STRICT, f"-I{library / 'include'}", f"-I{library / 'src'}", *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("header", sorted(c_runtime.sources()))
def test_each_runtime_header_compiles_on_its_own(library: Path, header: str, tmp_path: Path) -> None:
    unit = tmp_path / "unit.c"
    unit.write_text(f'#include "{header}"\n')
    proc = _gcc(library, "-O2", "-c", str(unit), "-o", str(tmp_path / "unit.o"))
    assert proc.returncode == 0, proc.stderr


def test_the_runtime_sources_hold_no_template_syntax() -> None:
    for name, text in c_runtime.sources().items():
        assert "{{" not in text and "{%" not in text, name


def test_runtime_unit_tests_pass_under_sanitizers(library: Path, tmp_path: Path) -> None:
    binary = tmp_path / "test_runtime"
    proc = _gcc(library, "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                str(HERE / "runtime" / "test_runtime.c"), str(library / "src" / "opforge_core.c"), "-lm",
                "-o", str(binary))
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(binary)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all runtime checks passed" in run.stdout


def test_the_standalone_block_inlines_every_runtime_file_once() -> None:
    block = c_runtime.standalone("standalone under test")
    assert '#include "' not in block
    assert block.count("#define OPF_BASE_H") == 1 and block.count("static inline void opf_philox_round") == 1


def test_amalgamation_refuses_an_unknown_local_include() -> None:
    with pytest.raises(KeyError, match="missing.h"):
        c_runtime.amalgamate('#include "a.h"\n', {"a.h": '#include "missing.h"\n'})


def _c_literal(value, dtype: str) -> str:
    if dtype == "float16":  # (its bits: C holds a half in a uint16_t, ADR 0075)
        return c_value(value, dtype)
    if dtype.startswith("float"):
        v = float(value)
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return "INFINITY" if v > 0 else "-INFINITY"
        return v.hex() + ("f" if dtype == "float32" else "")
    if dtype == "bool":
        return "true" if value else "false"
    if dtype == "int64" and int(value) == -(2**63):
        return "INT64_MIN"
    return f"{int(value)}{'u' if dtype.startswith('u') else ''}{'LL' if dtype == 'int64' else ''}"


def _edges(dtype: str) -> np.ndarray:
    """Values of ``dtype`` at and around every other dtype's limits."""
    if dtype == "bool":
        return np.array([False, True])
    if dtype.startswith("float"):
        values = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 127.9, -128.7, 128.0, 255.9, 256.0, -1.0,
                  32767.5, 32768.0, 65535.9, 65536.0, 2.0**31, -(2.0**31) - 1.0, 2.0**32, 2.0**63, -(2.0**63), 3.0e38]
        if dtype == "float64":
            values += [1e300, -1e300, 2.0**63 - 1024.0]
        with np.errstate(over="ignore"):  # (float16's: beyond 65520, infinities)
            return np.array(values, dtype=dtype)
    info = np.iinfo(dtype)
    values = {info.min, info.max, 0, 1, -1, 127, 128, -129, 255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
              2**32 - 1, 2**32}
    return np.array(sorted(v for v in values if info.min <= v <= info.max), dtype=dtype)


def test_cast_rule_in_c_is_the_references(tmp_path: Path) -> None:
    """Every C kernel converts with scalar_c.converted (cast's rule, written once); for every pair
    of dtypes, at every limit, it gives what the NumPy reference's convert gives, with no
    undefined behaviour (UBSan) and no warning at -Wconversion."""
    dtypes = list(abi.DTYPES)
    lines = ["#include <math.h>", "#include <stdbool.h>", "#include <stdint.h>", "#include <stdio.h>",
             '#include "opf_half.h"', "int main(void)", "{", 'FILE* f = fopen("out.bin", "wb");',
             "if (f == NULL) return 1;"]
    wants = []
    for k, (src, to) in enumerate((s, t) for s in dtypes for t in dtypes):
        values = _edges(src)
        wants.append(numpy_runtime.convert(values, to))
        lines += [f"{{ static const {C_TYPE[src]} in[] = {{{', '.join(_c_literal(v, src) for v in values)}}};",
                  f"{C_TYPE[to]} out[{len(values)}];",
                  f"for (int i = 0; i < {len(values)}; i++) {{ const {C_TYPE[src]} v = in[i]; "
                  f"out[i] = {converted('v', src, to)}; }}",
                  f"if (fwrite(out, sizeof out[0], {len(values)}, f) != {len(values)}) return 2; }}"]
    lines += ["fclose(f);", "return 0;", "}"]
    (tmp_path / "casts.c").write_text("\n".join(lines) + "\n")
    build = subprocess.run(["gcc", *STRICT, "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all", f"-I{RUNTIME}",
                            str(tmp_path / "casts.c"), "-lm", "-o", str(tmp_path / "casts")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "casts")], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    data = (tmp_path / "out.bin").read_bytes()
    at = 0
    for want in wants:
        got = np.frombuffer(data, dtype=want.dtype, count=want.size, offset=at)
        at += want.nbytes
        assert np.array_equal(got, want, equal_nan=True), (want.dtype, got, want)
    assert at == len(data)


HALF_PROGRAM = r"""
#include <stdio.h>
#include "opf_half.h"
/* Every half as a float; then floats and doubles (from stdin, as bits) as halves. */
int main(void)
{
    for (uint32_t h = 0; h < 65536u; h++) {
        const float f = opf_f16_to_f32((uint16_t)h);
        fwrite(&f, sizeof f, 1, stdout);
    }
    uint32_t count;
    if (fread(&count, sizeof count, 1, stdin) != 1) return 1;
    for (uint32_t i = 0; i < count; i++) {
        double d;
        if (fread(&d, sizeof d, 1, stdin) != 1) return 1;
        const uint16_t from_double = opf_f64_to_f16(d), from_float = opf_f32_to_f16((float)d);
        fwrite(&from_double, sizeof from_double, 1, stdout);
        fwrite(&from_float, sizeof from_float, 1, stdout);
    }
    return 0;
}
"""


def test_half_conversions_are_numpy_s(tmp_path: Path) -> None:
    """opf_half.h (ADR 0075) gives NumPy's conversions: every half to float exactly (NaN payloads
    too), and to a half from doubles and floats rounded to nearest, ties to even, at every halfway
    point between two halves and one ulp either side, across subnormals, and past 65520 and 2^-25,
    under UBSan."""
    (tmp_path / "half.c").write_text(HALF_PROGRAM)
    build = subprocess.run(["gcc", *STRICT, "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all", f"-I{RUNTIME}",
                            str(tmp_path / "half.c"), "-o", str(tmp_path / "half")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    finite = halves[np.isfinite(halves)].astype(np.float64)
    ordered = np.unique(finite)
    middles = (ordered[:-1] + ordered[1:]) / 2  # (each exact in a double)
    bits = middles.view(np.uint64)
    near = np.concatenate([(bits + np.uint64(1)).view(np.float64), (bits - np.uint64(1)).view(np.float64), middles])
    rng = np.random.default_rng(75)
    values = np.concatenate([near, -near, [65504.0, 65519.99, 65520.0, 1e6, np.inf, -np.inf, np.nan, 2.0**-25,
                                           2.0**-25 * 1.0000001, 2.0**-24, 2.0**-14, 1e-300],
                             rng.standard_normal(20000) * 10.0 ** rng.integers(-9, 6, 20000)])
    given = np.uint32(values.size).tobytes() + values.astype(np.float64).tobytes()
    run = subprocess.run([str(tmp_path / "half")], input=given, capture_output=True)
    assert run.returncode == 0, run.stderr
    floats = np.frombuffer(run.stdout, np.float32, 65536)
    want = halves.astype(np.float32)
    assert np.array_equal(floats.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.isnan(floats[np.isnan(want)]).all()
    got = np.frombuffer(run.stdout, np.uint16, offset=65536 * 4).reshape(-1, 2)
    with np.errstate(over="ignore"):
        from_double = values.astype(np.float16)
        from_float = values.astype(np.float32).astype(np.float16)
    nan = np.isnan(values)
    assert np.array_equal(got[~nan, 0], from_double.view(np.uint16)[~nan])
    assert np.array_equal(got[~nan, 1], from_float.view(np.uint16)[~nan])
    assert np.isnan(got[nan].view(np.float16)).all()


def test_q_logarithms_are_cmsis_dsp_s_arm_vlog_in_c_and_numpy(library: Path, tmp_path: Path) -> None:
    """q_log (a Q15 or Q31 logarithm's, ADR 0046) is CMSIS-DSP's arm_vlog bit for bit: C's
    opf_q_log_i16 and _i32 and NumPy's ``_k.q_log`` at every positive Q15 value and at seeded Q31
    values, the powers of two and their neighbours (under UBSan); the lowest value for 0 and below.
    ilog2 (its output shift's) is the bit length less one."""
    import cmsisdsp as dsp  # (the owner of arm_vlog: a test dependency, never skipped)
    rng = np.random.default_rng(11)
    q15 = np.arange(-3, 2**15, dtype=np.int16)
    powers = np.int64(2) ** np.arange(31)
    q31 = np.concatenate([rng.integers(1, 2**31 - 1, 20000), powers, powers[1:] - 1, powers[:-1] + 1,
                          [2**31 - 1, 0, -1, -2**31]]).astype(np.int32)
    want = {}
    for name, values in (("i16", q15), ("i32", q31)):
        positive = values > 0
        theirs = getattr(dsp, f"arm_vlog_q{15 if name == 'i16' else 31}")(values[positive])
        want[name] = np.where(positive, 0, np.iinfo(values.dtype).min).astype(values.dtype)
        want[name][positive] = theirs
        assert np.array_equal(numpy_runtime.q_log(values), want[name]), name
    ints = np.array([-5, 0, 1, 2, 3, 4, 7, 8, 9, 135, 2**31 - 1], dtype=np.int32)
    assert numpy_runtime.ilog2(ints).tolist() == [int(v).bit_length() - 1 if v > 1 else 0 for v in ints]
    printed = _printed_under_ubsan(library, tmp_path, "q_log", [
        f"static const int16_t a[] = {{{', '.join(map(str, q15.tolist()))}}};",
        f"static const int32_t b[] = {{{', '.join(f'(int32_t){v}' for v in q31.tolist())}}};",
        f"static const int32_t c[] = {{{', '.join(f'(int32_t){v}' for v in ints.tolist())}}};",
        f'for (int i = 0; i < {q15.size}; i++) {{ printf("%d\\n", (int)opf_q_log_i16(a[i])); }}',
        f'for (int i = 0; i < {q31.size}; i++) {{ printf("%ld\\n", (long)opf_q_log_i32(b[i])); }}',
        f'for (int i = 0; i < {ints.size}; i++) {{ printf("%d\\n", (int)opf_ilog2_i32(c[i])); }}'])
    assert printed == [*want["i16"].tolist(), *want["i32"].tolist(), *numpy_runtime.ilog2(ints).tolist()]


def _printed_under_ubsan(library: Path, tmp_path: Path, name: str, body: list[str]) -> list[int]:
    """The integers a program of the runtime prints (``body``: main's statements), compiled strictly
    with the undefined-behaviour sanitizer, which stops it at the first such behaviour."""
    source = tmp_path / f"{name}.c"
    source.write_text('#include <stdio.h>\n#include "opforge_internal.h"\nint main(void)\n{\n'
                      + "".join(f"    {line}\n" for line in body) + "    return 0;\n}\n")
    proc = _gcc(library, "-O2", "-fsanitize=undefined", "-fno-sanitize-recover=all", str(source),
                str(library / "src" / "opforge_core.c"), "-lm", "-o", str(tmp_path / name))
    assert proc.returncode == 0, proc.stderr
    return [int(w) for w in subprocess.run([str(tmp_path / name)], capture_output=True, text=True,
                                           check=True).stdout.split()]

def test_integer_square_roots_are_exact_in_c_and_numpy(library: Path, tmp_path: Path) -> None:
    """isqrt (a fixed-point norm's root) is the floor of the exact square root, 0 below zero: C's
    digit-by-digit opf_isqrt_i64 and NumPy's float root corrected by one (``_k.isqrt``) give
    Python's math.isqrt at the squares, their neighbours, int64's end and seeded values."""
    rng = np.random.default_rng(7)
    roots = np.concatenate([np.arange(0, 70), rng.integers(0, 3037000499, 200), [3037000499]]).astype(np.int64)
    values = np.concatenate([roots * roots, roots * roots - 1, roots * roots + 1,
                             rng.integers(0, 2**63 - 1, 300, dtype=np.int64), [2**63 - 1, -1, -2**63]])
    values = values.astype(np.int64)
    want = [math.isqrt(int(v)) if v >= 0 else 0 for v in values]
    assert numpy_runtime.isqrt(values).tolist() == want
    literals = ", ".join(f"INT64_C({int(v)})" if v > -2**63 else "INT64_MIN" for v in values)
    assert _printed_under_ubsan(library, tmp_path, "isqrt", [
        f"static const int64_t v[] = {{{literals}}};",
        f'for (int i = 0; i < {values.size}; i++) {{ printf("%lld\\n", (long long)opf_isqrt_i64(v[i])); }}']) == want
