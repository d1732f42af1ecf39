/*
 * The benchmark program shmem_compare runs once per configuration and
 * repeat (installed in LIBEXECDIR/plugshmem).  PE 0 prints CSV:
 *
 *   # compare_bench 1; transport=ofi; pes=2; budget_ms=100; points=34
 *   bench,bytes,value,unit,iterations,seconds
 *   put,8,0.412,us,240000,0.101
 *
 * Every point runs for a time budget rather than a fixed count, so that a
 * slow configuration (libfabric's sockets provider takes milliseconds per
 * operation here) still finishes in predictable time: a warm-up in batches
 * that double gives the rate, and one batch sized by it fills the budget
 * (longer where the calls slow down after the warm-up).
 *
 * Point-to-point: PE 0 drives, PE 1 is the target, the others wait in the
 * closing barrier.  shmem_compare runs the two halves as two jobs
 * (--only p2p, --only coll): PEs that slept through the point-to-point
 * half came back to the collectives behind the two that had run all along
 * (the scheduler favours a task that slept) or on a core shared with
 * another PE: in one job the collective rows took 1.5-2x coll_bench's
 * time at 4 and 8 PEs on 2 cores, and issue 29 saw 130x at 16 PEs on 16
 * cores.  Two jobs start the collectives as coll_bench does, every PE
 * fresh.  Collectives: every PE runs the same batches (each batch's
 * slowest PE decides, through a max-reduction, so the PEs stay in step) and
 * the slowest PE's time is reported.  Results are checked where it is cheap
 * (data fetched by get, the count of fetch-adds), so a transport that
 * returns wrong data fails the run instead of reporting a time.
 *
 * Standard OpenSHMEM only, so that shmem_compare --impl can build it with
 * another implementation's compiler wrapper: with a library older than
 * 1.5 (no teams, e.g. Debian's Open MPI) the collectives are the active-set
 * forms with a pSync, and the header names the implementation instead of
 * the transport (transport=other:VENDOR).
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#ifdef PLUGSHMEM_VERSION_STRING
#include <shmemx.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION < 5
#define ACTIVESET 1
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_SIZE                                                                                 \
    MAX2(MAX2(SHMEM_REDUCE_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE), SHMEM_ALLTOALL_SYNC_SIZE)
/* Consecutive calls alternate between two pSync (and work) arrays, the
 * usual way to reuse them without a barrier between calls; the per-batch
 * maximum has its own, used after a barrier. */
static long psync[2][PSYNC_SIZE], psync_max[PSYNC_SIZE];
static int turn;
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];
static long *lwrk[2]; /* symmetric: the sum reduction's work arrays */
#define LWRK_LONGS (32768 / 16 + SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8)
#else
#define ACTIVESET 0
#endif

#define MAX_BYTES (1 << 20)
#define RATE_WINDOW 256

static const size_t p2p_full[] = {8, 64, 512, 4096, 32768, 262144, 1 << 20};
static const size_t p2p_quick[] = {8, 512, 32768, 1 << 20};
static const size_t coll_full[] = {8, 512, 32768};
static const size_t coll_quick[] = {8, 32768};

static int quick;
static int phases = 3; /* 1: point-to-point, 2: collectives */
static double budget = 0.1; /* seconds per point */
static char *heap_dst, *heap_src, *local_src;
static long amo_word;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What one timed call does; size is the message size. */
typedef void (*op_fn)(size_t size);

static void op_put(size_t s) { shmem_putmem(heap_dst, local_src, s, 1); shmem_quiet(); }
static void op_get(size_t s) { shmem_getmem(local_src, heap_src, s, 1); }
static void op_fadd(size_t s) { (void)s; (void)shmem_long_atomic_fetch_add(&amo_word, 1, 1); }
static void op_cswap(size_t s)
{
    (void)s;
    long v = shmem_long_atomic_fetch(&amo_word, 1);
    (void)shmem_long_atomic_compare_swap(&amo_word, v, v + 1, 1);
}
static void op_rate(size_t s)
{
    for (int i = 0; i < RATE_WINDOW; i++)
        shmem_putmem_nbi(heap_dst, local_src, s, 1);
    shmem_quiet();
}
/* Enough puts in flight to cover the pipeline, at most 4 MiB a window. */
static int bw_window(size_t s) { return s >= 65536 ? 4 : s >= 4096 ? 64 : 256; }
static void op_bw(size_t s)
{
    int w = bw_window(s);
    for (int i = 0; i < w; i++)
        shmem_putmem_nbi(heap_dst, local_src, s, 1);
    shmem_quiet();
}
static void op_barrier(size_t s) { (void)s; shmem_barrier_all(); }
#if ACTIVESET
/* The active-set broadcast leaves the root's dest alone (the root is
 * not checked). */
