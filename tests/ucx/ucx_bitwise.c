/*
 * Fetching AND, OR and XOR, 32- and 64-bit, blocking and non-blocking,
 * checked for both halves of their meaning: the value fetched and the
 * value left in memory.  UCX 1.13's shared-memory CPU-atomic path fetches
 * right but stores the old value combined with itself (docs/ucx.md): a
 * fetch-or then never sets the bit, a fetch-and never clears it, a
 * fetch-xor leaves 0.  Two checks:
 *  - exact: each PE applies one operation of each kind to a word of its
 *    right neighbour that nobody else touches, and compares the fetched
 *    value and the stored one (read back with an atomic fetch) with the
 *    arithmetic;
 *  - shared: every PE sets its own bit in one word of every PE with
 *    fetch-or, clears it in another with fetch-and, and flips a pattern
 *    twice with fetch-xor; the fetched values must be consistent with the
 *    PE's own bit history and the totals exact.
 *
 *   ucx_bitwise [rounds]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "../common/check.h"

#define INIT64 UINT64_C(0xf0f0f0f0f0f0f0f0)
#define OPND64 UINT64_C(0xff00ff00ff00ff00)

static uint64_t ex64[3], sh_or64, sh_and64, sh_xor64;
static uint32_t ex32[3], sh_or32, sh_and32;

static void exact(int right, int nbi)
{
    uint64_t f64[3];
    uint32_t f32[3];
    if (nbi) {
        shmem_uint64_atomic_fetch_and_nbi(&f64[0], &ex64[0], OPND64, right);
        shmem_uint64_atomic_fetch_or_nbi(&f64[1], &ex64[1], OPND64, right);
        shmem_uint64_atomic_fetch_xor_nbi(&f64[2], &ex64[2], OPND64, right);
        shmem_uint32_atomic_fetch_and_nbi(&f32[0], &ex32[0], (uint32_t)OPND64, right);
        shmem_uint32_atomic_fetch_or_nbi(&f32[1], &ex32[1], (uint32_t)OPND64, right);
        shmem_uint32_atomic_fetch_xor_nbi(&f32[2], &ex32[2], (uint32_t)OPND64, right);
        shmem_quiet();
    } else {
        f64[0] = shmem_uint64_atomic_fetch_and(&ex64[0], OPND64, right);
        f64[1] = shmem_uint64_atomic_fetch_or(&ex64[1], OPND64, right);
        f64[2] = shmem_uint64_atomic_fetch_xor(&ex64[2], OPND64, right);
        f32[0] = shmem_uint32_atomic_fetch_and(&ex32[0], (uint32_t)OPND64, right);
        f32[1] = shmem_uint32_atomic_fetch_or(&ex32[1], (uint32_t)OPND64, right);
        f32[2] = shmem_uint32_atomic_fetch_xor(&ex32[2], (uint32_t)OPND64, right);
    }
    static const char *name[3] = {"and", "or", "xor"};
    uint64_t want64[3] = {INIT64 & OPND64, INIT64 | OPND64, INIT64 ^ OPND64};
    for (int i = 0; i < 3; i++) {
        uint64_t now64 = shmem_uint64_atomic_fetch(&ex64[i], right);
        uint32_t now32 = shmem_uint32_atomic_fetch(&ex32[i], right);
        const char *nb = nbi ? "_nbi" : "";
        CHECK_EQ(f64[i], INIT64, "fetch_%s%s 64-bit on PE %d: fetched", name[i], nb, right);
        CHECK_EQ(now64, want64[i], "fetch_%s%s 64-bit on PE %d: left", name[i], nb, right);
        CHECK_EQ(f32[i], (uint32_t)INIT64, "fetch_%s%s 32-bit on PE %d: fetched", name[i], nb,
                 right);
        CHECK_EQ(now32, (uint32_t)want64[i], "fetch_%s%s 32-bit on PE %d: left", name[i], nb,
                 right);
    }
}

static void reset(void)
{
    for (int i = 0; i < 3; i++) {
        ex64[i] = INIT64;
        ex32[i] = (uint32_t)INIT64;
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 50;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > 32) {
        shmem_finalize();
        return 77;
    }
    int right = (me + 1) % n;
    reset();
    exact(right, 0);
    shmem_barrier_all();
    reset();
    exact(right, 1);

    /* shared words: own bit 1 << me (and 1 << (me + 32) in 64-bit ones) */
    sh_and64 = ~0ull;
    sh_and32 = ~0u;
    sh_or64 = sh_or32 = 0;
    sh_xor64 = 0;
    shmem_barrier_all();
    uint64_t bit64 = (1ull << me) | (1ull << (me + 32));
    uint32_t bit32 = 1u << me;
    uint64_t pattern = 0x0101010101010101ull * (uint64_t)(me + 1);
    for (int i = 0; i < n; i++) {
        int t = (me + i) % n;
        uint64_t o = shmem_uint64_atomic_fetch_or(&sh_or64, bit64, t);
        CHECK_EQ(o & bit64, 0,
                 "fetch_or 64-bit on PE %d returned %#" PRIx64
                 " with this PE's bit set before it set it",
                 t, o);
        uint32_t o32 = shmem_uint32_atomic_fetch_or(&sh_or32, bit32, t);
        CHECK_EQ(o32 & bit32, 0,
                 "fetch_or 32-bit on PE %d returned %#" PRIx32 " with this PE's bit set", t, o32);
        uint64_t a = shmem_uint64_atomic_fetch_and(&sh_and64, ~bit64, t);
        CHECK_EQ(a & bit64, bit64,
                 "fetch_and 64-bit on PE %d returned %#" PRIx64
                 " with this PE's bit clear before it cleared it",
                 t, a);
        uint32_t a32 = shmem_uint32_atomic_fetch_and(&sh_and32, ~bit32, t);
        CHECK_NE(a32 & bit32, 0,
                 "fetch_and 32-bit on PE %d returned %#" PRIx32 " with this PE's bit clear", t,
                 a32);
        for (long r = 0; r < rounds; r++) {
            (void)shmem_uint64_atomic_fetch_xor(&sh_xor64, pattern, t);
            (void)shmem_uint64_atomic_fetch_xor(&sh_xor64, pattern, t);
        }
    }
    shmem_barrier_all();
    uint64_t all64 = 0;
    uint32_t all32 = 0;
    for (int p = 0; p < n; p++) {
        all64 |= (1ull << p) | (1ull << (p + 32));
        all32 |= 1u << p;
    }
    CHECK_EQ(sh_or64, all64, "shared word, fetch-or 64-bit");
    CHECK_EQ(sh_or32, all32, "shared word, fetch-or 32-bit");
    CHECK_EQ(sh_and64, ~all64, "shared word, fetch-and 64-bit");
    CHECK_EQ(sh_and32, ~all32, "shared word, fetch-and 32-bit");
    CHECK_EQ(sh_xor64, 0, "shared word, fetch-xor twice");

    int rc = check_done("ucx_bitwise", "fetching and/or/xor, 32/64-bit, blocking and nbi");
    shmem_finalize();
    return rc;
}
