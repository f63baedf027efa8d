/*
 * two_files_a.c: a benchmark program of two files, part 1 (the main file).
 *
 *   cc -O2 -Iinclude examples/two_files_a.c examples/two_files_b.c -o two_files
 *   ./two_files
 *
 * Exactly one file of the program defines BENCHLAB_IMPLEMENTATION before it
 * includes the header; that file holds the library's code. The other files
 * (two_files_b.c) include the header plainly and define benchmarks; they are
 * registered before main() runs, whichever file they are in.
 *
 * This file has its own main() instead of BL_MAIN(), to handle a flag of its
 * own first; bl_main() then takes the usual command line and returns the exit
 * status (0, or 2 for bad flags).
 */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--about") == 0) {
        puts("two_files: memcpy against a byte loop, 4096 bytes (examples/two_files_b.c)");
        return 0;
    }
    return bl_main(argc, argv);
}
