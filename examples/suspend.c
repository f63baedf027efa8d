/*
 * suspend.c: keep set-up out of the measurement with BL_SUSPEND.
 *
 *   cc -O2 -Iinclude examples/suspend.c -o suspend && ./suspend
 *
 * Sorting destroys its input, so every sort needs a fresh unsorted array.
 * Refilling it costs time too, and is not what we want to measure.
 *   sort_only        refills the array inside BL_SUSPEND: only qsort() is timed.
 *   fill_and_sort    refills it in the timed part: the result is qsort() plus
 *                    the refill, and so larger.
 * The difference between the two is the cost of the refill.
 *
 * A BL_SUSPEND block costs two timer reads, part of which still leaks into the
 * measurement, so suspend around work that is large next to a timer read
 * (here a sort of 1000 numbers, microseconds) or batch the set-up (see
 * suites/sys/sys_close.c).
 */
#include "benchlab.h"

#include <stdlib.h>

#define COUNT 1000

static int values[COUNT];

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The same pseudo-random numbers every time: each sort gets the same work. */
static void refill(void)
{
    uint64_t state = 42;
    for (int i = 0; i < COUNT; i++)
        values[i] = (int)(bl_random(&state) >> 33);
}

BL_BENCH(sort_only, n)
{
    for (uint64_t i = 0; i < n; i++) {
        BL_SUSPEND { refill(); }
        qsort(values, COUNT, sizeof values[0], compare_ints);
    }
}

BL_BENCH(fill_and_sort, n)
{
    for (uint64_t i = 0; i < n; i++) {
        refill();
        qsort(values, COUNT, sizeof values[0], compare_ints);
    }
}

BL_MAIN()