static void op_bcast(size_t s)
{
    turn ^= 1;
    shmem_broadcast64(heap_dst, heap_src, s / 8, 0, 0, 0, shmem_n_pes(), psync[turn]);
}
static void op_reduce(size_t s)
{
    turn ^= 1;
    shmem_long_sum_to_all((long *)heap_dst, (const long *)(heap_src + MAX_BYTES), (int)(s / 8), 0,
                          0, shmem_n_pes(), lwrk[turn], psync[turn]);
}
static void op_alltoall(size_t s)
{
    turn ^= 1;
    shmem_alltoall64(heap_dst, heap_src, s / 8, 0, 0, shmem_n_pes(), psync[turn]);
}
#else
static void op_bcast(size_t s) { shmem_broadcastmem(SHMEM_TEAM_WORLD, heap_dst, heap_src, s, 0); }
static void op_reduce(size_t s)
{
    /* From the zeroed second block: sums of get's 0x5a pattern would overflow. */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)heap_dst,
                          (const long *)(heap_src + MAX_BYTES), s / 8);
}
static void op_alltoall(size_t s) { shmem_alltoallmem(SHMEM_TEAM_WORLD, heap_dst, heap_src, s); }
#endif

/* The slowest PE's value of t. */
static double max_over_pes(double t)
{
    static double t_mine, t_max;
    t_mine = t;
#if ACTIVESET
    shmem_barrier_all(); /* psync_max's previous use is over everywhere */
    shmem_double_max_to_all(&t_max, &t_mine, 1, 0, 0, shmem_n_pes(), dwrk, psync_max);
#else
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_mine, 1);
#endif
    return t_max;
}

/* Seconds per call and the number of timed calls.  coll: every PE calls,
 * and the time is the slowest PE's.
 *
 * A warm-up of a fifth of the budget, in batches that double, gives the
 * rate; then one batch sized by it to fill the budget is timed.  One
 * batch, because each batch starts at a barrier and the slowest PE's time
 * includes how late the last PE left it: with PEs outnumbering cores that
 * is a scheduler's time slice, and the sum of 8-10 batches of 2.5 ms read
 * 1.5-3.5x coll_bench's time at 8 PEs on 2 cores.  Every PE sizes the
 * batch from the same maximum, so all make the same number of calls. */
static long all_calls; /* warm-up included, for the fetch-add check */

static double batch(op_fn op, size_t size, int coll, long n)
{
    if (coll)
        shmem_barrier_all();
    double t0 = now();
    for (long k = 0; k < n; k++)
        op(size);
    all_calls += n;
    return coll ? max_over_pes(now() - t0) : now() - t0;
}

static double measure(op_fn op, size_t size, int coll, long *calls)
{
    double spent = 0, want = budget / 5, best = 0;
    long n = 1;
    /* Two batches at least, and the rate is the best of those after the
     * first: the first call may carry a connection's set-up (ofi tcp:
     * over 20 ms), and a batch that met a stall would size the timed one
     * to a handful of calls (seen: 6 barriers for a 20 ms budget). */
    for (int batches = 0; spent < want || batches < 2; batches++) {
        double t = batch(op, size, coll, n);
        spent += t;
        double per_call = t / (double)n;
        if (batches == 1 || (batches > 1 && per_call < best))
            best = per_call;
        /* Double while batches are short, but never plan a batch longer
         * than what is left of the warm-up at the last rate. */
        double left = want - spent;
        long fit = per_call > 0 ? (long)(left / per_call) : 2 * n;
        if (t < want / 8)
            n *= 2;
        if (n > fit)
            n = fit > 1 ? fit : 1;
    }
    n = best > 0 ? (long)(budget / best) : n;
    *calls = n > 1 ? n : 1;
    return batch(op, size, coll, *calls) / (double)*calls;
}

static void row(const char *bench, size_t bytes, double value, const char *unit, long calls,
                double secs)
{
    /* Relative precision: a short timed batch (a few calls of a few us,
     * after a warm-up that met a stall) must not print as 0 seconds. */
    printf("%s,%zu,%.6g,%s,%ld,%.6g\n", bench, bytes, value, unit, calls, secs);
    fflush(stdout);
}

static void fail(const char *what)
{
    fprintf(stderr, "compare_bench: wrong result: %s\n", what);
    shmem_global_exit(3);
}

static void p2p(const size_t *sizes, int nsizes)
{
    long calls;
    double t;
    for (int i = 0; i < nsizes; i++) {
        t = measure(op_put, sizes[i], 0, &calls);
        row("put", sizes[i], t * 1e6, "us", calls, t * calls);
    }
    for (int i = 0; i < nsizes; i++) {
        memset(local_src, 0, sizes[i]);
        t = measure(op_get, sizes[i], 0, &calls);
        /* PE 1 filled its heap_src with 0x5a. */
        if (local_src[0] != 0x5a || local_src[sizes[i] - 1] != 0x5a)
            fail("get returned other bytes than the target holds");
        row("get", sizes[i], t * 1e6, "us", calls, t * calls);
    }
    long before = shmem_long_atomic_fetch(&amo_word, 1);
    all_calls = 0;
    t = measure(op_fadd, 8, 0, &calls);
    if (shmem_long_atomic_fetch(&amo_word, 1) != before + all_calls)
        fail("the target's word does not hold the count of fetch-adds");
    row("fetch_add", 8, t * 1e6, "us", calls, t * calls);
    t = measure(op_cswap, 8, 0, &calls);
    row("compare_swap", 8, t * 1e6, "us", calls, t * calls);
    t = measure(op_rate, 8, 0, &calls);
    row("put_nbi_rate", 8, RATE_WINDOW / t / 1e6, "Mmsg/s", calls * RATE_WINDOW, t * calls);
    for (int i = 0; i < nsizes; i++) {
        t = measure(op_bw, sizes[i], 0, &calls);
        double bytes = (double)sizes[i] * bw_window(sizes[i]);
        row("put_nbi_bw", sizes[i], bytes / t / 1e6, "MB/s", calls * bw_window(sizes[i]),
            t * calls);
    }
}

