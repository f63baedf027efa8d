/* The skeleton alone: an operation that does nothing, so the figures are the harness's
   own cost per operation (random choice of the operation, two clock reads, one
   histogram update). Run with -n=0 for the bare cost, -n=N to see the nops' share.
   cc -O2 -pthread -Iinclude suites/concurrency/empty.c -o empty && ./empty -t=1 -d=1 */
#include "benchlab.h"

static int nop(size_t op, void *thread) {
    (void)op;
    (void)thread;
    return BL_OP_OK;
}

BL_TARGET(empty, NULL, NULL, nop, NULL, NULL, "nop")
BL_MAIN()
