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
 * The difference between the two is the cost of the refill; sort_only is the
 * baseline, so the table gives it as a ratio with its 99% interval.
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

/* A fresh input: 0..COUNT-1 in a random order (a Fisher-Yates shuffle). The
 * same fixed seed every time, so every sort gets the same work. The modulo in
 * each step is a division, which makes the refill cost a good part of a sort:
 * enough to see it clearly in fill_and_sort. */
static void refill(void)
{
    uint64_t state = 42;
    for (int i = 0; i < COUNT; i++)
        values[i] = i;
    for (int i = COUNT - 1; i > 0; i--) {
        int j = (int)(bl_random(&state) % (uint64_t)(i + 1));
        int t = values[i];
        values[i] = values[j];
        values[j] = t;
    }
}

BL_BASELINE(sort_only, n)
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
