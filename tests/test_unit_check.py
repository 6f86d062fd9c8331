"""``unit-check``: units evaluated as Studio evaluates them. Over the real DEEPCRAFT
library (the reference for what a unit may say) it must find no error but the
.NET factories; what it gives for real units must be what those units promise;
and every kind of problem it exists to find must be found."""

from __future__ import annotations

import os
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT
from generators.imunit import checker
from generators.imunit.values import VALUE_TYPES



def _library() -> Path | None:
    """The reference library: $OPFORGE_UNIT_LIBRARY, else ``shared/reference`` beside the
    checkout or one of its parents (``../shared/reference``), else the team machine's."""
    candidates = [Path(os.environ["OPFORGE_UNIT_LIBRARY"])] if os.environ.get("OPFORGE_UNIT_LIBRARY") else []
    candidates += [p / "shared" / "reference" / "deepcraft-unit-library" for p in ROOT.parents]
    candidates.append(Path("/work/shared/reference/deepcraft-unit-library"))
    return next((c for c in candidates if c.is_dir()), None)


LIBRARY = _library() or Path("deepcraft-unit-library-not-found")
needs_library = pytest.mark.skipif(not LIBRARY.is_dir(), reason="the reference unit library is not here")

#: Units whose implementation is a .NET factory, which only Studio can run.
EXTERNAL = {"Labels.imunit"}


@needs_library
def test_the_reference_library_checks_without_errors(cli) -> None:
    result = cli("unit-check", str(LIBRARY))
    lines = result.output.splitlines()
    assert len(lines) == len(list(LIBRARY.rglob("*.imunit")))
    errors = {Path(line.split(": ")[0]).name for line in lines if ": error: " in line}
    assert errors == EXTERNAL, [line for line in lines if ": error: " in line]
    assert all(": error: external: .NET factory " in line for line in lines if ": error: " in line)
    assert result.exit_code == 1  # the factories are errors: the tool cannot evaluate them


@needs_library
@pytest.mark.parametrize("type_name", [t for t in VALUE_TYPES if t not in ("String", "Float16")])
def test_every_type_and_shape_evaluates_in_every_reference_unit(type_name: str) -> None:
    """Each System type in every socket, at ranks 1 to 3: units refuse or accept, none fails to evaluate."""
    files = checker.unit_files([LIBRARY])
    library = checker.Library([LIBRARY])
    for shape in ("[512]", "[1]", "[16,8]", "[6,2]", "[4,8,16]"):
        for path in files:
            root = ET.parse(path).getroot()
            sockets = {e.get("name") for e in root.iter("InputSocket")} | {e.get("param") for e in
                                                                           root.iter("TensorInputNode")}
            inputs = dict(checker.parse_input(f"{name}={type_name}{shape}") for name in sockets)
            verdict = checker.check_unit(path, inputs, {}, library)
            assert verdict.kind != "error" or path.name in EXTERNAL, verdict.line()


@needs_library
@pytest.mark.parametrize(("unit", "inputs", "options", "expected"), [
    # Add broadcasts b into a: the guide's own example (12.5.2)
    ("Multifold/Add", ["a=Float32[4,3,5]", "b=Float32[1,3,5]"], [], "ok output: Float32[4,3,5] (rate=100)"),
    ("Multifold/Add", ["a=Float32[4,3,5]", "b=Float32[2,3,5]"], [], "error: "),
    ("Single/Max", ["input=Float32[3,5,7]"], ["axis=1"], "ok output: Float32[3,7] (rate=100)"),  # axis 1: the 5
    ("Single/Max", ["input=Float32[3,5,7]"], ["axis=3"], "refused: "),
    ("FixedPoint/Quantize", ["input=Float32[8]"], ["output_type='q15'", "shift=2"],
     "ok output: Q15[8] (rate=100, shift=2)"),
    ("ElementWise/Clip", ["input=Q15[8]"], ["global_use_cmsis=true"], "ok output: Q15[8] (rate=100)"),
    ("ElementWise/Clip", ["input=Q15[8]"], [], "refused: no C implementation"),  # Q15 only through CMSIS
    ("Meta/Transpose", ["input=Float32[3,4]"], [], "ok output: Float32[4,3] (rate=100)"),
    ("Meta/Transpose", ["input=Int8[3,4]"], [], "refused: no C implementation"),
])
def test_real_units_give_what_they_promise(cli, unit: str, inputs: list[str], options: list[str],
                                           expected: str) -> None:
    path = LIBRARY / "Imaginet.Units.Math" / unit
    args = [a for spec in inputs for a in ("--input", spec)] + [a for spec in options for a in ("--option", spec)]
    line = cli("unit-check", str(path), *args).output.strip()
    assert line.split(".imunit: ", 1)[1].startswith(expected), line


