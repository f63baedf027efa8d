/*
 * two_files_b.c: a benchmark program of two files, part 2 (benchmarks only).
 * Build and run: see two_files_a.c.
 *
 * This file includes the header plainly (no BENCHLAB_IMPLEMENTATION): it gets
 * the macros and declarations, and two_files_a.c provides the library's code.
 *
 *   copy_memcpy (baseline)  memcpy() of 4096 bytes.
 *   copy_loop               the same copy as a byte loop, which the compiler
 *                           may turn into a vectorized loop or a memcpy call
 *                           of its own: the ratio says how close it gets.
 */
#include "benchlab.h"

#include <string.h>

#define COPY_BYTES 4096

static unsigned char src[COPY_BYTES], dst[COPY_BYTES];

BL_BASELINE(copy_memcpy, n)
{
    unsigned char *out = dst;
    const unsigned char *in = src;
    /* Neither array is used anywhere else, so without their addresses
     * escaping the compiler knows src holds zeros (a memcpy becomes a memset)
     * and that nobody reads dst (the copies go away), BL_CLOBBER or not.
     * See keep.c. */
    BL_KEEP(out);
    BL_KEEP(in);
    for (uint64_t i = 0; i < n; i++) {
        memcpy(out, in, COPY_BYTES);
        BL_CLOBBER(); /* dst may be read and src changed: copy again, really */
    }
}

BL_BENCH(copy_loop, n)
{
    unsigned char *out = dst;
    const unsigned char *in = src;
    BL_KEEP(out);
    BL_KEEP(in);
    for (uint64_t i = 0; i < n; i++) {
        for (size_t j = 0; j < COPY_BYTES; j++)
            out[j] = in[j];
        BL_CLOBBER();
    }
}
