/* A compression run to profile: zlib's deflate at level 9 (what gzip -9 does) over text
   made here, linked statically from Debian's libz.a, whose static functions
   (longest_match, deflate_slow, fill_window) keep their symbols, so a profile names them.

   cc -O2 -g bench/profile/zcompress.c -o zcompress /usr/lib/x86_64-linux-gnu/libz.a
   ./zcompress [MEGABYTES]     (default 32: about 1 s of CPU)

   The input is words of a fixed vocabulary drawn with a skewed distribution from a
   fixed seed: compressible as prose is (about 2.4:1), the same bytes every run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WORDS 4096

static uint64_t state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void) { /* xorshift64*: fixed seed, same text every run */
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717u;
}

/* Word w of the vocabulary: 2 to 11 letters, derived from w alone. */
static size_t make_word(uint64_t w, char *out) {
    uint64_t h = w * 0xD6E8FEB86659FD93u + 1;
    size_t length = 2 + (size_t)(h % 10), i;
    for (i = 0; i < length; i++) {
        h = h * 6364136223846793005u + 1442695040888963407u;
        out[i] = (char)('a' + (h >> 59) % 26);
    }
    return length;
}

static char *make_text(size_t size) {
    char *text = malloc(size), word[16];
    size_t at = 0;
    if (!text) return NULL;
    while (at < size) {
        /* the minimum of two draws: low word numbers are common, as in prose */
        uint64_t a = next_random() % WORDS, b = next_random() % WORDS;
        size_t length = make_word(a < b ? a : b, word), i;
        for (i = 0; i < length && at < size; i++) text[at++] = word[i];
        if (at < size) text[at++] = (next_random() % 12 == 0) ? '\n' : ' ';
    }
    return text;
}

static size_t deflate_all(const char *text, size_t size, unsigned char *out, size_t capacity) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0; /* gzip wrapper */
    z.next_in = (unsigned char *)text;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)capacity;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) return 0;
    deflateEnd(&z);
    return z.total_out;
}

int main(int argc, char **argv) {
    size_t size = (size_t)(argc > 1 ? atof(argv[1]) : 32) * 1024 * 1024, packed;
    char *text = make_text(size);
    unsigned char *out = malloc(size + size / 100 + 1024);
    if (!text || !out) return 1;
    packed = deflate_all(text, size, out, size + size / 100 + 1024);
    if (!packed) return 1;
    printf("%zu bytes -> %zu bytes (%.2f:1)\n", size, packed, (double)size / (double)packed);
    free(text);
    free(out);
    return 0;
}
