/* Helpers shared by the generated kernels and API functions: checks, shapes,
 * broadcasting, loop plans and scalar semantics. Everything is static inline:
 * no state, no allocation. */
#ifndef OPFORGE_INTERNAL_H
#define OPFORGE_INTERNAL_H

#include "opf_base.h"
#include "opf_layouts.h"
#include "opf_indexing.h"
#include "opf_tensors.h"
#include "opf_reduce.h"
#include "opf_einsum.h"
#include "opf_random.h"
#include "opf_window.h"
#include "opf_dims.h"
#include "opf_scalar.h"
#include "opf_fixed_point.h"

#endif
