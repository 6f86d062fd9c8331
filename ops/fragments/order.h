/* Whole-tensor order tests (Imaginet fragments), one per dtype: the elements
 * in row-major order, n of them, give one bool. NaN fails every comparison. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdbool.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "order_bodies"
/* Every element compares CMP with the one after it (true for fewer than two). */
#define ORDER_TEST(NAME, T, CMP)                                                                   \
    static inline void NAME(const T* restrict x, int64_t n, bool* restrict out)                    \
    {                                                                                               \
        bool holds = true;                                                                          \
        for (int64_t i = 1; i < n && holds; i++) {                                                  \
            holds = x[i - 1] CMP x[i];                                                              \
        }                                                                                           \
        *out = holds;                                                                               \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_i8"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_i8, int8_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_i16"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_i16, int16_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_i32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_i32, int32_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_i64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_i64, int64_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_u8"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_u8, uint8_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_u16"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_u16, uint16_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_u32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_u32, uint32_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_u64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_u64, uint64_t, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_f32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_f32, float, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing_f64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_non_decreasing_f64, double, <=)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_i8"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_i8, int8_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_i16"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_i16, int16_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_i32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_i32, int32_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_i64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_i64, int64_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_u8"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_u8, uint8_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_u16"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_u16, uint16_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_u32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_u32, uint32_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_u64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_u64, uint64_t, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_f32"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_f32, float, <)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing_f64"
#pragma IMAGINET_DEPENDENCY "order.h:order_bodies"
ORDER_TEST(is_strictly_increasing_f64, double, <)
#pragma IMAGINET_FRAGMENT_END