@needs_library
def test_streaming_units_and_compounds(cli) -> None:
    signal = LIBRARY / "Imaginet.Units.Signal" / "TemporalAnalysis"
    lines = cli("unit-check", str(signal / "SlidingWindow"), str(signal / "ContextualWindow"),
                "--input", "input=Float32[3]").output.splitlines()
    # a window of 128 rows of 3 at 100 Hz with stride 3: one window per input
    assert lines[0].endswith("ok output: Float32[128,3] (rate=100); time_output: Float32[2] (rate=100)"), lines[0]
    # the compound: 2 s at 100 Hz, a prediction at 10 Hz, through its SlidingWindow node
    assert lines[1].endswith("ok output: Float32[200,3] (rate=10)"), lines[1]
    refused = cli("unit-check", str(signal / "SlidingWindow"), "--input", "input=Float32[5]").output
    assert refused.strip().endswith("refused: Window shape (384) must be a multiple of input size (5)")
    unconnected = cli("unit-check", str(signal / "SlidingWindow"), "--input", "input=Float32[3]",
                      "--input", "time_input=null").output
    assert unconnected.strip().endswith("ok output: Float32[128,3] (rate=100); time_output: null")


UNIT = """\
<?xml version="1.0" encoding="utf-8" ?>
<Imaginet>
  <Unit name="Test.Scale">
    <Parameters>
      <InputSocket name="input" />
      <DoubleOption name="factor" default="2" />
      <Expression name="count" value="{count}" />
      <OutputSocket name="output" type="input.type" shape="input.shape" />
    </Parameters>
    <Contracts>
      <Assert test="input.shape.count &lt;= 3" error="at most 3 axes, got {{input.shape.count}} ({{input.shape}})" />
    </Contracts>
    <Implementations>
      <Implementation language="C" fragment="{fragment}" call="{call}">
        <Conditional value="input.type == System.Float32" />
      </Implementation>
    </Implementations>
  </Unit>
</Imaginet>
"""
FRAGMENTS = """\
#pragma IMAGINET_FRAGMENT_BEGIN "helper"
static inline float helper(float v, float f) { return v * f; }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "scale_f32"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "helper"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "../shared/common.h:common"
static inline void scale_f32(const float* restrict input, int count, float factor, float* restrict output)
{
    for (int i = 0; i < count; i++) output[i] = helper(input[i], factor);
}
#pragma IMAGINET_FRAGMENT_END
"""


def _unit(tmp_path: Path, *, count: str = "input.shape.flat", fragment: str = "scale.h:scale_f32",
          call: str = "scale_f32(input, count, factor, output)", fragments: str = FRAGMENTS,
          shared: bool = True) -> Path:
    folder = tmp_path / "Scale"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Scale.imunit").write_text(UNIT.format(count=count, fragment=fragment, call=call), encoding="utf-8")
    (folder / "scale.h").write_text(fragments, encoding="utf-8")
    if shared:
        (tmp_path / "shared").mkdir(exist_ok=True)
        (tmp_path / "shared" / "common.h").write_text(
            '#pragma IMAGINET_FRAGMENT_BEGIN "common"\n#define COMMON 1\n#pragma IMAGINET_FRAGMENT_END\n')
    return folder / "Scale.imunit"


def test_a_sound_unit_is_ok(tmp_path: Path) -> None:
    verdict = checker.check_unit(_unit(tmp_path), {})
    assert (verdict.kind, verdict.text) == ("ok", "output: Float32[4,8,16] (rate=100)")


@pytest.mark.parametrize(("change", "message"), [
    ({"count": "input.shape.flat +"}, "expression count 'input.shape.flat +': column 19: expected a value, found the end"),
    ({"count": "input.shape.flatt"}, "expression count 'input.shape.flatt': Shape has no member 'flatt'"),
    ({"count": "input.shape.broadcastable(input.shape)"},
     "broadcastable is not part of Imaginet's expression language (an opforge extension)"),
    ({"count": "Math.log2(8)"}, "Math has no member 'log2'"),
    ({"count": "count + 1"}, "count -> count: a cycle"),
    ({"fragment": "scale.h:scale_f64"}, "fragment 'scale.h:scale_f64': scale.h has no fragment 'scale_f64'"),
    ({"fragment": "missing.h:scale_f32"}, "no file"),
    ({"shared": False}, "fragment '../shared/common.h:common': no file"),
    ({"call": "scale_f32(input, count, output)"}, "scale_f32 takes 4 arguments, the call passes 3"),
    ({"call": "scale_f32(count, count, factor, output)"}, "a number passed for the pointer"),
    ({"call": "scale_f32(input, input, factor, output)"}, "a tensor passed for 'int count'"),
    ({"call": "scale(input, count, factor, output)"}, "defines no function scale"),
])
def test_problems_are_errors_that_say_what_is_wrong(tmp_path: Path, change: dict, message: str) -> None:
    verdict = checker.check_unit(_unit(tmp_path, **change), {})
    assert verdict.kind == "error" and message in verdict.text, verdict.line()


def test_a_section_with_return_status_needs_a_function_that_returns_one(tmp_path: Path) -> None:
    path = _unit(tmp_path)
    path.write_text(path.read_text().replace("<Implementations>", '<Implementations returnStatus="true">'))
    verdict = checker.check_unit(path, {})
    assert verdict.text == "Implementations has returnStatus, but scale_f32 returns void", verdict.line()
    (path.parent / "scale.h").write_text(FRAGMENTS.replace("static inline void scale_f32", "static inline int scale_f32")
                                         .replace("helper(input[i], factor);", "helper(input[i], factor); return 0;"))
    assert checker.check_unit(path, {}).kind == "ok"


