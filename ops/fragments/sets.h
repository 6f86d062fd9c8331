/* Set kernels (Imaginet fragments), one per dtype, over flat inputs. Results
 * whose length depends on the data fill a buffer of the largest possible
 * length from its start, zeros after the `count` they report. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "sets_bodies"
/* The elements of x (n) equal to no element of y (m), in order, and their
 * indices; NaN equals nothing. O(n m) comparisons. */
#define LIST_DIFF(NAME, T)                                                                         \
    static inline int NAME(const T* restrict x, int64_t n, const T* restrict y, int64_t m,          \
                           T* restrict values, int64_t* restrict indices, int64_t* restrict count)  \
    {                                                                                               \
        int64_t kept = 0;                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                           \
            int found = 0;                                                                          \
            for (int64_t j = 0; j < m && !found; j++) {                                             \
                found = x[i] == y[j];                                                               \
            }                                                                                       \
            if (!found) {                                                                           \
                values[kept] = x[i];                                                                \
                indices[kept] = i;                                                                  \
                kept++;                                                                             \
            }                                                                                       \
        }                                                                                           \
        for (int64_t i = kept; i < n; i++) {                                                        \
            values[i] = (T)0;                                                                       \
            indices[i] = 0;                                                                         \
        }                                                                                           \
        *count = kept;                                                                              \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_f32"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_f64"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_i8"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_i8, int8_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_i16"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_i16, int16_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_i32"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_i32, int32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_i64"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_i64, int64_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_u8"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_u8, uint8_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_u16"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_u16, uint16_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_u32"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_u32, uint32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "list_diff_u64"
#pragma IMAGINET_DEPENDENCY "sets.h:sets_bodies"
LIST_DIFF(list_diff_u64, uint64_t)
#pragma IMAGINET_FRAGMENT_END
