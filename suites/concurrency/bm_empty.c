/* What CSB's bm_empty measures: the skeleton plus an operation of fixed work, 100 nops
   (CSB's NOP_PER_OP) inside the operation, so inside its timed region. Named as CSB names
   it (algo_name=bm_empty, keys op0_nop_*), so its runner's configs and plots find it.
   Not the same as empty.c, whose operation does nothing: empty measures our harness
   alone, bm_empty compares with CSB's bm_empty (docs/threads.md, "empty and bm_empty").
   CSB's ctest runs it as below (12 threads); its line then reads as CSB's.
   cc -O2 -pthread -Iinclude suites/concurrency/bm_empty.c -o bm_empty
   ./bm_empty -t=12 -n=0 -d=1 -s=0 -op0=1024 */
#include "benchlab.h"

#define NOPS_PER_OPERATION 100 /* CSB's bm_empty: NOP_PER_OP */

static int nop(size_t op, void *thread) {
    (void)op;
    (void)thread;
    bl_nops(NOPS_PER_OPERATION);
    return BL_OP_OK;
}

BL_TARGET(bm_empty, NULL, NULL, nop, NULL, NULL, "nop")
BL_MAIN()
