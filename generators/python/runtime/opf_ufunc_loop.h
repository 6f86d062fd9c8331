/* The inner loop of the package's NumPy ufuncs (ADR 0073): a ufunc hands its loop n elements of
 * each operand, each with its own step in bytes. opforge's kernels take contiguous arrays, so the
 * loop runs the kernel on the operands where they are contiguous and, where not (a broadcast
 * operand's step is 0, a view's is larger), on a copy in a block on the stack. */
#ifndef OPF_UFUNC_LOOP_H
#define OPF_UFUNC_LOOP_H

#include <fenv.h>
#include <stdint.h>
#include <string.h>

/* A block's kernel in a clone per vector extension where GCC dispatches at run time (an ifunc,
 * resolved once at load): the wheel stays portable, the loop as wide as the CPU it runs on. The
 * library and the clones add no fused multiply-add (-ffp-contract=off; AVX2 is not FMA), so each
 * clone gives the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define OPF_UFUNC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OPF_UFUNC_CLONES
#endif

/* Elements a block holds: 16 KB of float64 at most over four operands. */
#define OPF_UFUNC_BLOCK 512
#define OPF_UFUNC_MAX_OPERANDS 4

/* A kernel over n contiguous elements of each operand (inputs, then the output). */
typedef void (*opf_ufunc_kernel)(char* const* operands, int64_t n);

static void opf_ufunc_loop(char** args, int64_t n, const intptr_t* steps, int count, const int* sizes,
                           opf_ufunc_kernel kernel)
{
    int contiguous = 1;
    for (int k = 0; k < count; k++) {
        contiguous &= steps[k] == sizes[k];
    }
    if (contiguous) {
        kernel(args, n);
    } else {
        /* 16-byte aligned blocks, one per operand that is not contiguous. */
        double blocks[OPF_UFUNC_MAX_OPERANDS][OPF_UFUNC_BLOCK];
        char* at[OPF_UFUNC_MAX_OPERANDS];
        for (int64_t done = 0; done < n; done += OPF_UFUNC_BLOCK) {
            const int64_t m = n - done < OPF_UFUNC_BLOCK ? n - done : OPF_UFUNC_BLOCK;
            for (int k = 0; k < count; k++) {
                char* first = args[k] + done * (int64_t)steps[k];
                if (steps[k] == sizes[k]) {
                    at[k] = first;
                    continue;
                }
                at[k] = (char*)blocks[k];
                if (k < count - 1) { /* an input: gathered */
                    for (int64_t i = 0; i < m; i++) {
                        memcpy(at[k] + i * sizes[k], first + i * (int64_t)steps[k], (size_t)sizes[k]);
                    }
                }
            }
            kernel(at, m);
            const int last = count - 1;
            if (steps[last] != sizes[last]) { /* the output: scattered */
                char* first = args[last] + done * (int64_t)steps[last];
                for (int64_t i = 0; i < m; i++) {
                    memcpy(first + i * (int64_t)steps[last], at[last] + i * sizes[last], (size_t)sizes[last]);
                }
            }
        }
    }
    /* The C API raises no floating-point warning (x / 0 is inf there, quietly); NumPy reads the
     * flags after a loop, so the loop leaves none. */
    feclearexcept(FE_ALL_EXCEPT);
}

#endif
