/* A user's file: system headers first, then benchlab.h, as users write them. Built by
   modes_test.sh in every language mode the header claims (strict C99/C11/C17, C++11 to
   C++20; gcc, clang, and musl-gcc where installed). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include "benchlab.h"

static char buffer[64];

BL_BASELINE(empty, n) {
    uint64_t i;
    for (i = 0; i < n; i++) BL_CLOBBER();
}
BL_BENCH(copy64, n) {
    static char source[64];
    uint64_t i;
    BL_KEEP(buffer);
    for (i = 0; i < n; i++) {
        memcpy(buffer, source, sizeof buffer);
        BL_CLOBBER();
    }
}
BL_MAIN()
