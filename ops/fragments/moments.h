/* Moments from sufficient statistics (Imaginet fragments), one per dtype, over
 * flat inputs of one shape, in double, each result rounded to T as it is stored. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "moments_bodies"
/* mean = means / counts + shift, variance = variances / counts - (means / counts)^2. */
#define NORMALIZE_MOMENTS(NAME, T)                                                                 \
    static inline int NAME(const T* restrict means, int64_t n, const T* restrict variances,         \
                           int64_t n_variances, double counts, double shift, T* restrict mean,      \
                           T* restrict variance)                                                    \
    {                                                                                               \
        (void)n_variances;                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                           \
            const double m = (double)means[i] / counts;                                             \
            mean[i] = (T)(m + shift);                                                               \
            variance[i] = (T)((double)variances[i] / counts - m * m);                               \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "normalize_moments_f32"
#pragma IMAGINET_DEPENDENCY "moments.h:moments_bodies"
NORMALIZE_MOMENTS(normalize_moments_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "normalize_moments_f64"
#pragma IMAGINET_DEPENDENCY "moments.h:moments_bodies"
NORMALIZE_MOMENTS(normalize_moments_f64, double)
#pragma IMAGINET_FRAGMENT_END
