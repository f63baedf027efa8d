/* The skeleton alone: an operation that does nothing, so the figures are the harness's
   own cost per operation (the call through the dispatch pointer, the counts, and spread
   over a batch of about 1 us, the stop check and one timed call). Run with -n=0 for the
   bare cost, -n=N to see the nops' share, --latency-every=1 to time every call (two
   clock reads each). bench/csb_harness.py compares it with a bare loop.
   Not CSB's bm_empty, whose operation runs 100 nops: that is bm_empty.c.
   cc -O2 -pthread -Iinclude suites/concurrency/empty.c -o empty && ./empty -t=1 -d=1 */
#include "benchlab.h"

static int nop(size_t op, void *thread) {
    (void)op;
    (void)thread;
    return BL_OP_OK;
}

BL_TARGET(empty, NULL, NULL, nop, NULL, NULL, "nop")
BL_MAIN()
