# Python twin of confusion.h.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "confusion_matrix"
def confusion_matrix(labels, predictions, num_classes, output):
    """Counts of each (label, prediction) pair; ValueError for a class outside 0..num_classes-1."""
    for v in (labels, predictions):
        if v.size and (v.min() < 0 or v.max() >= num_classes):
            raise ValueError("a label or prediction lies outside 0..num_classes-1")
    output[...] = 0
    np.add.at(output, (labels, predictions), 1)


# pragma IMAGINET_FRAGMENT_END
