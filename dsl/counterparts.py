"""An op's counterparts in ONNX and NNEF, and how it differs from them (ADR 0059).

An op names the ONNX operator (``op.onnx``) and the NNEF standard operation (``op.nnef``) of
the same job. Where it computes otherwise, the difference is stated once: the differences its
form implies (how operands broadcast, whether reduced axes stay) are derived here from the
form, for every op of that form; the rest the op declares in words (``op.unlike_onnx``,
``op.unlike_nnef``). Every target that shows a counterpart (the docs) shows both.

ONNX's operators are many and versioned, so an ONNX name is checked by its form only
(``validate.ONNX_NAME``) and by ONNX's own node tests; NNEF's standard operations are a fixed
list, written here as the official parser declares them, so that a misspelt ``op.nnef`` is a
definition error with a "did you mean". The tests hold this list to the parser's
(``nnef.StandardOperations``) and the derived differences to its shape inference.
"""

from __future__ import annotations

from typing import Any

#: The standard operations of NNEF 1.0.5, as the official parser (``nnef`` 1.0.10) declares them.
NNEF_OPERATIONS = frozenset(
    """
    abs acos acosh add add_n all_reduce and any_reduce area_downsample argmax_pool argmax_reduce
    argmin_reduce asin asinh atan atanh avg_pool avg_roi_align avg_roi_pool avg_unpool
    batch_normalization box cast ceil clamp concat constant conv copy copy_n cos cosh debox deconv
    desample div elu eq exp external floor gather ge gelu gt l1_normalization l2_normalization le
    leaky_relu linear linear_quantize local_contrast_normalization local_mean_normalization
    local_response_normalization local_variance_normalization log log2 logarithmic_quantize lt
    matmul max max_pool max_pool_with_index max_reduce max_roi_align max_roi_pool max_unpool
    mean_reduce min min_max_linear_quantize min_reduce moments mul multilinear_upsample ne
    nearest_downsample nearest_upsample neg not or pad pow prelu rcp relu reshape rms_pool
    roi_resample round rsqr rsqrt sample select selu separable_conv separable_deconv sigmoid sign
    silu sin sinh slice softabs softmax softplus split sqr sqrt squeeze stack sub sum_reduce tan
    tanh tile transpose unsqueeze unstack update variable zero_point_linear_quantize
    """.split()
)


_STRICT = "this op takes operands of one shape, or a scalar one (TML's rule for relational, logical and bitwise ops)"
_DERIVED_BROADCAST = {
    ("onnx", "strict"): "ONNX broadcasts the operands both ways, as NumPy; " + _STRICT,
    ("nnef", "strict"): "NNEF broadcasts axes of size 1 and aligns operands of different ranks at their first "
                        "axes; " + _STRICT,
    ("nnef", "numpy"): "NNEF aligns operands of different ranks at their first axes (the shorter shape gains "
                       "trailing axes of size 1); this op aligns them at their last axes, as NumPy and ONNX do",
}


def differences(op: Any, standard: str) -> tuple[str, ...]:
    """How ``op`` computes otherwise than its counterpart in ``standard`` ("onnx" or "nnef"): what
    its form implies, then what it declares (``unlike_onnx``, ``unlike_nnef``); empty when it names
    no counterpart there or computes what it does."""
    if getattr(op, standard) is None:
        return ()
    derived = _form_differences(op, standard)
    declared = getattr(op, f"unlike_{standard}")
    return (*derived, *([declared] if declared else []))


def _form_differences(op: Any, standard: str) -> list[str]:
    from dsl import compute as C  # (the forms import the model, which this module must not need)

    c = op.compute
    if isinstance(c, C.Elementwise) and len(c.tensors(op)) > 1:
        found = _DERIVED_BROADCAST.get((standard, c.broadcast))
        return [found] if found else []
    if isinstance(c, (C.Reduction, C.ArgReduction)):
        keep = next((a for a in op.args if a.name == c.keep_dims), None)
        found: list[str] = []
        if keep is not None and keep.default is False:
            kept = "keeps each reduced axis with size 1" + (" unless keepdims = 0" if standard == "onnx" else "")
            found = [f"{standard.upper()} {kept}; this op drops them unless {c.keep_dims} is set"]
        axes = next((a for a in op.args if a.name == getattr(c, "axes", None)), None)
        if standard == "nnef" and axes is not None and axes.default == ():
            found.append(f"NNEF reduces the axes it is given, none when the list is empty; this op reduces every "
                         f"axis when {c.axes} is empty")
        return found
    return []
