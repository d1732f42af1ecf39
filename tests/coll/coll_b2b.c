/*
 * Collectives called back to back, as programs call them: no barrier in
 * between, two destination buffers (and for the active-set forms two pSync
 * arrays) used alternately, the root changing every call, and each PE
 * checking its result and scribbling over its source and destination the
 * moment the call returns, sometimes after a pause so that the others run
 * ahead.  A PE that got more than one call ahead of a slow one would write
 * into a buffer the slow one is still checking, or read a source it has
 * already refilled.
 *
 * One launch runs every collective, team and active-set forms, at counts of
 * 1, 64 and 8200 elements, once per algorithm set: the program re-runs
 * shmem_init with SHMEM_<OP>_ALGORITHM set to auto and then to each choice
 * (three sets cover every choice; the mailbox alltoall and the eager
 * broadcast take only small blocks, the others the rest).  It prints one line per failed case,
 * naming it, and "b2b: N cases passed" on PE 0; it exits 1 if any failed.
 * B2B_ITERS scales the number of calls per case (default 1.0).
 */
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/check.h"

#define MAXCOUNT 8200
#define PSYNC_LEN                                                                                  \
    (SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE                     \
                                                      : SHMEM_COLLECT_SYNC_SIZE)

#define NVARS 6
#define NSETS 4
static const char *const algo_sets[NSETS][NVARS] = {
    /* BARRIER, BCAST, REDUCE, COLLECT, ALLTOALL, SCAN */
    {"auto", "auto", "auto", "auto", "auto", "auto"},
    {"dissemination", "binomial", "recursive_doubling", "ring", "pairwise", "linear"},
    {"tree", "scatter_allgather", "ring", "recursive_doubling", "linear", "hillis_steele"},
    {"counter", "eager", "reduce_scatter_allgather", "linear", "mailbox", "segmented"},
};
static const char *const algo_vars[NVARS] = {
    "SHMEM_BARRIER_ALGORITHM", "SHMEM_BCAST_ALGORITHM",    "SHMEM_REDUCE_ALGORITHM",
    "SHMEM_COLLECT_ALGORITHM", "SHMEM_ALLTOALL_ALGORITHM", "SHMEM_SCAN_ALGORITHM"};

static int me, npes, set;
static long *src, *dst[2], *pwrk;
static long psync[2][PSYNC_LEN];
static int passed, failed;
static double iter_scale = 1.0;

/* Which of the two buffers (and pSync arrays) the next call uses: they
 * alternate call by call across cases, as in a program.  Reset where a
 * suite starts, after a barrier or a team split has synchronized. */
static long calls;
static inline int next_buf(void) { return (int)(calls++ & 1); }

static inline long val(long it, long who, long i) { return it * 1000003L + who * 7919L + i; }

/* A per-PE pseudo-random pause after some calls, so that the PEs drift
 * apart by a call or more. */
static void maybe_pause(long it)
{
    unsigned h = (unsigned)(it * 2654435761u) ^ (unsigned)(me * 40503u);
    h ^= h >> 13;
    if ((h & 7) == 0)
        usleep(h >> 8 & 63);
    else if ((h & 7) == 1)
        sched_yield();
}

