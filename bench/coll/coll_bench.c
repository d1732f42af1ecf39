/*
 * Latency of the collectives: barrier, broadcast, sum reduction, fcollect
 * and alltoall on the world team, by message size.  Plain OpenSHMEM 1.5
 * calls only, so the same source builds against other implementations
 * (e.g. Open MPI's oshcc) for comparison.  PE 0 prints one table:
 *
 *   coll_bench [max_bytes] [iterations] [component,component...] [rounds]
 *
 * COLL_BENCH_OPS (e.g. "alltoall,reduce") keeps only those operations and
 * COLL_BENCH_MIN drops smaller sizes (what bench/coll/icount_coll.sh counts);
 * COLL_BENCH_STEP (default 8) is the factor from one size to the next.
 * inscan (long sum_inscan) exists in the team form only.
 *
 * Each row is the mean over the iterations of the slowest PE's time per
 * call (every PE times the same loop; the maximum is reported).  With a
 * list of PlugSHMEM collectives components (e.g. native,mpi,auto) the
 * whole table runs once per component, each in its own shmem_init with
 * SHMEM_COLLECTIVES set to it, and the columns are printed side by side.
 * With rounds > 1 the components take turns that many times (native, mpi,
 * auto, native, mpi, auto, ...) and each cell is the median of its rounds:
 * on a shared machine the load moves the columns of one turn together, so
 * interleaving keeps the comparison between components fair.  When the
 * list holds auto and two others, a last column gives auto's time over the
 * better of the two (issue 12's bound: at most 1.10).
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Implementations without teams (OpenSHMEM < 1.5, e.g. Debian's Open MPI)
 * and -DBENCH_ACTIVESET use the world active set and pSync instead. */
#if defined(BENCH_ACTIVESET) || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION < 5)
#define ACTIVESET 1
static long psync[SHMEM_REDUCE_SYNC_SIZE], psync2[SHMEM_REDUCE_SYNC_SIZE];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];
static long *lwrk;
#else
#define ACTIVESET 0
#endif

static double t_mine, t_max;

/* The slowest PE's time, in microseconds per call. */
static double report(double t0, int iters)
{
    t_mine = (now() - t0) / iters * 1e6;
#if ACTIVESET
    shmem_barrier_all();
    shmem_double_max_to_all(&t_max, &t_mine, 1, 0, 0, shmem_n_pes(), dwrk, psync2);
#else
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_mine, 1);
#endif
    return t_max;
}

#define MAX_ROWS 64
#define MAX_COLS 4
#define MAX_ROUNDS 15
static const char *row_op[MAX_ROWS];
static size_t row_bytes[MAX_ROWS];
static double res[MAX_COLS][MAX_ROWS];
static double all[MAX_ROUNDS][MAX_COLS][MAX_ROWS];
static int nrows;

static int next_row;

/* Every component's table has the same rows in the same order. */
static void row(int col, const char *op, size_t bytes, double usec)
{
    int r = next_row++;
    if (r >= MAX_ROWS)
        return;
    if (col == 0) {
        row_op[r] = op;
        row_bytes[r] = bytes;
        nrows = r + 1;
    }
    res[col][r] = usec;
}

static void table(int col, size_t maxb, int iters0)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    next_row = 0;
    char *src = shmem_malloc(maxb * (size_t)np);
    char *dst = shmem_malloc(maxb * (size_t)np);
    memset(src, 1, maxb * (size_t)np);
#if ACTIVESET
    lwrk = shmem_malloc(maxb / 16 + SHMEM_REDUCE_MIN_WRKDATA_SIZE * 8 + 64);
