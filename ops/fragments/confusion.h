/* Counting kernels (Imaginet fragments) over flat int64 inputs. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "confusion_matrix_i64"
/* out[label][prediction] counts each pair (classes x classes, row-major); returns 1,
 * with out unspecified, when a label or prediction lies outside 0..classes-1. */
static inline int confusion_matrix_i64(const int64_t* restrict labels, int64_t n,
                                       const int64_t* restrict predictions, int64_t n_predictions,
                                       int64_t classes, int64_t* restrict out)
{
    (void)n_predictions;
    for (int64_t i = 0; i < classes * classes; i++) {
        out[i] = 0;
    }
    for (int64_t i = 0; i < n; i++) {
        if (labels[i] < 0 || labels[i] >= classes || predictions[i] < 0 || predictions[i] >= classes) {
            return 1;
        }
        out[labels[i] * classes + predictions[i]] += 1;
    }
    return 0;
}
#pragma IMAGINET_FRAGMENT_END
