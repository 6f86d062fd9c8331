"""The docs site's getting-started pages: install, a first Python call, a first C program
with CMake, a first unit. The C program is built and run against the installed library by
the tests, from the page itself, so the page stays true."""

from __future__ import annotations

import numpy as np

from dsl.model import Catalogue

#: The pages, by path under docs/, with their titles (the site's nav order).
PAGES = {"getting-started/install.md": "Install", "getting-started/python.md": "A first Python call",
         "getting-started/c.md": "A first C program", "getting-started/unit.md": "A first unit"}

CMAKE = """cmake_minimum_required(VERSION 3.15)
project(consumer C)
find_package(opforge {want} CONFIG REQUIRED)
add_executable(consumer main.c)
set_target_properties(consumer PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
target_compile_options(consumer PRIVATE -Wall -Wextra -Werror -pedantic)
target_link_libraries(consumer PRIVATE opforge::opforge)
"""

TABLE = (1.5, -2.0, 2.5, 0.5)

MAIN = r"""#include <opforge/opforge_all.h>
#include <stdio.h>

/* A const table as an input: no cast, no warning. */
static const float table[4] = {%s};

int main(void)
{
    float twice[4], rounded[4];
    const char* detail = NULL;
    const opforge_tensor x = {.data = table, .dtype = OPFORGE_FLOAT32, .rank = 1, .shape = {4}};
    opforge_tensor sum = {.data = twice, .dtype = OPFORGE_FLOAT32, .rank = 1, .shape = {4}};
    opforge_tensor near = {.data = rounded, .dtype = OPFORGE_FLOAT32, .rank = 1, .shape = {4}};
    opforge_status st = opforge_math_add(&x, &x, &sum, &detail);
    if (st == OPFORGE_OK) {
        st = opforge_math_round(&x, OPFORGE_MATH_ROUND_HALF_TO_EVEN, &near, &detail);
    }
    if (st != OPFORGE_OK) {
        printf("failed: %%s\n", detail ? detail : opforge_status_message(st));
        return 1;
    }
    printf("opforge %%s\n", OPFORGE_VERSION_STRING);
    printf("%%g %%g %%g %%g | %%g %%g %%g %%g\n", twice[0], twice[1], twice[2], twice[3], rounded[0], rounded[1],
           rounded[2], rounded[3]);
    return 0;
}
""" % ", ".join(f"{v}f" for v in TABLE)


def c_output(version: str) -> str:
    """What the program prints: the sum and the rounding (half to even) of the table, as NumPy
    computes them (the package's tests hold the C kernels to NumPy)."""
    table = np.array(TABLE, dtype=np.float32)
    twice, rounded = table + table, np.round(table)
    printed = " ".join("%g" % v for v in twice) + " | " + " ".join("%g" % v for v in rounded)
    return f"opforge {version}\n{printed}\n"


def python_results() -> dict[str, str]:
    """The first Python call's printed results, as NumPy computes them."""
    x = np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.0]], dtype=np.float32)
    return {"add_result": "\n".join(f"# {line}" for line in str(x + np.float32(1.5)).splitlines()),
            "sum_result": "\n".join(f"# {line}" for line in str(x.sum(axis=1)).splitlines())}


def values(catalogue: Catalogue) -> dict[str, str]:
    """What the pages' templates are rendered with."""
    major, minor, _ = catalogue.version.split(".")
    return {"version": catalogue.version, "major_minor": f"{major}.{minor}",
            "cmake": CMAKE.format(want=f"{major}.{minor}"), "main": MAIN, "says": c_output(catalogue.version),
            **python_results()}