#endif
    shmem_barrier_all();

    int iters = iters0 * 5;
    /* As many as timed: the first calls over a network transport set up
     * its connections and buffers, and over tcp;ofi_rxm a tenth as many
     * left the barrier at 11-34 us from run to run against 11-12 for the
     * sync_all timed after it. */
    for (int i = 0; i < iters; i++)
        shmem_barrier_all();
    double t0 = now();
    for (int i = 0; i < iters; i++)
        shmem_barrier_all();
    double bar = report(t0, iters);
    t0 = now();
    for (int i = 0; i < iters; i++)
        shmem_sync_all();
    double syn = report(t0, iters);
    row(col, "barrier", 0, bar);
    row(col, "sync_all", 0, syn);
    const char *ops[] = {"bcast", "reduce", "fcollect", "alltoall", "inscan"};
    const char *only = getenv("COLL_BENCH_OPS");
    size_t minb = getenv("COLL_BENCH_MIN") ? strtoul(getenv("COLL_BENCH_MIN"), NULL, 0) : 0;
    size_t step = getenv("COLL_BENCH_STEP") ? strtoul(getenv("COLL_BENCH_STEP"), NULL, 0) : 8;
    if (step < 2)
        step = 2;
    for (int o = 0; o < 5 - ACTIVESET; o++) {
        if (only && *only && !strstr(only, ops[o]))
            continue;
        for (size_t b = 8; b <= maxb; b *= step) {
            if (b < minb)
                continue;
            iters = b >= 32768 ? iters0 / 10 + 1 : iters0;
            if (o == 3 && b * (size_t)np > maxb * (size_t)np)
                break;
            for (int w = 0; w < 2; w++) { /* warm-up pass, then the timed one */
                shmem_barrier_all();
                t0 = now();
                for (int i = 0; i < (w ? iters : iters / 10 + 1); i++) {
#if ACTIVESET
                    /* One pSync for all: a call reuses it after the previous
                     * one completed everywhere (the reduction and the
                     * collects end in a barrier; broadcast is in place). */
                    switch (o) {
                    case 0: shmem_broadcast64(src, src, b / 8, 0, 0, 0, np, psync); break;
                    case 1: shmem_long_sum_to_all((long *)dst, (const long *)src, (int)(b / 8), 0, 0, np, lwrk, psync); break;
                    case 2: shmem_fcollect64(dst, src, b / 8, 0, 0, np, psync); break;
                    case 3: shmem_alltoall64(dst, src, b / 8, 0, 0, np, psync); break;
                    }
#else
                    switch (o) {
                    case 0: shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, b, 0); break;
                    case 1:
                        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)dst, (const long *)src, b / 8);
                        break;
                    case 2: shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, b); break;
                    case 3: shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, b); break;
                    case 4:
                        shmem_long_sum_inscan(SHMEM_TEAM_WORLD, (long *)dst, (const long *)src, b / 8);
                        break;
                    }
#endif
                }
            }
            row(col, ops[o], b, report(t0, iters));
        }
    }
    (void)me;
    shmem_free(dst);
    shmem_free(src);
#if ACTIVESET
    shmem_free(lwrk);
#endif
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(int rounds, int col, int r)
{
    double v[MAX_ROUNDS];
    for (int k = 0; k < rounds; k++)
        v[k] = all[k][col][r];
    qsort(v, (size_t)rounds, sizeof v[0], cmp_double);
    return rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
}

int main(int argc, char **argv)
{
    size_t maxb = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
    int iters0 = argc > 2 ? atoi(argv[2]) : 2000;
    char *names[MAX_COLS] = {NULL};
    int ncols = 1;
    if (argc > 3) {
        ncols = 0;
        for (char *save = NULL, *c = strtok_r(argv[3], ",", &save); c && ncols < MAX_COLS;
             c = strtok_r(NULL, ",", &save))
            names[ncols++] = c;
    }
    int rounds = argc > 4 ? atoi(argv[4]) : 1;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "coll_bench: rounds must be 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    int me = 0, np = 1;
    for (int k = 0; k < rounds; k++)
        for (int col = 0; col < ncols; col++) {
#if ACTIVESET
            for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
                psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
#endif
            if (names[col])
                setenv("SHMEM_COLLECTIVES", names[col], 1);
            shmem_init();
            me = shmem_my_pe();
            np = shmem_n_pes();
            table(col, maxb, iters0);
            shmem_finalize();
            for (int r = 0; r < nrows; r++)
                all[k][col][r] = res[col][r];
        }
    /* auto against the better of the two other columns */
    int ca = -1, c1 = -1, c2 = -1;
    for (int c = 0; c < ncols && ncols == 3; c++) {
        if (names[c] && !strcmp(names[c], "auto"))
            ca = c;
        else if (c1 < 0)
            c1 = c;
        else
            c2 = c;
    }
    if (me == 0) {
        printf("# %d PEs; microseconds per call, slowest PE", np);
        if (rounds > 1)
            printf("; median of %d interleaved rounds", rounds);
        printf("\n%-10s %10s", "op", "bytes");
        for (int c = 0; c < ncols; c++)
            printf(" %10s", names[c] ? names[c] : "usec");
        if (ca >= 0)
            printf(" %10s", "auto/best");
        printf("\n");
        for (int r = 0; r < nrows; r++) {
            printf("%-10s %10zu", row_op[r], row_bytes[r]);
            double m[MAX_COLS];
            for (int c = 0; c < ncols; c++)
                printf(" %10.3f", m[c] = median(rounds, c, r));
            if (ca >= 0)
                printf(" %10.2f", m[ca] / (m[c1] < m[c2] ? m[c1] : m[c2]));
            printf("\n");
        }
    }
    return 0;
}
