/*
 * Atomicity across mechanisms: every PE updates the same words on every PE
 * with fetch-add, add, compare-and-swap increments and paired XORs, 32- and
 * 64-bit.  Run with SHMEM_EMULATE_NODES=2, PEs of one emulated node reach
 * each other's words with CPU atomics while the others come through the
 * provider (or, with SHMEM_OFI_AMO_CPU_COHERENT=0, everyone goes through the
 * provider); a lost or doubled update shows in the totals.  The test also
 * checks that the emulation took effect: shmem_ptr is non-NULL exactly for
 * PEs of the same emulated node.
 *
 *   ofi_mixed [rounds]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "../common/check.h"

static uint64_t add64, cas64, xor64;
static uint32_t add32;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 300;
    const char *en = getenv("SHMEM_EMULATE_NODES");
    int nodes = en ? atoi(en) : 1;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (nodes < 1)
        nodes = 1;
    for (int p = 0; p < n; p++) {
        int same = p % nodes == me % nodes;
        CHECK_EQ(shmem_ptr(&add64, p) != NULL, same,
                 "shmem_ptr to PE %d is %s, expected %s with %d emulated nodes", p,
                 same ? "NULL" : "non-NULL", same ? "non-NULL" : "NULL", nodes);
    }
    shmem_barrier_all();

    const uint64_t mine = 0x0101010101010101ull * (uint64_t)(me + 1);
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            int t = (int)((me + r + i) % n);
            uint64_t old = shmem_uint64_atomic_fetch_add(&add64, 1, t);
            CHECK_LT(old, 3ull * (uint64_t)n * (uint64_t)rounds,
                     "fetch-add on PE %d returned a value beyond any total", t);
            shmem_uint64_atomic_add(&add64, 2, t);
            shmem_uint32_atomic_add(&add32, 1, t);
            (void)shmem_uint32_atomic_fetch_inc(&add32, t);
            uint64_t seen = shmem_uint64_atomic_fetch(&cas64, t), prev;
            while ((prev = shmem_uint64_atomic_compare_swap(&cas64, seen, seen + 1, t)) != seen)
                seen = prev;
            (void)shmem_uint64_atomic_fetch_xor(&xor64, mine, t);
            shmem_uint64_atomic_xor(&xor64, mine, t);
        }
    }
    shmem_barrier_all();

    uint64_t per = (uint64_t)n * (uint64_t)rounds;
    CHECK_EQ(add64, 3 * per);
    CHECK_EQ(add32, 2 * per);
    CHECK_EQ(cas64, per);
    CHECK_EQ(xor64, 0);
    int rc = check_done("ofi_mixed", "%d emulated node(s), %ld rounds of mixed AMOs on every PE",
                        nodes, rounds);
    shmem_finalize();
    return rc;
}
