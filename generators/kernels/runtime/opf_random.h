/* Counter-based random streams over Philox4x32-10. */
#ifndef OPF_RANDOM_H
#define OPF_RANDOM_H

#include "opf_base.h"
#include "opf_philox.h"

/* Four words of the stream of element `element` (offset already added), block `block`. */
static inline void opf_random_block(int64_t seed, uint64_t element, uint32_t block, uint32_t out[4])
{
    const uint32_t ctr[4] = {block, 0u, (uint32_t)element, (uint32_t)(element >> 32)};
    const uint32_t key[2] = {(uint32_t)(uint64_t)seed, (uint32_t)((uint64_t)seed >> 32)};
    opf_philox(ctr, key, out);
}

/* [0, 1) with 24 bits (float32) or 53 bits (float64, from two words). */
static inline double opf_unit24(uint32_t w)
{
    return (double)(w >> 8) * (1.0 / 16777216.0);
}

static inline double opf_unit53(uint32_t a, uint32_t b)
{
    return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * (1.0 / 9007199254740992.0);
}

#endif
