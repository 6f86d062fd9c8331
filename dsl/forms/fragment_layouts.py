"""The fragment layouts by name, and a fragment of one built from the Fragment builder's options."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.forms.fragment import (WIDEN, AxisFragment, ChannelsFragment, DenseFragment, FlatFragment,
                                FragmentKernel, RowsFragment, SelectFragment, ShapedFragment)
from dsl.forms.matrix_fragment import COLUMNS, MATRIX_LAYOUTS, OUTPUT_LAYOUTS, SHARED, MatrixFragment
from dsl.recovery import did_you_mean

FRAGMENT_LAYOUTS: dict[str, type[FragmentKernel]] = {
    "axis": AxisFragment, "flat": FlatFragment, "rows": RowsFragment, "channels": ChannelsFragment,
    "select": SelectFragment, "dense": DenseFragment, "shaped": ShapedFragment,
    **{layout: MatrixFragment for layout in MATRIX_LAYOUTS},
}

#: Per layout option: its value when not given, and what is wrong when a layout without it is given it.
OPTIONS: dict[str, tuple[Any, str]] = {
    "axis": ("axis", "axis=... names the axis arg of an axis fragment"),
    "widen": (1, WIDEN),
    "length": (None, "length=... names the int arg of a select fragment's rows"),
    "shapes": ((), "shapes=... gives the outputs of a shaped fragment"),
    "failure": (None, "only matrix and shaped fragments can fail (failure=...)"),
    "workspace": (None, "only matrix fragments take a workspace"),
    "output_layouts": ((), OUTPUT_LAYOUTS),
    "shared": ((), SHARED),
    "columns": (None, COLUMNS),
    "fixed_dtypes": ((), "only shaped fragments fix a tensor's dtype (fixed_dtypes=...)"),
}


def fragment_kernel(layout: str, files: dict[str, Any], options: dict[str, Any]) -> \
        tuple[FragmentKernel | None, list[str]]:
    """The fragment of ``layout`` with the common ``files`` fields and the ``options`` its
    class has; what is wrong: an unknown layout, options given that the layout does not take."""
    cls = FRAGMENT_LAYOUTS.get(layout)
    if cls is None:
        return None, [f"fragment layout must be one of {', '.join(FRAGMENT_LAYOUTS)}, got {layout!r}"
                      + did_you_mean(layout, FRAGMENT_LAYOUTS)]
    own = {f.name for f in attrs.fields(cls)}
    stray = [OPTIONS[name][1] for name, value in options.items() if name not in own and value != OPTIONS[name][0]]
    taken = {name: value for name, value in options.items() if name in own}
    if cls is MatrixFragment:
        taken["layout"] = layout
    return cls(**files, **taken), stray