struct kase {
    char name[160];
    long bad; /* mismatches seen by this PE */
    char first[200];
    double t0;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int verbose;

static void begin(struct kase *k, const char *coll, const char *form, int count)
{
    k->t0 = now();
    snprintf(k->name, sizeof k->name, "%s/%s count=%d set=%d (%s,%s,%s,%s,%s,%s)", coll, form,
             count, set, algo_sets[set][0], algo_sets[set][1], algo_sets[set][2],
             algo_sets[set][3], algo_sets[set][4], algo_sets[set][5]);
    k->bad = 0;
    k->first[0] = 0;
    check_stage(k->name);
}

static void expect_eq(struct kase *k, long it, const char *what, size_t i, long got, long want)
{
    if (got == want)
        return;
    if (!k->bad++)
        snprintf(k->first, sizeof k->first, "call %ld: %s[%zu] = %ld, expected %ld", it, what, i,
                 got, want);
}

static void end(struct kase *k)
{
    if (k->bad) {
        failed++;
        printf("FAIL PE %d: %s: %ld wrong values, first %s\n", me, k->name, k->bad, k->first);
        fflush(stdout);
    } else {
        passed++;
    }
    if (verbose && me == 0)
        printf("%8.3f s  %s\n", now() - k->t0, k->name);
}

static long iters(int count)
{
    long n = count == 1 ? 400 : count <= 64 ? 120 : 8;
    n = (long)(n * iter_scale);
    return n < 3 ? 3 : n;
}

static void scribble(long *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = -1;
}

/* ---- team forms (on world and on a split team) --------------------------- */

/* One call of a team collective with call number it into dest d, checked
 * right after it returns; source and dest are scribbled over at once. */
typedef void (*team_op)(struct kase *k, shmem_team_t t, long it, int count, long *d);

static void broadcast_from(struct kase *k, shmem_team_t t, long it, int count, long *d, int root)
{
    for (int i = 0; i < count; i++)
        src[i] = val(it, root, i);
    shmem_long_broadcast(t, d, src, (size_t)count, root);
    scribble(src, (size_t)count);
    maybe_pause(it);
    for (int i = 0; i < count; i++)
        expect_eq(k, it, "dest", (size_t)i, d[i], val(it, root, i));
    scribble(d, (size_t)count);
}

/* The root changes every call. */
static void op_broadcast(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    broadcast_from(k, t, it, count, d, (int)((it * 5 + 1) % shmem_team_n_pes(t)));
}

/* Runs of broadcasts from one root, so that it may run calls ahead: the
 * eager broadcast lets it go PSHM_EAGER_DEPTH - 1 = 7 ahead, so a run is
 * longer than twice that.  At count 1 the size cycles through 8, 64 and
 * 112 bytes: one and two cache lines of an eager slot, the last its
 * largest. */
static void op_broadcast_runs(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    static const int sizes[] = {1, 8, 14};
    int c = count == 1 ? sizes[it % 3] : count;
    broadcast_from(k, t, it, c, d, (int)((it / 18) % shmem_team_n_pes(t)));
}

static void op_reduce(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    for (int i = 0; i < count; i++)
        src[i] = val(it, tme, i);
    shmem_long_sum_reduce(t, d, src, (size_t)count);
    scribble(src, (size_t)count);
    maybe_pause(it);
    for (int i = 0; i < count; i++) {
        long want = 0;
        for (int p = 0; p < tn; p++)
            want += val(it, p, i);
        expect_eq(k, it, "dest", (size_t)i, d[i], want);
    }
    scribble(d, (size_t)count);
}

static void scan(struct kase *k, shmem_team_t t, long it, int count, long *d, int exclusive)
{
    int tme = shmem_team_my_pe(t);
    for (int i = 0; i < count; i++)
        src[i] = val(it, tme, i);
    if (exclusive)
        shmem_long_sum_exscan(t, d, src, (size_t)count);
    else
        shmem_long_sum_inscan(t, d, src, (size_t)count);
    scribble(src, (size_t)count);
    maybe_pause(it);
    for (int i = 0; i < count; i++) {
        long want = 0;
        for (int p = 0; p < (exclusive ? tme : tme + 1); p++)
            want += val(it, p, i);
        expect_eq(k, it, "dest", (size_t)i, d[i], want);
    }
    scribble(d, (size_t)count);
}

static void op_inscan(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    scan(k, t, it, count, d, 0);
}

static void op_exscan(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    scan(k, t, it, count, d, 1);
}

/* PE p of the team contributes this many elements to collect call it. */
static int collect_count(long it, int p, int count) { return (int)((it + p) % (count + 1)); }

static void collect(struct kase *k, shmem_team_t t, long it, int count, long *d, int fixed)
{
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    int mine = fixed ? count : collect_count(it, tme, count);
    for (int i = 0; i < mine; i++)
        src[i] = val(it, tme, i);
    if (fixed)
        shmem_long_fcollect(t, d, src, (size_t)count);
    else
        shmem_long_collect(t, d, src, (size_t)mine);
    scribble(src, (size_t)count);
    maybe_pause(it);
    size_t at = 0;
    for (int p = 0; p < tn; p++) {
        int c = fixed ? count : collect_count(it, p, count);
        for (int i = 0; i < c; i++, at++)
            expect_eq(k, it, "dest", at, d[at], val(it, p, i));
    }
    scribble(d, at);
}

static void op_fcollect(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    collect(k, t, it, count, d, 1);
}

static void op_collect(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    collect(k, t, it, count, d, 0);
}

static void alltoall(struct kase *k, shmem_team_t t, long it, int count, long *d, int strided)
{
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    /* alltoalls: dest stride 2, source stride 3, so the blocks interleave. */
    ptrdiff_t dstr = strided ? 2 : 1, sstr = strided ? 3 : 1;
    size_t per = (size_t)count;
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < per; i++)
            src[((size_t)p * per + i) * (size_t)sstr] = val(it, tme * tn + p, (long)i);
    if (strided)
        shmem_long_alltoalls(t, d, src, dstr, sstr, per);
    else
        shmem_long_alltoall(t, d, src, per);
    scribble(src, (size_t)tn * per * (size_t)sstr);
    maybe_pause(it);
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < per; i++) {
            size_t at = ((size_t)p * per + i) * (size_t)dstr;
            expect_eq(k, it, "dest", at, d[at], val(it, p * tn + tme, (long)i));
        }
    scribble(d, (size_t)tn * per * (size_t)dstr);
}

