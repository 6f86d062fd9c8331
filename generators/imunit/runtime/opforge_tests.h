/* The checks of opforge's comparison tests (<op>_tests.c), in the reference library's
   iassert.h format: one "[PASSED]" or "[FAILED]" line per check. Each returns the number
   of checks failed, 0 or 1. Test code only: a firmware's units never depend on it. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "opforge_expect"
static inline int opforge_expect_report(const char* test, const char* what, long bad, double expected, double actual)
{
    if (bad < 0) {
        printf("[PASSED] %s: (C) %s.\n", test, what);
        return 0;
    }
    printf("[FAILED] %s: (C) %s: element %ld is %.9g, expected %.9g.\n", test, what, bad, actual, expected);
    return 1;
}

static inline int opforge_expect_status(const char* test, const char* call, int expected, int actual)
{
    if (actual != expected) {
        printf("[FAILED] %s: (C) %s returned %d, expected %d.\n", test, call, actual, expected);
        return 1;
    }
    printf("[PASSED] %s: (C) %s returned %d.\n", test, call, actual);
    return 0;
}

/* Floats pass where |actual - expected| <= tolerance * (1 + |expected|), NaN where NaN is
   expected: the rule of the Python checks (numpy.allclose with rtol = atol = tolerance). */
static inline int opforge_expect_near(double expected, double actual, double tolerance)
{
    return actual == expected || (isnan(actual) && isnan(expected)) ||
           fabs(actual - expected) <= tolerance * (1.0 + fabs(expected));
}

static inline int opforge_expect_f32(const char* test, const char* what, const float* expected,
                                     const float* actual, long count, double tolerance)
{
    for (long i = 0; i < count; i++) {
        if (!opforge_expect_near(expected[i], actual[i], tolerance)) {
            return opforge_expect_report(test, what, i, expected[i], actual[i]);
        }
    }
    return opforge_expect_report(test, what, -1, 0.0, 0.0);
}

static inline int opforge_expect_f64(const char* test, const char* what, const double* expected,
                                     const double* actual, long count, double tolerance)
{
    for (long i = 0; i < count; i++) {
        if (!opforge_expect_near(expected[i], actual[i], tolerance)) {
            return opforge_expect_report(test, what, i, expected[i], actual[i]);
        }
    }
    return opforge_expect_report(test, what, -1, 0.0, 0.0);
}

/* Integers and bools: the same bytes. */
static inline int opforge_expect_equal(const char* test, const char* what, const void* expected,
                                       const void* actual, size_t size)
{
    const unsigned char* e = (const unsigned char*)expected;
    const unsigned char* a = (const unsigned char*)actual;
    for (size_t i = 0; i < size; i++) {
        if (e[i] != a[i]) {
            printf("[FAILED] %s: (C) %s: byte %lu is %u, expected %u.\n", test, what, (unsigned long)i, a[i], e[i]);
            return 1;
        }
    }
    return opforge_expect_report(test, what, -1, 0.0, 0.0);
}
#pragma IMAGINET_FRAGMENT_END
