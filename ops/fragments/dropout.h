/* Inverted dropout (Imaginet fragments), one per dtype, over a flat input. The
 * uniform numbers are opforge's random stream (opforge_internal.h's Philox4x32-10:
 * element i draws from (seed, offset + i), as random.uniform in float64), so the
 * kernels need the opforge runtime. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "dropout_bodies"
/* Element i is dropped (0) where its uniform number is below p, else scaled by 1 / (1 - p);
 * outside training, copied. */
#define DROPOUT(NAME, T)                                                                           \
    static inline int NAME(const T* restrict x, int64_t n, double p, int64_t seed, int64_t offset,  \
                           int training, T* restrict out)                                           \
    {                                                                                               \
        const double scale = 1.0 / (1.0 - p);                                                       \
        for (int64_t i = 0; i < n && !training; i++) {                                              \
            out[i] = x[i];                                                                          \
        }                                                                                           \
        for (int64_t i = 0; i < n && training; i++) {                                               \
            uint32_t w[4];                                                                          \
            opf_random_block(seed, (uint64_t)offset + (uint64_t)i, 0u, w);                          \
            out[i] = opf_unit53(w[0], w[1]) < p ? (T)0 : (T)((double)x[i] * scale);                 \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dropout_f32"
#pragma IMAGINET_DEPENDENCY "dropout.h:dropout_bodies"
DROPOUT(dropout_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dropout_f64"
#pragma IMAGINET_DEPENDENCY "dropout.h:dropout_bodies"
DROPOUT(dropout_f64, double)
#pragma IMAGINET_FRAGMENT_END