static void op_alltoall(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    alltoall(k, t, it, count, d, 0);
}

static void op_alltoalls(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    alltoall(k, t, it, count, d, 1);
}

/* Every PE writes the call number into its right neighbour's word between
 * two syncs; after the second the word must hold it.  The first sync is
 * what lets a PE write: a broadcast just before may have let it leave
 * while its neighbour still checks an older result in this buffer. */
static void op_sync(struct kase *k, shmem_team_t t, long it, int count, long *d)
{
    (void)count;
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    int right = shmem_team_translate_pe(t, (tme + 1) % tn, SHMEM_TEAM_WORLD);
    shmem_team_sync(t);
    shmem_long_p(d, val(it, tme, 0), right);
    shmem_quiet();
    shmem_team_sync(t);
    maybe_pause(it);
    expect_eq(k, it, "word", 0, d[0], val(it, (tme - 1 + tn) % tn, 0));
}

static const struct {
    const char *name;
    team_op fn;
} team_ops[] = {
    {"broadcast", op_broadcast}, {"broadcast_runs", op_broadcast_runs},
    {"sum_reduce", op_reduce},   {"sum_inscan", op_inscan},
    {"sum_exscan", op_exscan},   {"fcollect", op_fcollect},   {"collect", op_collect},
    {"alltoall", op_alltoall},   {"alltoalls", op_alltoalls}, {"sync", op_sync},
};
#define N_TEAM_OPS (int)(sizeof team_ops / sizeof team_ops[0])

static void team_suite(shmem_team_t t, const char *form)
{
    static const int counts[] = {1, 64, MAXCOUNT};
    struct kase k;
    calls = 0;
    for (int c = 0; c < 3; c++) {
        int count = counts[c];
        for (int o = 0; o < N_TEAM_OPS; o++) {
            if (team_ops[o].fn == op_sync && count > 1)
                continue;
            /* alltoalls spreads each source block over 3x its size */
            int cnt = team_ops[o].fn == op_alltoalls && count > 64 ? count / 3 : count;
            begin(&k, team_ops[o].name, form, cnt);
            for (long it = 0; it < iters(count); it++)
                team_ops[o].fn(&k, t, it, cnt, dst[next_buf()]);
            end(&k);
        }
        /* Every collective in turn, a broadcast between any two (its root
         * may leave it first): a fast PE goes on to another kind of call
         * while a slow one still checks the previous result. */
        begin(&k, "mixed", form, count);
        for (long it = 0; it < iters(count) * 2; it++) {
            int o = it & 1 ? (int)(it / 2 % N_TEAM_OPS) : 0, cnt = count;
            if (team_ops[o].fn == op_sync)
                cnt = 1;
            if (team_ops[o].fn == op_alltoalls && count > 64)
                cnt = count / 3;
            team_ops[o].fn(&k, t, it, cnt, dst[next_buf()]);
        }
        end(&k);
    }
    /* Reductions and scans whose size changes every call, so that auto
     * passes the peers' scratch from one algorithm to another (gather,
     * recursive doubling, Hillis-Steele) while a slow PE may still read
     * what the previous one left there; 14 and 15 elements are the
     * largest recursive doubling with the data in its flag's lines and the
     * smallest through scratch. */
    static const int sizes[] = {1, 200, 64, 8200, 0, 150, 3, 14, 15};
    begin(&k, "reduce/scan sizes", form, 0);
    for (long it = 0; it < iters(64) * 2; it++) {
        int cnt = sizes[it % 9];
        if (cnt == 0 && it % 2)
            alltoall(&k, t, it, 0, dst[next_buf()], (int)(it / 2 % 2));
        else if (it % 3 == 2)
            scan(&k, t, it, cnt, dst[next_buf()], (int)(it / 3 % 2));
        else
            op_reduce(&k, t, it, cnt, dst[next_buf()]);
    }
    end(&k);
}

