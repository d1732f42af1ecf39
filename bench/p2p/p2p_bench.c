/*
 * Point-to-point benchmarks over the standard OpenSHMEM API only, so the
 * same source builds against PlugSHMEM and against any other OpenSHMEM.
 *
 *   p2p_bench lat     put+quiet, get, fetch-add and compare-swap latency
 *   p2p_bench ops [N] [heap]  one line per 8-byte operation, microseconds
 *                     per call: put+quiet, get, fetch-add, add (N adds
 *                     then one quiet), compare-swap (bench/mpi/compare_raw.sh);
 *                     the atomics on a global, or with "heap" on a word
 *                     of the symmetric heap
 *   p2p_bench bw      put_nbi bandwidth by message size
 *   p2p_bench rate    8-byte put_nbi message rate
 *   p2p_bench icount  a fixed number of operations between callgrind
 *                     toggles, for instruction counts (see icount.sh)
 *
 * PE 0 drives, PE 1 is the target; other PEs idle in the final barrier.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callgrind_marks.h"

#define MAX_SIZE (1 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static long target_word;
static int iters_for(size_t size) { return size <= 4096 ? 20000 : size <= 65536 ? 2000 : 200; }

static void lat(char *buf, char *src)
{
    static const size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, MAX_SIZE};
    if (shmem_my_pe() == 0) {
        printf("%-10s %14s %14s\n", "size", "put+quiet us", "get us");
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            size_t s = sizes[i];
            int n = iters_for(s);
            for (int w = 0; w < n / 10; w++) {
                shmem_putmem(buf, src, s, 1);
                shmem_quiet();
            }
            double t0 = now();
            for (int k = 0; k < n; k++) {
                shmem_putmem(buf, src, s, 1);
                shmem_quiet();
            }
            double tp = (now() - t0) / n * 1e6;
            t0 = now();
            for (int k = 0; k < n; k++)
                shmem_getmem(src, buf, s, 1);
            double tg = (now() - t0) / n * 1e6;
            printf("%-10zu %14.3f %14.3f\n", s, tp, tg);
        }
        int n = 100000;
        double t0 = now();
        for (int k = 0; k < n; k++)
            (void)shmem_long_atomic_fetch_add(&target_word, 1, 1);
        double tf = (now() - t0) / n * 1e6;
        t0 = now();
        for (int k = 0; k < n; k++)
            (void)shmem_long_atomic_compare_swap(&target_word, k, k + 1, 1);
        double tc = (now() - t0) / n * 1e6;
        printf("fetch_add (long) us   %10.3f\ncompare_swap (long) us %9.3f\n", tf, tc);
    }
}

/* The operations an AMO path changes, at 8 bytes, each timed over n calls. */
static void ops(char *buf, char *src, int n, long *word)
{
    if (shmem_my_pe() != 0)
        return;
    long v = 0;
    for (int k = 0; k < n / 10 + 100; k++) { /* warm up */
        shmem_putmem(buf, src, 8, 1);
        shmem_quiet();
        v += shmem_long_atomic_fetch_add(word, 1, 1);
    }
    double t0 = now();
    for (int k = 0; k < n; k++) {
        shmem_putmem(buf, src, 8, 1);
        shmem_quiet();
    }
    printf("put8+quiet %10.3f\n", (now() - t0) / n * 1e6);
    t0 = now();
    for (int k = 0; k < n; k++)
        shmem_getmem(src, buf, 8, 1);
    printf("get8 %10.3f\n", (now() - t0) / n * 1e6);
    t0 = now();
    for (int k = 0; k < n; k++)
        v += shmem_long_atomic_fetch_add(word, 1, 1);
    printf("fetch_add %10.3f\n", (now() - t0) / n * 1e6);
    t0 = now();
    for (int k = 0; k < n; k++)
        shmem_long_atomic_add(word, 1, 1);
    shmem_quiet();
    printf("add %10.3f\n", (now() - t0) / n * 1e6);
    long w = shmem_long_atomic_fetch(word, 1);
    t0 = now();
    for (int k = 0; k < n; k++)
        w = shmem_long_atomic_compare_swap(word, w, w + 1, 1) + 1;
    printf("compare_swap %10.3f\n", (now() - t0) / n * 1e6);
    if (v + w == 42)
        printf("\n");
}