def test_a_failed_assert_is_a_refusal_with_its_message(tmp_path: Path) -> None:
    inputs = dict([checker.parse_input("input=Float32[2,3,4,5]")])
    verdict = checker.check_unit(_unit(tmp_path), inputs)
    assert (verdict.kind, verdict.text) == ("refused", "at most 3 axes, got 4 ([2,3,4,5])")
    inputs = dict([checker.parse_input("input=Int8[2]")])
    assert checker.check_unit(_unit(tmp_path), inputs).text == "no C implementation of Implementations applies"


def test_the_command_line(cli, tmp_path: Path) -> None:
    path = _unit(tmp_path)
    ok = cli("unit-check", str(tmp_path), "--input", "input=Float32[3]", "--option", "factor=0.5")
    assert (ok.exit_code, ok.output) == (0, f"{path}: ok output: Float32[3] (rate=100)\n")
    _unit(tmp_path, count="nope")
    error = cli("unit-check", str(path))
    assert error.exit_code == 1 and error.output.startswith(f"{path}: error: expression count 'nope'")
    bad = cli("unit-check", str(path), "--input", "input=Float33[3]")
    assert bad.exit_code == 2 and "unknown type 'Float33'" in bad.output
    assert cli("unit-check", str(tmp_path / "nothing")).exit_code == 2


def test_the_seed_format(tmp_path: Path) -> None:
    """The custom-unit reference's own elements: Function, Hidden, BooleanOption, TensorType and a
    Composite stacking a unit, whose declared output must be what the stacked unit gives."""
    _unit(tmp_path)
    composite = tmp_path / "Twice" / "Twice.imunit"
    composite.parent.mkdir()
    composite.write_text(textwrap.dedent("""\
        <Imaginet>
          <Composite unit="Test.Twice">
            <Parameters>
              <InputSocket name="input" />
              <BooleanOption name="flip" default="false" />
              <Hidden name="out_shape" value="flip ? input.shape.remove(0) : input.shape" />
              <OutputSocket name="output" type="input.type" shape="out_shape" />
            </Parameters>
            <Stacked>
              <Unit id="Test.Scale">
                <Argument param="input">input</Argument>
                <Argument param="factor">2.0</Argument>
                <Argument param="output">output</Argument>
              </Unit>
            </Stacked>
          </Composite>
        </Imaginet>"""), encoding="utf-8")
    verdicts = {v.path.name: v for v in checker.check([tmp_path])}
    assert verdicts["Twice.imunit"].line().endswith("ok output: Float32[4,8,16] (rate=100)")
    flipped = checker.check([tmp_path], options={"flip": True})
    assert [v.text for v in flipped if v.path.name == "Twice.imunit"] == [
        "output output is declared Float32[4,8] (rate=100), its stacked unit gives Float32[4,8,16] (rate=100)"]


@needs_library
def test_reference_units_assemble_into_one_firmware_file(tmp_path: Path) -> None:
    """Every reference unit the checker accepts, its C fragments and their dependencies (libfft's,
    shared by four transforms through relative paths) once each in one file, as Imaginet
    assembles a firmware: it compiles, with one definition of each function."""
    chosen = []
    library = checker.Library([LIBRARY])
    units = 0
    for path in checker.unit_files([LIBRARY]):
        if checker.check_unit(path, {}, {}, library).kind != "ok" or path.name == "ContextualWindow.imunit":
            continue
        picked = checker.implementations(path, {}, {})
        if any("arm_math.h" in f.path.read_text(encoding="utf-8-sig") for c in picked for f in c.fragments):
            continue  # needs the cmsis-dsp code package
        units += 1
        chosen += picked
    source = tmp_path / "firmware.c"
    source.write_text(checker.assemble(chosen), encoding="utf-8")
    # gnu99: the real fragments use M_PI, which strict C99's <math.h> does not declare
    build = subprocess.run(["gcc", "-std=gnu99", "-Wno-unknown-pragmas", "-c", str(source), "-o", str(tmp_path / "f.o")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    assert units >= 40 and source.read_text().count("/* fftsg_f32.c: rdft */") == 1


def test_an_option_without_a_default_takes_its_first_choice_or_zero(tmp_path: Path) -> None:
    """The custom-unit reference: "if not specified, 0 is assumed"; a choice's first item is its value."""
    path = tmp_path / "Opt.imunit"
    path.write_text(textwrap.dedent("""\
        <Imaginet>
          <Unit name="Test.Opt">
            <Parameters>
              <InputSocket name="input" />
              <Int32Option name="mode"><OneOf><Item text="Two">2</Item><Item text="Three">3</Item></OneOf></Int32Option>
              <DoubleOption name="gain" />
              <OutputSocket name="output" type="input.type" shape="System.Shape(mode + 1, real(gain).ceil + 1)" />
            </Parameters>
          </Unit>
        </Imaginet>"""), encoding="utf-8")
    assert checker.check_unit(path, {}).text == "output: Float32[3,1] (rate=100)"
