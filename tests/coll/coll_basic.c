/*
 * Every team collective for every type of the specification's tables,
 * against values computed here: broadcast (several roots), collect with a
 * different count on each PE, fcollect, alltoall, alltoalls, the seven
 * reductions (in place and not), sum_inscan and sum_exscan, and
 * team_sync; on the world team, on strided teams (positive and negative
 * stride) and on the two teams of a 2-D split, while the PEs outside a
 * team do other work.  Counts cover one element, odd counts, and sizes
 * that need chunking and pipelining.  The algorithms are those
 * SHMEM_<OP>_ALGORITHM selects, so the suite runs once per algorithm.
 */
#include <complex.h>

#include "../common/check.h"
#include "coll_types.h"

#define MAXN 100000
#define MAXPE 64

static char *sbuf, *dbuf; /* symmetric */
static size_t bufsize;
static long *other; /* symmetric: work of the PEs outside a team */
static int full;     /* all types, or a few */
static size_t large = MAXN;

#define IS_C_C 1
#define IS_C_S 0
#define IS_C_U 0
#define IS_C_F 0
#define IS_C(K) IS_C_##K

/* Values: small enough that sums and products of 64 PEs stay exact. */
#define V_DATA(ty, K, p, i) ((ty)(((p) * 31 + (i) * 7 + 1) % 100))
#define V_BIT(ty, K, p, i) ((ty)((1u << (((p) + (i)) % 7)) | (((i) * 5u + (p)) & 0x41u)))
#define V_CMP(ty, K, p, i) ((ty)((((p) * 13 + (i) * 7) % 23) - 11 * !((ty)-1 > 0)))
#define V_SUM(ty, K, p, i) ((ty)(((p) + 2 * (i)) % 5) + (ty)(IS_C(K) ? ((p) % 3) * I : 0))
#define V_PROD(ty, K, p, i) ((ty)(1 + (((p) + (i)) % 4 == 0 && (p) < 8)) + (ty)(IS_C(K) && ((p) + (i)) % 5 == 0 ? I : 0))

#define F_and(e, v) e = e & v
#define F_or(e, v) e = e | v
#define F_xor(e, v) e = e ^ v
#define F_max(e, v) e = (v) > e ? (v) : e
#define F_min(e, v) e = (v) < e ? (v) : e
#define F_sum(e, v) e = e + (v)
#define F_prod(e, v) e = e * (v)
#define VF_and V_BIT
#define VF_or V_BIT
#define VF_xor V_BIT
#define VF_max V_CMP
#define VF_min V_CMP
#define VF_sum V_SUM
#define VF_prod V_PROD

static void sync_team(shmem_team_t t)
{
    int rc = shmem_team_sync(t);
    REQUIRE_EQ(rc, 0, "shmem_team_sync returned %d", rc);
}

/* ---- data movement ----------------------------------------------------- */

