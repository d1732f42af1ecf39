/*
 * Atomicity of the mpi transport's atomics on shared words: every PE updates
 * the same words on every PE, each word with a mix of operations.  Run with
 * SHMEM_EMULATE_NODES=2: the PEs of one emulated node map each other's
 * memory.
 *   SHMEM_MPI_AMO=rma: MPI guarantees atomicity only among accumulates on
 *     one window with one datatype; the plugin sends every AMO through the
 *     default window of its segment, fetch and set included, and does not
 *     claim coherence with CPU atomics, so the core sends on-node atomics
 *     through MPI too and one word never sees both mechanisms.
 *   SHMEM_MPI_AMO=am: on-node atomics are CPU atomics and the others are
 *     applied by CPU atomics at their target, so one word sees both kinds
 *     of caller at once.
 *
 *   count64: add, fetch-add, inc, fetch-inc, compare-and-swap increment
 *   bits64, bits32: PE p's bit set with or / fetch-or and cleared with and /
 *     fetch-and, toggled twice with xor / fetch-xor: 0 at the end, and a
 *     lost update anywhere shows as a stray bit or a wrong fetched value
 *   count32: add, fetch-add, swap-free increments of 32-bit words
 *
 *   mpi_mixed [rounds]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "../common/check.h"

static uint64_t count64, bits64;
static uint32_t count32, bits32;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200;
    const char *en = getenv("SHMEM_EMULATE_NODES");
    int nodes = en ? atoi(en) : 1;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (nodes < 1)
        nodes = 1;
    if (n > 32) {
        shmem_finalize();
        return 77; /* one bit per PE in bits32 */
    }
    for (int p = 0; p < n; p++) {
        int same = p % nodes == me % nodes;
        CHECK_EQ(shmem_ptr(&count64, p) != NULL, same,
                 "shmem_ptr to PE %d is %s, expected %s with %d emulated nodes", p,
                 same ? "NULL" : "non-NULL", same ? "non-NULL" : "NULL", nodes);
    }
    shmem_barrier_all();

    const uint64_t b64 = 1ull << (2 * me + 1);
    const uint32_t b32 = 1u << me;
    /* A PE stops at its first lost update: the totals are wrong then anyway. */
    for (long r = 0; r < rounds && !check_failures(); r++) {
        for (int i = 0; i < n; i++) {
            int t = (int)((me + r + i) % n);
            shmem_uint64_atomic_add(&count64, 1, t);
            (void)shmem_uint64_atomic_fetch_add(&count64, 1, t);
            shmem_uint64_atomic_inc(&count64, t);
            (void)shmem_uint64_atomic_fetch_inc(&count64, t);
            uint64_t seen = shmem_uint64_atomic_fetch(&count64, t), prev;
            while ((prev = shmem_uint64_atomic_compare_swap(&count64, seen, seen + 1, t)) != seen)
                seen = prev;

            shmem_uint64_atomic_or(&bits64, b64, t);
            uint64_t o = shmem_uint64_atomic_fetch_and(&bits64, ~b64, t);
            CHECK_NE(o & b64, 0, "fetch-and on PE %d saw my bit clear after or (%#" PRIx64 ")", t,
                     o);
            o = shmem_uint64_atomic_fetch_or(&bits64, b64, t);
            CHECK_EQ(o & b64, 0, "fetch-or on PE %d saw my bit set after and (%#" PRIx64 ")", t, o);
            shmem_uint64_atomic_and(&bits64, ~b64, t);
            (void)shmem_uint64_atomic_fetch_xor(&bits64, b64, t);
            shmem_uint64_atomic_xor(&bits64, b64, t);

            shmem_uint32_atomic_add(&count32, 2, t);
            (void)shmem_uint32_atomic_fetch_inc(&count32, t);
            uint32_t o32 = shmem_uint32_atomic_fetch_or(&bits32, b32, t);
            CHECK_EQ(o32 & b32, 0, "32-bit fetch-or on PE %d saw my bit set (%#" PRIx32 ")", t,
                     o32);
            o32 = shmem_uint32_atomic_fetch_xor(&bits32, b32, t);
            CHECK_NE(o32 & b32, 0, "32-bit fetch-xor on PE %d saw my bit clear (%#" PRIx32 ")", t,
                     o32);
        }
    }
    shmem_barrier_all();

    uint64_t per = (uint64_t)n * (uint64_t)rounds;
    if (!check_failures()) {
        CHECK_EQ(count64, 5 * per);
        CHECK_EQ(bits64, 0);
        CHECK_EQ(count32, (uint32_t)(3 * per));
        CHECK_EQ(bits32, 0);
    }
    int rc = check_done("mpi_mixed", "%d emulated node(s), %ld rounds of mixed atomics on every PE",
                        nodes, rounds);
    shmem_finalize();
    return rc;
}