/* ---- active-set forms, alternating two pSync arrays ---------------------- */

struct aset {
    int start, logstride, size;
    const char *name;
};

static int as_index(const struct aset *a)
{
    int d = me - a->start;
    if (d < 0 || d % (1 << a->logstride) || d >> a->logstride >= a->size)
        return -1;
    return d >> a->logstride;
}

static void as_suite(const struct aset *a)
{
    int idx = as_index(a), n = a->size;
    static const int counts[] = {1, 64, MAXCOUNT};
    calls = 0;
    for (int c = 0; c < 3; c++) {
        int count = counts[c];
        struct kase k;
        /* broadcast64: the root's dest is left alone in this form. */
        begin(&k, "broadcast64", a->name, count);
        for (long it = 0; idx >= 0 && it < iters(count); it++) {
            int root = (int)((it * 5 + 1) % n);
            int b = next_buf();
            long *d = dst[b];
            for (int i = 0; i < count; i++)
                src[i] = val(it, root, i);
            shmem_broadcast64(d, src, (size_t)count, root, a->start, a->logstride, n,
                              psync[b]);
            scribble(src, (size_t)count);
            maybe_pause(it);
            for (int i = 0; i < count; i++)
                expect_eq(&k, it, "dest", (size_t)i, d[i], idx == root ? -1 : val(it, root, i));
            scribble(d, (size_t)count);
        }
        end(&k);

        begin(&k, "long_sum_to_all", a->name, count);
        for (long it = 0; idx >= 0 && it < iters(count); it++) {
            int b = next_buf();
            long *d = dst[b];
            for (int i = 0; i < count; i++)
                src[i] = val(it, idx, i);
            shmem_long_sum_to_all(d, src, count, a->start, a->logstride, n, pwrk, psync[b]);
            scribble(src, (size_t)count);
            maybe_pause(it);
            for (int i = 0; i < count; i++) {
                long want = 0;
                for (int p = 0; p < n; p++)
                    want += val(it, p, i);
                expect_eq(&k, it, "dest", (size_t)i, d[i], want);
            }
            scribble(d, (size_t)count);
        }
        end(&k);

        for (int fixed = 0; fixed < 2; fixed++) {
            begin(&k, fixed ? "fcollect64" : "collect64", a->name, count);
            for (long it = 0; idx >= 0 && it < iters(count); it++) {
                int b = next_buf();
            long *d = dst[b];
                int mine = fixed ? count : collect_count(it, idx, count);
                for (int i = 0; i < mine; i++)
                    src[i] = val(it, idx, i);
                if (fixed)
                    shmem_fcollect64(d, src, (size_t)count, a->start, a->logstride, n,
                                     psync[b]);
                else
                    shmem_collect64(d, src, (size_t)mine, a->start, a->logstride, n,
                                    psync[b]);
                scribble(src, (size_t)count);
                maybe_pause(it);
                size_t at = 0;
                for (int p = 0; p < n; p++) {
                    int cnt = fixed ? count : collect_count(it, p, count);
                    for (int i = 0; i < cnt; i++, at++)
                        expect_eq(&k, it, "dest", at, d[at], val(it, p, i));
                }
                scribble(d, at);
            }
            end(&k);
        }

        begin(&k, "alltoall64", a->name, count);
        for (long it = 0; idx >= 0 && it < iters(count); it++) {
            int b = next_buf();
            long *d = dst[b];
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++)
                    src[(size_t)p * (size_t)count + (size_t)i] = val(it, idx * n + p, i);
            shmem_alltoall64(d, src, (size_t)count, a->start, a->logstride, n, psync[b]);
            scribble(src, (size_t)n * (size_t)count);
            maybe_pause(it);
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++) {
                    size_t at = (size_t)p * (size_t)count + (size_t)i;
                    expect_eq(&k, it, "dest", at, d[at], val(it, p * n + idx, i));
                }
            scribble(d, (size_t)n * (size_t)count);
        }
        end(&k);
    }
}