#define DEF_MOVE(tn, ty, K)                                                                        \
    static void move_##tn(shmem_team_t t, size_t n)                                                \
    {                                                                                              \
        int me = shmem_team_my_pe(t), np = shmem_team_n_pes(t), rc;                                \
        ty *s = (ty *)sbuf, *d = (ty *)dbuf;                                                       \
        int roots[3] = {0, np - 1, np / 2};                                                        \
        check_stage("broadcast " #tn);                                                             \
        for (int r = 0; r < 3; r++) {                                                              \
            int root = roots[r];                                                                   \
            for (size_t i = 0; i < n; i++) {                                                       \
                s[i] = me == root ? V_DATA(ty, K, root, i) : (ty)77;                               \
                d[i] = (ty)55;                                                                     \
            }                                                                                      \
            sync_team(t);                                                                          \
            rc = shmem_broadcast(t, d, s, n, root);                                                \
            REQUIRE_EQ(rc, 0, "broadcast rc %d", rc);                                              \
            for (size_t i = 0; i < n; i++)                                                         \
                REQUIRE_EQ(d[i], V_DATA(ty, K, root, i),                                           \
                           #tn " broadcast n=%zu root=%d: [%zu] wrong", n, root, i);               \
        }                                                                                          \
        check_stage("fcollect " #tn);                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            s[i] = V_DATA(ty, K, me, i);                                                           \
        for (size_t i = 0; i < n * (size_t)np; i++)                                                \
            d[i] = (ty)55;                                                                         \
        sync_team(t);                                                                              \
        rc = shmem_fcollect(t, d, s, n);                                                           \
        REQUIRE_EQ(rc, 0, "fcollect rc %d", rc);                                                   \
        for (int p = 0; p < np; p++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                REQUIRE_EQ(d[(size_t)p * n + i], V_DATA(ty, K, p, i),                              \
                           #tn " fcollect n=%zu: block %d [%zu] wrong", n, p, i);                  \
        check_stage("collect " #tn);                                                               \
        size_t mine = n + (size_t)me % 3, tot = 0;                                                 \
        for (size_t i = 0; i < mine; i++)                                                          \
            s[i] = V_DATA(ty, K, me, i);                                                           \
        for (int p = 0; p < np; p++)                                                               \
            tot += n + (size_t)p % 3;                                                              \
        for (size_t i = 0; i < tot + 1; i++)                                                       \
            d[i] = (ty)55;                                                                         \
        sync_team(t);                                                                              \
        rc = shmem_collect(t, d, s, mine);                                                         \
        REQUIRE_EQ(rc, 0, "collect rc %d", rc);                                                    \
        size_t at = 0;                                                                             \
        for (int p = 0; p < np; p++)                                                               \
            for (size_t i = 0; i < n + (size_t)p % 3; i++, at++)                                   \
                REQUIRE_EQ(d[at], V_DATA(ty, K, p, i), #tn " collect n=%zu: PE %d [%zu] wrong", n, \
                           p, i);                                                                  \
        REQUIRE_EQ(d[tot], (ty)55, #tn " collect wrote past the end");                             \
        check_stage("alltoall " #tn);                                                              \
        for (int j = 0; j < np; j++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                s[(size_t)j * n + i] = V_DATA(ty, K, me * 7 + j * 3, i);                           \
        for (size_t i = 0; i < n * (size_t)np; i++)                                                \
            d[i] = (ty)55;                                                                         \
        sync_team(t);                                                                              \
        rc = shmem_alltoall(t, d, s, n);                                                           \
        REQUIRE_EQ(rc, 0, "alltoall rc %d", rc);                                                   \
        for (int p = 0; p < np; p++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                REQUIRE_EQ(d[(size_t)p * n + i], V_DATA(ty, K, p * 7 + me * 3, i),                 \
                           #tn " alltoall n=%zu: from PE %d [%zu] wrong", n, p, i);                \
        check_stage("alltoalls " #tn);                                                             \
        for (int j = 0; j < np; j++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                s[((size_t)j * n + i) * 3] = V_DATA(ty, K, me * 5 + j, i);                         \
        for (size_t i = 0; i < n * (size_t)np * 2; i++)                                            \
            d[i] = (ty)55;                                                                         \
        sync_team(t);                                                                              \
        rc = shmem_alltoalls(t, d, s, 2, 3, n);                                                    \
        REQUIRE_EQ(rc, 0, "alltoalls rc %d", rc);                                                  \
        for (int p = 0; p < np; p++)                                                               \
            for (size_t i = 0; i < n; i++) {                                                       \
                REQUIRE_EQ(d[((size_t)p * n + i) * 2], V_DATA(ty, K, p * 5 + me, i),               \
                           #tn " alltoalls n=%zu: from PE %d [%zu] wrong", n, p, i);               \
                REQUIRE_EQ(d[((size_t)p * n + i) * 2 + 1], (ty)55, #tn " alltoalls wrote a gap");  \
            }                                                                                      \
        sync_team(t);                                                                              \
    }
RMA_TYPES(DEF_MOVE)

/* ---- reductions and scans ---------------------------------------------- */

#define DEF_RED(op)                                                                                \
    static void red_##op##_run(shmem_team_t t, size_t n, size_t es,                                \
                               void (*fill)(void *, int, size_t),                                  \
                               int (*call)(shmem_team_t, void *, const void *, size_t),            \
                               int (*check)(const void *, int, size_t), const char *tn)            \
    {                                                                                              \
        int me = shmem_team_my_pe(t);                                                              \
        for (int inplace = 0; inplace < 2; inplace++) {                                            \
            fill(sbuf, me, n);                                                                     \
            memset(dbuf, 0x5a, n *es);                                                             \
            sync_team(t);                                                                          \
            int rc = call(t, inplace ? sbuf : dbuf, sbuf, n);                                      \
            REQUIRE_EQ(rc, 0, "%s " #op " rc %d", tn, rc);                                         \
            size_t bad = (size_t)check(inplace ? sbuf : dbuf, shmem_team_n_pes(t), n);             \
            REQUIRE_EQ(bad, 0, "%s_" #op "_reduce n=%zu inplace=%d: element %zu wrong", tn, n,     \
                       inplace, bad - 1);                                                          \
        }                                                                                          \
        sync_team(t);                                                                              \
    }
DEF_RED(and)
DEF_RED(or)
DEF_RED(xor)
DEF_RED(max)
DEF_RED(min)
DEF_RED(sum)
DEF_RED(prod)

#define DEF_RED_TYPE(op, tn, ty, K)                                                                \
    static void fill_##tn##_##op(void *b, int me, size_t n)                                        \
    {                                                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            ((ty *)b)[i] = VF_##op(ty, K, me, i);                                                  \
    }                                                                                              \
    static int call_##tn##_##op(shmem_team_t t, void *d, const void *s, size_t n)                  \
    {                                                                                              \
        return shmem_##op##_reduce(t, (ty *)d, (const ty *)s, n);                                  \
    }                                                                                              \
    static int check_##tn##_##op(const void *b, int np, size_t n)                                  \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            ty e = VF_##op(ty, K, 0, i);                                                           \
            for (int p = 1; p < np; p++)                                                           \
                F_##op(e, VF_##op(ty, K, p, i));                                                   \
            if (((const ty *)b)[i] != e)                                                           \
                return (int)i + 1;                                                                 \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    static void red_##tn##_##op(shmem_team_t t, size_t n)                                          \
    {                                                                                              \
        check_stage(#tn "_" #op "_reduce");                                                        \
        red_##op##_run(t, n, sizeof(ty), fill_##tn##_##op, call_##tn##_##op, check_##tn##_##op,    \
                       #tn);                                                                       \
    }
#define R_AND(tn, ty, K) DEF_RED_TYPE(and, tn, ty, K)
#define R_OR(tn, ty, K) DEF_RED_TYPE(or, tn, ty, K)
#define R_XOR(tn, ty, K) DEF_RED_TYPE(xor, tn, ty, K)
#define R_MAX(tn, ty, K) DEF_RED_TYPE(max, tn, ty, K)
#define R_MIN(tn, ty, K) DEF_RED_TYPE(min, tn, ty, K)
#define R_SUM(tn, ty, K) DEF_RED_TYPE(sum, tn, ty, K)
#define R_PROD(tn, ty, K) DEF_RED_TYPE(prod, tn, ty, K)
REDUCE_AND_TYPES(R_AND)
REDUCE_OR_TYPES(R_OR)
REDUCE_XOR_TYPES(R_XOR)
REDUCE_MAX_TYPES(R_MAX)
REDUCE_MIN_TYPES(R_MIN)
REDUCE_SUM_TYPES(R_SUM)
REDUCE_PROD_TYPES(R_PROD)

#define DEF_SCAN(tn, ty, K)                                                                        \
    static void scan_##tn(shmem_team_t t, size_t n)                                                \
    {                                                                                              \
        int me = shmem_team_my_pe(t);                                                              \
        ty *s = (ty *)sbuf, *d = (ty *)dbuf;                                                       \
        check_stage("scan " #tn);                                                                  \
        for (int ex = 0; ex < 2; ex++)                                                             \
            for (int inplace = 0; inplace < 2; inplace++) {                                        \
                for (size_t i = 0; i < n; i++) {                                                   \
                    s[i] = V_SUM(ty, K, me, i);                                                    \
                    d[i] = (ty)55;                                                                 \
                }                                                                                  \
                sync_team(t);                                                                      \
                ty *out = inplace ? s : d;                                                         \
                int rc = ex ? shmem_sum_exscan(t, out, s, n) : shmem_sum_inscan(t, out, s, n);     \
                REQUIRE_EQ(rc, 0, #tn " scan rc %d", rc);                                          \
                for (size_t i = 0; i < n; i++) {                                                   \
                    ty e = 0;                                                                      \
                    for (int p = 0; p < me + !ex; p++)                                             \
                        e = e + V_SUM(ty, K, p, i);                                                \
                    REQUIRE_EQ(out[i], e, #tn " sum_%sscan n=%zu inplace=%d: [%zu] wrong",         \
                               ex ? "ex" : "in", n, inplace, i);                                   \
                }                                                                                  \
                sync_team(t);                                                                      \
            }                                                                                      \
    }
SCAN_TYPES(DEF_SCAN)

/* ---- one suite on one team --------------------------------------------- */

static void suite(shmem_team_t t, int all_types)
{
    static const size_t small[] = {1, 7, 300};
    for (size_t k = 0; k < sizeof small / sizeof *small; k++) {
        size_t n = small[k];
        check_stage("team_sync");
        for (int i = 0; i < 50; i++)
            sync_team(t);
        if (all_types) {
#define M(tn, ty, K) move_##tn(t, n);
            RMA_TYPES(M)
#define CALL_AND(tn, ty, K) red_##tn##_and(t, n);
#define CALL_OR(tn, ty, K) red_##tn##_or(t, n);
#define CALL_XOR(tn, ty, K) red_##tn##_xor(t, n);
#define CALL_MAX(tn, ty, K) red_##tn##_max(t, n);
#define CALL_MIN(tn, ty, K) red_##tn##_min(t, n);
#define CALL_SUM(tn, ty, K) red_##tn##_sum(t, n);
#define CALL_PROD(tn, ty, K) red_##tn##_prod(t, n);
            REDUCE_AND_TYPES(CALL_AND)
            REDUCE_OR_TYPES(CALL_OR)
            REDUCE_XOR_TYPES(CALL_XOR)
            REDUCE_MAX_TYPES(CALL_MAX)
            REDUCE_MIN_TYPES(CALL_MIN)
            REDUCE_SUM_TYPES(CALL_SUM)
            REDUCE_PROD_TYPES(CALL_PROD)
#define S(tn, ty, K) scan_##tn(t, n);
            SCAN_TYPES(S)
        } else {
            move_int(t, n);
            move_longdouble(t, n);
            red_int_sum(t, n);
            red_double_max(t, n);
            red_uint64_xor(t, n);
            red_complexd_prod(t, n);
            scan_long(t, n);
        }
    }
    /* Large: chunked, segmented and pipelined paths (COLL_LARGE scales
     * them down for slow transports). */
    size_t L = large;
    move_int(t, L / 5);
    move_char(t, L * 7 / 10 + 1);
    red_int_sum(t, L);
    red_double_sum(t, L * 3 / 10);
    red_longdouble_max(t, L / 20);
    red_complexd_sum(t, L * 3 / 100);
    scan_int(t, L / 20);
}

/* What the PEs outside a team do meanwhile: atomics on each other. */
static void other_work(int *outsiders, int nout)
{
    int me = shmem_my_pe(), idx = 0;
    for (int i = 0; i < nout; i++)
        if (outsiders[i] == me)
            idx = i;
    for (int k = 0; k < 200; k++)
        shmem_long_atomic_inc(other, outsiders[(idx + 1 + k) % nout]);
}

static int member[MAXPE]; /* symmetric: member[p] = PE p is in the team */

static void on_team(shmem_team_t t, int all_types)
{
    int np = shmem_n_pes(), nout = 0, in = t != SHMEM_TEAM_INVALID;
    int out[MAXPE];
    for (int p = 0; p < np; p++)
        shmem_int_p(&member[shmem_my_pe()], in, p);
    shmem_barrier_all();
    for (int p = 0; p < np; p++)
        if (!member[p])
            out[nout++] = p;
    if (t != SHMEM_TEAM_INVALID)
        suite(t, all_types);
    else
        other_work(out, nout);
    shmem_barrier_all();
    if (nout) {
        /* The outsiders' work landed too. */
        long expect = in ? 0 : 200;
        REQUIRE_EQ(*other, expect, "outsider work: counter %ld, expected %ld", *other, expect);
        *other = 0;
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(600);
    int np = shmem_n_pes(), me = shmem_my_pe();
    REQUIRE_LE(np, MAXPE, "at most %d PEs", MAXPE);
    full = getenv("COLL_FULL") ? atoi(getenv("COLL_FULL")) : 1;
    if (getenv("COLL_LARGE"))
        large = strtoul(getenv("COLL_LARGE"), NULL, 0);
    REQUIRE_LE(large, MAXN, "COLL_LARGE at most %d", MAXN);
    bufsize = (size_t)MAXN * 16 * (size_t)np * 3 + 4096;
    if (bufsize < (size_t)20000 * 16 * (size_t)np * 3)
        bufsize = (size_t)20000 * 16 * (size_t)np * 3;
    sbuf = shmem_malloc(bufsize);
    dbuf = shmem_malloc(bufsize);
    other = shmem_calloc(1, sizeof(long));
    REQUIRE(sbuf && dbuf && other, "shmem_malloc failed");

    check_stage("world");
    on_team(SHMEM_TEAM_WORLD, full);

    /* Odd members, parent order. */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, np > 1, 2, (np - (np > 1) + 1) / 2, NULL, 0, &t);
    REQUIRE_EQ(rc, 0, "split_strided(1, 2) rc %d", rc);
    check_stage("strided +2");
    on_team(t, full >= 2);
    shmem_team_destroy(t);

    /* Reversed world. */
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, np - 1, -1, np, NULL, 0, &t);
    REQUIRE_EQ(rc, 0, "split_strided(n-1, -1) rc %d", rc);
    REQUIRE_EQ(shmem_team_my_pe(t), np - 1 - me, "reversed team numbering");
    check_stage("strided -1");
    on_team(t, 0);
    shmem_team_destroy(t);

    /* Every other PE from the top, as a sub-team of a sub-team. */
    shmem_team_t half = SHMEM_TEAM_INVALID;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, np, NULL, 0, &half);
    REQUIRE_EQ(rc, 0, "split_strided(0, 1, n) rc %d", rc);
    int hn = shmem_team_n_pes(half);
    rc = shmem_team_split_strided(half, hn - 1, -2, (hn + 1) / 2, NULL, 0, &t);
    REQUIRE_EQ(rc, 0, "split_strided(n-1, -2) rc %d", rc);
    check_stage("strided -2");
    on_team(t, 0);
    shmem_team_destroy(t);
    shmem_team_destroy(half);

    /* 2-D: rows of 2 (x) and columns (y). */
    shmem_team_t x, y;
    rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y);
    REQUIRE_EQ(rc, 0, "split_2d rc %d", rc);
    check_stage("2d x");
    on_team(x, 0);
    check_stage("2d y");
    on_team(y, 0);
    shmem_team_destroy(x);
    shmem_team_destroy(y);

    check_stage("shared");
    on_team(SHMEM_TEAM_SHARED, 0);

    shmem_free(other);
    shmem_free(dbuf);
    shmem_free(sbuf);
    if (me == 0)
        printf("coll_basic: %d PEs passed\n", np);
    shmem_finalize();
    return 0;
}