static void bw(char *buf, char *src)
{
    if (shmem_my_pe() == 0) {
        printf("%-10s %14s\n", "size", "put_nbi MB/s");
        for (size_t s = 8; s <= MAX_SIZE; s *= 8) {
            int n = iters_for(s) * 4;
            double t0 = now();
            for (int k = 0; k < n; k++)
                shmem_putmem_nbi(buf, src, s, 1);
            shmem_quiet();
            double t = now() - t0;
            printf("%-10zu %14.1f\n", s, (double)s * n / t / 1e6);
        }
    }
}

static void rate(char *buf, char *src)
{
    if (shmem_my_pe() == 0) {
        int n = 10000000;
        double t0 = now();
        for (int k = 0; k < n; k++)
            shmem_putmem_nbi(buf, src, 8, 1);
        shmem_quiet();
        double t = now() - t0;
        printf("put_nbi 8 B message rate: %.1f million/s\n", n / t / 1e6);
    }
}

/* One measured region per operation; icount.sh divides by the count. */
static void icount(char *buf, char *src, int n)
{
    if (shmem_my_pe() != 0)
        return;
    long v = 0;
    for (int k = 0; k < 100; k++) { /* warm up: resolve PLT entries, fault pages */
        shmem_putmem(buf, src, 8, 1);
        shmem_quiet();
        v += shmem_long_atomic_fetch_add(&target_word, 1, 1);
        shmem_long_atomic_add(&target_word, 1, 1);
        shmem_long_p((long *)buf, k, 1);
    }
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++) {
        shmem_putmem(buf, src, 8, 1);
        shmem_quiet();
    }
    BENCH_REGION_END("putmem8+quiet");
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++)
        v += shmem_long_atomic_fetch_add(&target_word, 1, 1);
    BENCH_REGION_END("long_atomic_fetch_add");
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++)
        shmem_getmem(src, buf, 8, 1);
    BENCH_REGION_END("getmem8");
    /* completed by one quiet, as a program would, counted in the region */
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++)
        shmem_long_atomic_add(&target_word, 1, 1);
    shmem_quiet();
    BENCH_REGION_END("long_atomic_add");
    long w = shmem_long_atomic_fetch(&target_word, 1);
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++)
        w = shmem_long_atomic_compare_swap(&target_word, w, w + 1, 1) + 1;
    BENCH_REGION_END("long_atomic_compare_swap");
    v += w;
    BENCH_REGION_BEGIN();
    for (int k = 0; k < n; k++)
        shmem_long_p((long *)buf, k, 1);
    BENCH_REGION_END("long_p");
    BENCH_EMPTY_LOOP(n);
    if (v == 42)
        printf("\n");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "lat";
    shmem_init();
    if (shmem_n_pes() < 2) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "p2p_bench: needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    char *buf = shmem_malloc(MAX_SIZE);
    char *src = aligned_alloc(4096, MAX_SIZE); /* page-aligned like the heap buffer */
    memset(src, 1, MAX_SIZE);
    memset(buf, 0, MAX_SIZE);
    shmem_barrier_all();
    if (!strcmp(mode, "lat"))
        lat(buf, src);
    else if (!strcmp(mode, "bw"))
        bw(buf, src);
    else if (!strcmp(mode, "rate"))
        rate(buf, src);
    else if (!strcmp(mode, "ops"))
        ops(buf, src, argc > 2 ? atoi(argv[2]) : 20000,
            argc > 3 && !strcmp(argv[3], "heap") ? (long *)(buf + MAX_SIZE - 64) : &target_word);
    else if (!strcmp(mode, "icount"))
        icount(buf, src, argc > 2 ? atoi(argv[2]) : 1000);
    else if (shmem_my_pe() == 0)
        fprintf(stderr, "p2p_bench: unknown mode '%s'; use lat, ops, bw, rate or icount\n", mode);
    shmem_barrier_all();
    shmem_free(buf);
    free(src);
    shmem_finalize();
    return 0;
}
