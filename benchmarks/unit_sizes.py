"""Cortex-M4 code size of opforge's units next to the real DEEPCRAFT units of the same job.

Run on demand (it needs Debian's gcc-arm-none-eabi, which ./test.sh installs as root, and the
reference unit library, ../shared/reference/deepcraft-unit-library or $OPFORGE_UNIT_LIBRARY):

    .venv/bin/python benchmarks/unit_sizes.py [docs/unit-sizes.md]

Both sides are measured the same way: ``unit-check``'s evaluation picks the C implementation
each lifecycle section runs for float32 inputs; the fragments it needs and their dependencies
are assembled into one file as Imaginet assembles a firmware (``checker.assemble``), with one
external entry per section that calls the unit's function with its parameters; the file is
compiled with arm-none-eabi-gcc at -Os for a Cortex-M4 with hard float, and its .text counted
(functions the entries do not reach are never emitted: fragments are ``static``). Calls into
newlib (``sinf``, ...) are outside both counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generators.imunit import checker  # noqa: E402

FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-std=c99", "-Os",
         "-ffunction-sections", "-fdata-sections", "-Wno-unknown-pragmas", "-w"]
LIMIT = 1.5  # the target: an opforge unit at most 1.5 times the real one

#: (opforge unit, its inputs and options; real unit under the library, its inputs and options).
PAIRS: list[tuple[str, dict[str, str], dict[str, str], str, dict[str, str], dict[str, str]]] = [
    ("math/abs", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/ElementWise/Abs", {"input": "[16,8]"}, {}),
    ("math/add", {"x": "[16,8]", "y": "[16,8]"}, {}, "Imaginet.Units.Math/Multifold/Add", {"a": "[16,8]", "b": "[16,8]"}, {}),
    # b broadcast along the outer axis: the real Add's five loops, opforge's checked path
    ("math/add", {"x": "[16,8]", "y": "[1,8]"}, {}, "Imaginet.Units.Math/Multifold/Add", {"a": "[16,8]", "b": "[1,8]"}, {}),
    ("math/sub", {"x": "[16,8]", "y": "[16,8]"}, {}, "Imaginet.Units.Math/Multifold/Sub", {"a": "[16,8]", "b": "[16,8]"}, {}),
    ("math/mul", {"x": "[16,8]", "y": "[16,8]"}, {}, "Imaginet.Units.Math/Multifold/Mul", {"a": "[16,8]", "b": "[16,8]"}, {}),
    ("math/div", {"x": "[16,8]", "y": "[16,8]"}, {}, "Imaginet.Units.Math/Multifold/Div", {"a": "[16,8]", "b": "[16,8]"}, {}),
    ("math/clip_by_value", {"x": "[16,8]"}, {"clip_value_min": "-1.0", "clip_value_max": "1.0"},
     "Imaginet.Units.Math/ElementWise/Clip", {"input": "[16,8]"}, {"min": "-1.0", "max": "1.0"}),
    ("math/round", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/ElementWise/Round", {"input": "[16,8]"}, {}),
    ("math/cos", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Cos", {"input": "[16,8]"}, {}),
    ("math/sin", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Sin", {"input": "[16,8]"}, {}),
    ("math/tanh", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Tanh", {"input": "[16,8]"}, {}),
    ("math/acos", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/ArcCos", {"input": "[16,8]"}, {}),
    ("math/cosh", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Cosh", {"input": "[16,8]"}, {}),
    ("math/sinh", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Sinh", {"input": "[16,8]"}, {}),
    ("math/tan", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Tan", {"input": "[16,8]"}, {}),
    ("math/asin", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/ArcSin", {"input": "[16,8]"}, {}),
    ("math/atan", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/ArcTan", {"input": "[16,8]"}, {}),
    ("math/log", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/ElementWise/Log", {"input": "[16,8]"}, {}),
    ("math/pow", {"x": "[16,8]", "y": "[1]"}, {}, "Imaginet.Units.Math/Multifold/DynamicPower",
     {"input": "[16,8]", "exponent": "[1]"}, {}),
    ("base/concat", {"inputs0": "[16,8]", "inputs1": "[16,8]", "inputs2": "null", "inputs3": "null"}, {},
     "Imaginet.Units.Math/Multifold/Concat", {"i0": "[16,8]", "i1": "[16,8]"}, {}),
    # (three inputs: the real stack_x2_f32 does not compile, a comma is missing in its parameters)
    ("base/stack", {"inputs0": "[16,8]", "inputs1": "[16,8]", "inputs2": "[16,8]", "inputs3": "null"}, {},
     "Imaginet.Units.Math/Multifold/Stack", {"i0": "[16,8]", "i1": "[16,8]", "i2": "[16,8]", "i3": "null"}, {}),
    ("math/matrix_transpose", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Meta/Transpose", {"input": "[16,8]"}, {}),
    ("math/sum", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Sum", {"input": "[16,8]"}, {}),
    ("math/mean", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Average", {"input": "[16,8]"}, {}),
    ("math/max", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Max", {"input": "[16,8]"}, {}),
    ("math/min", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Min", {"input": "[16,8]"}, {}),
    ("math/prod", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Prod", {"input": "[16,8]"}, {}),
    ("math/argmax", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Argmax", {"input": "[16,8]"}, {}),
    ("math/argmin", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Argmin", {"input": "[16,8]"}, {}),
    ("math/norm2", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/Norm", {"input": "[16,8]"}, {}),
    ("math/variance", {"x": "[64]"}, {}, "Imaginet.Units.Math/Single/Variance", {"input": "[64]"}, {}),
    ("base/standard_deviation", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Single/StandardDeviation",
     {"input": "[16,8]"}, {}),
    ("math/matmul", {"a": "[4,16]", "b": "[16,8]"}, {}, "Imaginet.Units.Math/Multifold/DotT",
     {"a": "[4,16]", "b": "[8,16]"}, {}),
    # (the real Cast rounds where opforge's truncates, as ND4J and ONNX do; both saturate)
    ("base/cast", {"x": "[16,8]"}, {"dtype": '"int8"'}, "Imaginet.Units.Math/ElementWise/Cast", {"input": "[16,8]"},
     {"output_type": '"int8"', "float_mode": '"clamp"'}),
    # (the real Full takes its value as a socket, opforge's fill as an option)
    ("base/fill", {}, {"shape": "System.Shape(16,8)", "value": "1.0"}, "Imaginet.Units.Math/Meta/Full",
     {"fill_value": "[1]"}, {"shape": "System.Shape(16,8)"}),
    ("signal/sliding_window", {"x": "[1,3]", "time_input": "null"}, {"window": "128", "stride": "1"},
     "Imaginet.Units.Signal/TemporalAnalysis/SlidingWindow", {"input": "[3]", "time_input": "null"}, {}),
]

#: Pairs of a related job that is not the same, measured the same way, shown apart and not
#: counted against the target: (the pair, as above; how the jobs differ).
RELATED = [
    (("base/gather", {"x": "[16,8]", "indices": "Int64[1]"}, {}, "Imaginet.Units.Math/Single/Take",
      {"input": "[16,8]"}, {}),
     "Take's one index is an option its Asserts check at build time; gather's indices are a socket, "
     "data it checks in the firmware"),
    (("base/transpose", {"x": "[16,8]"}, {}, "Imaginet.Units.Math/Meta/Transpose", {"input": "[16,8]"}, {}),
     "base.transpose reverses every axis of any rank (a strided move); math.matrix_transpose, above, swaps "
     "the last two as the real one does"),
]


#: Integer implementations of units that take integers through floats (ADR 0058) next to the
#: real units' of the same type, measured the same way, shown apart (the target is float32's).
INTEGER_PAIRS = [
    ("math/sin", {"x": "Int8[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Sin", {"input": "Int8[16,8]"}, {}),
    ("math/tanh", {"x": "UInt8[16,8]"}, {}, "Imaginet.Units.Math/Trigonometry/Tanh", {"input": "UInt8[16,8]"}, {}),
    ("math/clip_by_value", {"x": "Int16[16,8]"}, {"clip_value_min": "-100.0", "clip_value_max": "100.0"},
     "Imaginet.Units.Math/ElementWise/Clip", {"input": "Int16[16,8]"}, {"min": "-100.0", "max": "100.0"}),
    ("math/mean", {"x": "Int16[16,8]"}, {}, "Imaginet.Units.Math/Single/Average", {"input": "Int16[16,8]"}, {}),
    ("base/standard_deviation", {"x": "Int8[16,8]"}, {}, "Imaginet.Units.Math/Single/StandardDeviation",
     {"input": "Int8[16,8]"}, {}),
]



#: Fixed-point implementations (issue 20) next to the real FixedPoint library's units, measured the
#: same way with their constants (.rodata), shown apart. (The real units of other jobs that accept
#: Q15, Abs, Max, Min, Norm, do so through CMSIS-DSP's library functions alone: nothing to compare.)
Q15_IN = "Q15[16,8] shift=1"
FIXED_POINT_PAIRS = [
    *(("math/quantize", {"input": "[16,8]"}, {"output_type": f'"{q}"', "shift": "1"},
       "Imaginet.Units.Math/FixedPoint/Quantize", {"input": "[16,8]"}, {"output_type": f'"{q}"', "shift": "1"})
      for q in ("q7", "q15", "q31")),
    ("math/dequantize", {"input": Q15_IN}, {}, "Imaginet.Units.Math/FixedPoint/Dequantize", {"input": Q15_IN}, {}),
    ("math/q_shift", {"input": Q15_IN}, {"shift": "2"}, "Imaginet.Units.Math/FixedPoint/QShift", {"input": Q15_IN},
     {"shift": "2"}),
    ("math/bit_utilization", {"input": Q15_IN}, {}, "Imaginet.Units.Math/FixedPoint/BitUtilization",
     {"input": Q15_IN}, {}),
]
#: The real FixedPoint fragments name CMSIS-DSP's types and saturations (arm_math.h, some without
#: including it): compiled with the tests' stand-in for those (tests/runtime/arm_math.h), included.
CMSIS_STAND_IN = ["-I", str(ROOT / "tests" / "runtime"), "-include", "arm_math.h"]

#: Units of no real counterpart: (unit, inputs, options), one plain kernel each (ADR 0066, 0067).
UNMATCHED: list[tuple[str, dict[str, str], dict[str, str]]] = [
    ("base/tensor_mmul", {"x": "[4,8]", "y": "[8,3]"},
     {"dimensions_x": "System.Shape(1)", "dimensions_y": "System.Shape(0)"}),
    ("math/correlate", {"a": "[64]", "v": "[5]"}, {}),
    ("cnn/conv1d", {"x": "[1,3,64]", "w": "[4,3,5]"}, {}),
    ("cnn/conv2d", {"x": "[1,3,16,16]", "w": "[4,3,3,3]"}, {}),
    ("cnn/max_pooling2d", {"x": "[1,3,16,16]"}, {"kernel_shape": "System.Shape(2,2)"}),
    ("cnn/avg_pooling2d", {"x": "[1,3,16,16]"}, {"kernel_shape": "System.Shape(2,2)"}),
]


def library() -> Path:
    given = os.environ.get("OPFORGE_UNIT_LIBRARY")
    candidates = [Path(given)] if given else []
    candidates += [p / "shared" / "reference" / "deepcraft-unit-library" for p in ROOT.parents]
    found = next((c for c in candidates if c.is_dir()), None)
    if found is None:
        sys.exit("the reference unit library is not here: set OPFORGE_UNIT_LIBRARY")
    return found


def source(chosen: list[checker.Chosen]) -> str:
    """The assembled fragments and one external entry per section."""
    return checker.assemble(chosen) + "\n" + checker.entries(chosen)


def text_bytes(code: str, folder: Path, name: str, sections: tuple[str, ...] = (".text",),
               flags: list[str] | None = None) -> int:
    c_file, obj = folder / f"{name}.c", folder / f"{name}.o"
    c_file.write_text(code, encoding="utf-8")
    subprocess.run(["arm-none-eabi-gcc", *FLAGS, *(flags or []), "-c", str(c_file), "-o", str(obj)], check=True,
                   capture_output=True, text=True)
    listed = subprocess.run(["arm-none-eabi-size", "-A", str(obj)], check=True, capture_output=True, text=True).stdout
    return sum(int(line.split()[1]) for line in listed.splitlines() if line.startswith(sections))


def measure(path: Path, inputs: dict[str, str], options: dict[str, str], folder: Path, name: str,
            sections: tuple[str, ...] = (".text",), flags: list[str] | None = None) -> int:
    # (dims alone: a Float32 tensor; a type before them, that type)
    given = dict(checker.parse_input(f"{k}={'Float32' + v if v.startswith('[') else v}") for k, v in inputs.items())
    chosen = checker.implementations(path, given, dict(checker.parse_option(f"{k}={v}") for k, v in options.items()))
    return text_bytes(source(chosen), folder, name, sections, flags)


def main(target: Path) -> None:
    reference = library()
    version = subprocess.run(["arm-none-eabi-gcc", "--version"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "imunit", "-outdir", str(folder)],
                       cwd=ROOT, check=True, capture_output=True)

        def row(unit: str, inputs: dict[str, str], options: dict[str, str], real: str, real_inputs: dict[str, str],
                real_options: dict[str, str], sections: tuple[str, ...] = (".text",),
                real_flags: list[str] | None = None) -> tuple[str, float]:
            ours_path = folder / "imunit" / unit / f"{unit.rsplit('/', 1)[1]}.imunit"
            real_path = next((reference / real).glob("*.imunit"))
            ours = measure(ours_path, inputs, options, folder, unit.replace("/", "_"), sections)
            theirs = measure(real_path, real_inputs, real_options, folder, "real_" + real_path.stem, sections,
                             real_flags)
            ratio = ours / theirs if theirs else float("inf")
            shapes = " + ".join(v for v in inputs.values() if v != "null") or "(none)"
            shapes += f" to {options['output_type'].strip(chr(34))}" if "output_type" in options else ""
            return f"| `{unit.replace('/', '.')}` | {shapes} | {real_path.stem} | {ours} | {theirs} | {ratio:.2f} |", ratio

        measured = [row(*pair) for pair in PAIRS]
        rows, within = [r for r, _ in measured], sum(ratio <= LIMIT for _, ratio in measured)
        related = [f"{row(*pair)[0]} {why} |" for pair, why in RELATED]
        integers = [row(*pair, sections=(".text", ".rodata"))[0] for pair in INTEGER_PAIRS]
        fixed = [row(*pair, sections=(".text", ".rodata"), real_flags=CMSIS_STAND_IN)[0] for pair in FIXED_POINT_PAIRS]
        alone = []
        for unit, inputs, options in UNMATCHED:
            path = folder / "imunit" / unit / f"{unit.rsplit('/', 1)[1]}.imunit"
            shapes = " + ".join(inputs.values())
            alone.append(f"| `{unit.replace('/', '.')}` | {shapes} | "
                         f"{measure(path, inputs, options, folder, unit.replace('/', '_'))} |")
    lines = ["# Unit sizes against the DEEPCRAFT library", "",
             f"Measured by `benchmarks/unit_sizes.py` with {version}, flags `{' '.join(FLAGS)}`: the .text of",
             "the float32 implementation of each unit (every lifecycle section's, assembled with its fragment",
             "dependencies as Imaginet assembles a firmware), next to the real unit of the same job, measured",
             f"the same way. Target: at most {LIMIT} times the real unit; {within} of {len(rows)} meet it.",
             "Elementwise units run a plain kernel over the element count when their inputs have one shape",
             "(float args taken in the kernel's float; a kernel per case of their optional args), one loop",
             "when one input is a single element, and ShapeBroadcast's loops when one input broadcasts",
             "into the other (a loop per axis when both do, the fewest loops that hold the output's rank);",
             "reductions and arg reductions a plain kernel over the size and slot of their",
             "axis when its step is 1, else over its step, size and slot, float32 sums in float32 in",
             "blocks of 16 elements (docs/unit-sum-accuracy.md gives their accuracy); matmul one loop over",
             "the rows of every batch; transpose one loop over the elements; concat and stack a block of",
             "each connected socket per slot; the sliding window the runtime's queue on bytes, counted in",
             "ptrdiff_t; fill one loop storing its value (an Assert has found it exact in the dtype); cast",
             "one loop per pair of dtypes, saturating with comparisons in the input's float type.",
             "tensor_mmul computes one matrix product, each operand read transposed where its option says so",
             "(other pairings of axes are refused, ADR 0066); the convolutions, pools and correlate a loop",
             "per einsum label (ADR 0067). No unit calls the checked C API (descriptors rebuilt from rank",
             "and dims); the seed style's units still do (ADR 0032).",
             "",
             "| opforge unit | float32 inputs | real unit | opforge .text bytes | real .text bytes | ratio |",
             "| --- | --- | --- | ---: | ---: | ---: |", *rows, "",
             "Units of a related job that is not the real unit's, measured the same way and not counted",
             "against the target:", "",
             "| opforge unit | float32 inputs | real unit | opforge .text bytes | real .text bytes | ratio | how the jobs differ |",
             "| --- | --- | --- | ---: | ---: | ---: | --- |", *related, "",
             "Integer implementations of the units that take integers through floats (ADR 0058: the float64",
             "result converted back as cast converts; an 8-bit unary op reads a 256-entry table of it; the",
             "real units convert a double or a float32, or divide an integer sum), measured the same way",
             "with their constants (.rodata: the tables) and not counted against the target; the libm and",
             "soft-float calls (the real units' sin of a double, ...) are outside both counts:", "",
             "| opforge unit | inputs | real unit | opforge .text + .rodata bytes | real .text + .rodata bytes | ratio |",
             "| --- | --- | --- | ---: | ---: | ---: |", *integers, "",
             "Fixed-point implementations (issue 20, ADR 0068) next to the real FixedPoint library's units,",
             "measured the same way with their constants and not counted against the target. The real",
             "fragments name CMSIS-DSP's types and saturations: they are compiled with the tests' portable",
             "stand-in for arm_math.h (a Cortex-M4's __SSAT is one instruction, so theirs count a little",
             "high). The real units of other jobs that take Q15 (Abs, Max, Min, Norm) call CMSIS-DSP's",
             "library functions, which are not here to measure:", "",
             "| opforge unit | inputs | real unit | opforge .text + .rodata bytes | real .text + .rodata bytes | ratio |",
             "| --- | --- | --- | ---: | ---: | ---: |", *fixed, "",
             "Units the reference library has no unit for, measured the same way (float32):", "",
             "| opforge unit | float32 inputs | opforge .text bytes |", "| --- | --- | ---: |", *alone, ""]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "unit-sizes.md")
