"""The checks of opforge's comparison tests (<op>_tests.py), in the reference library's
iassert format: one "[PASSED]" or "[FAILED]" line per check. Test code only."""

#pragma IMAGINET_INCLUDES_BEGIN
import numpy as np
#pragma IMAGINET_INCLUDES_END


#pragma IMAGINET_FRAGMENT_BEGIN "opforge_expect"
def opforge_expect(test, what, expected, actual, tolerance):
    """1 (and a "[FAILED]" line) unless ``actual`` is ``expected``: of the same shape and type,
    floats where |actual - expected| <= tolerance * (1 + |expected|) (NaN where NaN is
    expected, the C checks' rule), others equal; else 0 and a "[PASSED]" line."""
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        print(f"[FAILED] {test}: (Python) {what}: {actual.dtype}{list(actual.shape)}, expected "
              f"{expected.dtype}{list(expected.shape)}.")
        return 1
    if expected.dtype.kind == "f":
        near = np.isclose(actual, expected, rtol=tolerance, atol=tolerance, equal_nan=True)
    else:
        near = actual == expected
    if not near.all():
        bad = int(np.flatnonzero(~near)[0])
        print(f"[FAILED] {test}: (Python) {what}: element {bad} is {actual.flat[bad]}, expected "
              f"{expected.flat[bad]}.")
        return 1
    print(f"[PASSED] {test}: (Python) {what}.")
    return 0


#pragma IMAGINET_FRAGMENT_END