static void coll(int me, const size_t *sizes, int nsizes)
{
    long calls;
    double t = measure(op_barrier, 0, 1, &calls);
    if (me == 0)
        row("barrier", 0, t * 1e6, "us", calls, t * calls);
    static const struct { const char *name; op_fn op; } ops[] = {
        {"broadcast", op_bcast}, {"reduce", op_reduce}, {"alltoall", op_alltoall}};
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < nsizes; i++) {
            t = measure(ops[o].op, sizes[i], 1, &calls);
            /* The root broadcast the start of its 0x5a block. */
            if (ops[o].op == op_bcast && me != 0 &&
                (heap_dst[0] != 0x5a || heap_dst[sizes[i] - 1] != 0x5a))
                fail("broadcast delivered other bytes than the root sent");
            if (me == 0)
                row(ops[o].name, sizes[i], t * 1e6, "us", calls, t * calls);
        }
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: oshrun -n N compare_bench [--quick] [--budget-ms MS] [--only p2p|coll]\n"
               "Run by shmem_compare: the standard benchmarks, CSV on PE 0's output.\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
            budget = 0.02;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            i++;
            phases = !strcmp(argv[i], "p2p") ? 1 : !strcmp(argv[i], "coll") ? 2 : 0;
            if (!phases) {
                fprintf(stderr, "compare_bench: --only '%s' is not p2p or coll\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--budget-ms") && i + 1 < argc) {
            char *end;
            double ms = strtod(argv[++i], &end);
            if (*end || !(ms >= 1 && ms <= 60000)) {
                fprintf(stderr, "compare_bench: --budget-ms '%s' is not 1 to 60000\n", argv[i]);
                return 2;
            }
            budget = ms / 1000;
        } else {
            usage(!strcmp(argv[i], "--help") ? stdout : stderr);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
#if ACTIVESET
    for (int i = 0; i < PSYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = psync_max[i] = SHMEM_SYNC_VALUE;
#endif
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "compare_bench: needs at least 2 PEs, got %d\n", np);
        shmem_finalize();
        return 2;
    }
    const size_t *ps = quick ? p2p_quick : p2p_full, *cs = quick ? coll_quick : coll_full;
    int nps = quick ? 4 : 7, ncs = quick ? 2 : 3;
    /* alltoall moves size bytes to every PE: np blocks in each buffer. */
    size_t heap = (size_t)np * MAX_BYTES;
    heap_dst = shmem_malloc(heap);
    heap_src = shmem_malloc(heap);
    local_src = aligned_alloc(4096, MAX_BYTES);
#if ACTIVESET
    lwrk[0] = shmem_malloc(LWRK_LONGS * sizeof(long));
    lwrk[1] = shmem_malloc(LWRK_LONGS * sizeof(long));
    if (!lwrk[0] || !lwrk[1])
        heap_dst = NULL;
#endif
    if (!heap_dst || !heap_src || !local_src) {
        fprintf(stderr, "compare_bench: PE %d: no memory for %zu-byte buffers (SHMEM_SYMMETRIC_SIZE)\n",
                me, heap);
        shmem_global_exit(2);
    }
    memset(heap_src, 0x5a, MAX_BYTES);
    memset(heap_src + MAX_BYTES, 0, heap - MAX_BYTES);
    memset(heap_dst, 0, heap);
    memset(local_src, 1, MAX_BYTES);
    if (me == 0) {
        printf("# compare_bench 1; transport=%s; pes=%d; budget_ms=%g; points=%d\n",
#ifdef PLUGSHMEM_VERSION_STRING
               shmemx_transport_name(),
#else
               "other",
#endif
               np, budget * 1000, (phases & 1 ? 3 * nps + 3 : 0) + (phases & 2 ? 1 + 3 * ncs : 0));
        printf("bench,bytes,value,unit,iterations,seconds\n");
        fflush(stdout);
    }
    shmem_barrier_all();
    if (me == 0 && (phases & 1))
        p2p(ps, nps);
    shmem_barrier_all();
    if (phases & 2)
        coll(me, cs, ncs);
    shmem_barrier_all();
#if ACTIVESET
    shmem_free(lwrk[0]);
    shmem_free(lwrk[1]);
#endif
    shmem_free(heap_src);
    shmem_free(heap_dst);
    free(local_src);
    shmem_finalize();
    return 0;
}