/* A PE outside the active set that calls an active-set collective gets no
 * effect (the call is erroneous, but programs make it). */
static void as_nonmember(const struct aset *a)
{
    if (as_index(a) >= 0)
        return;
    struct kase k;
    begin(&k, "non-member calls", a->name, 4);
    scribble(dst[0], 4);
    for (int i = 0; i < 4; i++)
        src[i] = 7;
    shmem_long_sum_to_all(dst[0], src, 4, a->start, a->logstride, a->size, pwrk, psync[0]);
    shmem_broadcast64(dst[0], src, 4, 0, a->start, a->logstride, a->size, psync[0]);
    shmem_fcollect64(dst[0], src, 1, a->start, a->logstride, a->size, psync[0]);
    shmem_collect64(dst[0], src, 1, a->start, a->logstride, a->size, psync[0]);
    shmem_alltoall64(dst[0], src, 1, a->start, a->logstride, a->size, psync[0]);
    shmem_barrier(a->start, a->logstride, a->size, psync[0]);
    for (int i = 0; i < 4; i++)
        expect_eq(&k, 0, "dest", (size_t)i, dst[0][i], -1);
    for (int i = 0; i < PSYNC_LEN; i++)
        expect_eq(&k, 0, "pSync", (size_t)i, psync[0][i], SHMEM_SYNC_VALUE);
    end(&k);
}

static void run_set(void)
{
    for (int v = 0; v < NVARS; v++)
        setenv(algo_vars[v], algo_sets[set][v], 1);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t big = (size_t)MAXCOUNT * (size_t)npes * 3;
    src = shmem_malloc(big * sizeof(long));
    dst[0] = shmem_malloc(big * sizeof(long));
    dst[1] = shmem_malloc(big * sizeof(long));
    pwrk = shmem_malloc(((size_t)MAXCOUNT / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(long));
    REQUIRE(src && dst[0] && dst[1] && pwrk, "shmem_malloc failed");
    scribble(dst[0], big);
    scribble(dst[1], big);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < PSYNC_LEN; i++)
            psync[p][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    team_suite(SHMEM_TEAM_WORLD, "world team");
    if (npes > 2) {
        /* All but PE 0: team PE numbers differ from world ones. */
        shmem_team_t t;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &t);
        REQUIRE_EQ(rc, 0, "split_strided failed: %d", rc);
        if (t != SHMEM_TEAM_INVALID) {
            team_suite(t, "team 1..n-1");
            shmem_team_destroy(t);
        }
    }
    shmem_barrier_all();
    const struct aset world = {0, 0, npes, "active set world"};
    as_suite(&world);
    shmem_barrier_all();
    if (npes > 2) {
        /* Odd PEs: PE 0 and the other even PEs stay outside. */
        const struct aset odd = {1, 1, npes / 2, "active set odd PEs"};
        as_suite(&odd);
        as_nonmember(&odd);
    }
    shmem_barrier_all();
    shmem_free(pwrk);
    shmem_free(dst[1]);
    shmem_free(dst[0]);
    shmem_free(src);
    shmem_finalize();
}

int main(void)
{
    const char *s = getenv("B2B_ITERS");
    if (s)
        iter_scale = atof(s);
    verbose = getenv("B2B_VERBOSE") != NULL;
    const char *only = getenv("B2B_SET"); /* run one algorithm set only */
    check_watchdog(600);
    for (set = 0; set < NSETS; set++) {
        if (only && atoi(only) != set)
            continue;
        run_set();
    }
    if (failed)
        return 1;
    if (me == 0)
        printf("b2b: %d cases passed on PE 0\n", passed);
    return 0;
}
