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

static uint64_t add64, cas64, xor64;
static uint32_t add32;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 300;
    const char *en = getenv("SHMEM_EMULATE_NODES");
    int nodes = en ? atoi(en) : 1;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), bad = 0;
    if (nodes < 1)
        nodes = 1;
    for (int p = 0; p < n; p++) {
        int same = p % nodes == me % nodes;
        if ((shmem_ptr(&add64, p) != NULL) != same) {
            printf("PE %d: shmem_ptr to PE %d is %s, expected %s with %d emulated nodes\n", me, p,
                   same ? "NULL" : "non-NULL", same ? "non-NULL" : "NULL", nodes);
            bad = 1;
        }
    }
    shmem_barrier_all();

    const uint64_t mine = 0x0101010101010101ull * (uint64_t)(me + 1);
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            int t = (int)((me + r + i) % n);
            uint64_t old = shmem_uint64_atomic_fetch_add(&add64, 1, t);
            if (old >= 3ull * (uint64_t)n * (uint64_t)rounds) {
                printf("PE %d: fetch-add on PE %d returned %" PRIu64 ", beyond any total\n", me, t,
                       old);
                bad = 1;
            }
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
    if (add64 != 3 * per || add32 != 2 * per || cas64 != per || xor64 != 0) {
        printf("PE %d: add64 %" PRIu64 " (expected %" PRIu64 "), add32 %" PRIu32
               " (expected %" PRIu64 "), cas64 %" PRIu64 " (expected %" PRIu64 "), xor64 %#" PRIx64
               " (expected 0)\n",
               me, add64, 3 * per, add32, 2 * per, cas64, per, xor64);
        bad = 1;
    }
    int *all_bad = shmem_calloc(1, sizeof *all_bad);
    shmem_barrier_all();
    if (bad)
        shmem_int_atomic_add(all_bad, 1, 0);
    shmem_barrier_all();
    if (me == 0 && !*all_bad)
        printf("ok: %d PEs, %d emulated node(s), %ld rounds of mixed AMOs on every PE\n", n, nodes,
               rounds);
    int rc = *all_bad != 0;
    shmem_finalize();
    return rc;
}
