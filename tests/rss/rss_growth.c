/*
 * rss_growth.c -- no memory grows per operation.
 *
 *   rss_growth [rounds] [limit_kib] [warm_up_rounds]
 *
 * Rounds of put + barrier + AMO (a fetch-add and an add to the next PE),
 * every PE.  The resident set size is read after the warm-up (default a
 * tenth of the rounds: the transport's pools and caches are full by then)
 * and at the end; a PE whose RSS grew by more than limit_kib (default
 * 1024) fails with both numbers.  Over a network transport with the bypass off every
 * operation goes through the plugin and its library, so a few bytes kept
 * per operation add up to megabytes here.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/check.h"

static long rss_kib(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long data[8];
static long counter;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 100000;
    long limit = argc > 2 ? atol(argv[2]) : 1024;
    long warm = argc > 3 ? atol(argv[3]) : rounds / 10;
    if (rounds < 10 || limit < 0 || warm < 1 || warm >= rounds) {
        fprintf(stderr, "usage: rss_growth [rounds >= 10] [limit_kib >= 0] "
                        "[warm_up_rounds 1..rounds-1]\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    long before = 0;
    for (long r = 0; r < rounds; r++) {
        if (r == warm)
            before = rss_kib();
        long v[8] = {r, r, r, r, r, r, r, r};
        shmem_long_put(data, v, 8, next);
        shmem_barrier_all();
        (void)shmem_long_atomic_fetch_add(&counter, 1, next);
        shmem_long_atomic_add(&counter, 1, next);
    }
    shmem_barrier_all();
    long after = rss_kib();
    CHECK_EQ(counter, 2 * rounds, "the counter both AMOs of every round add to");
    CHECK_EQ(data[0], rounds - 1, "the last round's put");
    if (CHECK(before >= 0 && after >= 0, "cannot read /proc/self/statm") &&
        CHECK_LE(after - before, limit,
                 "RSS growth in KiB: from %ld KiB to %ld KiB over %ld "
                 "rounds after warm-up (%.1f bytes per round)",
                 before, after, rounds - warm,
                 1024.0 * (double)(after - before) / (double)(rounds - warm)))
        printf("PE %d: RSS %ld KiB after warm-up, %ld KiB after %ld rounds\n", me, before, after,
               rounds - warm);
    int rc = check_done("rss_growth");
    shmem_finalize();
    return rc;
}
