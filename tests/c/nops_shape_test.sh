#!/bin/sh
# -n=N (bl_nops) spins the loop CSB's noise spins: the same instructions around each nop
# once compiled. The reference is the loop of CSB's bm_generate_noise (bench/include/CSB/
# bm_helper.h: a compiler barrier, `for (i = 0; i < nop_count; i++) nop`, a barrier),
# built by the same compiler at CSB's -O2; each function's loop is read from objdump,
# from its nop to the jump back, and the two mnemonic sequences must be equal.
# usage: nops_shape_test.sh CC INCLUDE_DIR
set -u
cc=$1
inc=$2
command -v objdump >/dev/null 2>&1 || { echo "nops_shape_test: no objdump, skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/nops.c" <<'SRC'
#include "benchlab.h"
void csb_noise(size_t nop_count) {
    size_t i;
    if (nop_count == 0) return;
    __asm__ __volatile__("" ::: "memory");
    for (i = 0; i < nop_count; i++) __asm__ __volatile__("nop");
    __asm__ __volatile__("" ::: "memory");
}
void our_nops(uint64_t n) { bl_nops(n); }
SRC
"$cc" -std=c99 -O2 -I"$inc" -c "$work/nops.c" -o "$work/nops.o" || { echo "FAIL: nops.c does not build"; exit 1; }
objdump -d --no-show-raw-insn "$work/nops.o" >"$work/dis" || { echo "FAIL: objdump"; exit 1; }
# loop FUNCTION: the mnemonics from the function's first bare nop to the first jump after it.
loop() {
    awk -v fn="<$1>:" '
        $2 == fn { inside = 1; next }
        inside && /^[0-9a-f]+ </ { exit }
        inside && NF >= 2 {
            m = $2
            if (!started && m == "nop" && NF == 2) started = 1
            if (started) { printf "%s ", m; if (m ~ /^j/) exit }
        }' "$work/dis"
}
theirs=$(loop csb_noise)
ours=$(loop our_nops)
echo "CSB's noise loop: $theirs"
echo "bl_nops' loop:    $ours"
[ -n "$theirs" ] || { echo "FAIL: no loop found in csb_noise"; cat "$work/dis"; exit 1; }
[ "$theirs" = "$ours" ] || { echo "FAIL: bl_nops does not compile to CSB's noise loop"; exit 1; }
echo "nops_shape_test: same loop"
