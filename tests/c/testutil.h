/* Helpers for the C tests: read a file, pull numbers out of JSON text we wrote
   ourselves (flat keys, no nesting tricks), and report failures with values. */
#ifndef BENCHLAB_TESTUTIL_H
#define BENCHLAB_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tu_failures = 0;

/* What tu_number returns for a JSON null. */
#define TU_NULL (-1e300)

#define TU_CHECK(cond, ...)                                            \
    do {                                                               \
        if (!(cond)) {                                                 \
            tu_failures++;                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                              \
            fputc('\n', stderr);                                       \
        }                                                              \
    } while (0)

BL__UNUSED static char *tu_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long size;
    char *text;
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    text[size] = 0;
    fclose(f);
    return text;
}

/* The text just after "key": at or after `from`, or NULL. */
BL__UNUSED static const char *tu_after_key(const char *from, const char *key) {
    char pattern[128];
    const char *p;
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    p = strstr(from, pattern);
    if (!p) return NULL;
    p += strlen(pattern);
    while (*p == ' ' || *p == '\n') p++;
    return p;
}

BL__UNUSED static double tu_number(const char *from, const char *key) {
    const char *p = tu_after_key(from, key);
    if (!p) { fprintf(stderr, "missing key %s\n", key); exit(2); }
    if (strncmp(p, "null", 4) == 0) return TU_NULL;
    return strtod(p, NULL);
}

/* Parses [a, b, c] after "key": into out; returns the count. */
BL__UNUSED static size_t tu_array(const char *from, const char *key, double *out, size_t max) {
    const char *p = tu_after_key(from, key);
    size_t n = 0;
    char *end;
    if (!p || *p != '[') { fprintf(stderr, "missing array %s\n", key); exit(2); }
    p++;
    while (*p && *p != ']' && n < max) {
        while (*p == ' ' || *p == '\n' || *p == ',') p++;
        if (*p == ']') break;
        out[n++] = strtod(p, &end);
        p = end;
    }
    return n;
}

BL__UNUSED static int tu_close(double got, double want, double rel) {
    double diff = got > want ? got - want : want - got;
    double scale = want < 0 ? -want : want;
    return diff <= rel * (scale > 1e-12 ? scale : 1e-12);
}

#endif
