/*
 * Large gets and puts around the ring of PEs, every word checked, for
 * ROUNDS rounds: run by run_paused.sh while it stops PEs at random, which
 * fills sockets and makes the provider retry (udp;ofi_rxd completed 4 MiB
 * gets with pieces never written, see docs/ofi.md).
 *
 *   ofi_bigring [rounds] [MiB]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "../common/check.h"

static uint32_t word(int pe, size_t i, unsigned round)
{
    return (uint32_t)(pe * 0x9E3779B1u) ^ (uint32_t)(i * 2654435761u) ^ (round * 0x85EBCA6Bu);
}

/* One failure per transfer: where the first wrong word is and how many
 * there are (a piece never written shows as a run of the old value). */
static void check_words(const uint32_t *w, size_t n, int pe, unsigned round, const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (w[i] != word(pe, i, round) && bad++ == 0)
            first = i;
    CHECK_EQ(bad, (size_t)0, "%s of %zu bytes with PE %d, round %u: first wrong word %zu is %#x",
             what, n * 4, pe, round, first, bad ? w[first] : 0);
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
    size_t bytes = (argc > 2 ? (size_t)atoi(argv[2]) : 4) << 20, n = bytes / 4;
    shmem_init();
    check_watchdog(240);
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    uint32_t *sym = shmem_malloc(2 * bytes), *local = malloc(bytes);
    REQUIRE(sym && local, "%zu bytes symmetric and %zu local", 2 * bytes, bytes);
    for (unsigned r = 0; r < rounds; r++) {
        check_stage("get");
        for (size_t i = 0; i < n; i++)
            sym[i] = word(me, i, r);
        shmem_barrier_all();
        memset(local, 0, bytes);
        shmem_getmem_nbi(local, sym, bytes, right);
        shmem_quiet();
        check_words(local, n, right, r, "getmem_nbi");
        check_stage("put");
        for (size_t i = 0; i < n; i++)
            local[i] = word(me, i, r + 1000);
        shmem_putmem_nbi(sym + n, local, bytes, right);
        shmem_quiet();
        shmem_barrier_all();
        check_words(sym + n, n, left, r + 1000, "putmem_nbi");
        shmem_barrier_all();
    }
    free(local);
    shmem_free(sym);
    int status = check_done("bigring", "%u rounds of %zu MiB", rounds, bytes >> 20);
    shmem_finalize();
    return status;
}
