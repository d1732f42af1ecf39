/*
 * The deprecated active-set collectives: shmem_barrier and shmem_sync
 * (back to back on one pSync, and alternating pSync arrays), broadcast32/64
 * (the root's dest left alone; in place as OSU calls it), collect32/64 and
 * fcollect32/64, alltoall(s)32/64 and every shmem_TYPENAME_OP_to_all, on
 * the whole world and on strided active sets, with pSync holding
 * SHMEM_SYNC_VALUE again after every call.
 */
#include <complex.h>

#include "../common/check.h"
#include "coll_types.h"

#define N 600
#define MAXPE 64

static long pSync[SHMEM_REDUCE_SYNC_SIZE], pSync2[SHMEM_REDUCE_SYNC_SIZE], pSync3[SHMEM_SYNC_SIZE];
static long double pWrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static char src[N * MAXPE * 16], dst[N * MAXPE * 16];

static void psync_ok(const long *ps, const char *what)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        REQUIRE_EQ(ps[i], SHMEM_SYNC_VALUE, "%s: pSync[%d] = %ld after the call", what, i, ps[i]);
}

#define IS_C_C 1
#define IS_C_S 0
#define IS_C_U 0
#define IS_C_F 0
#define IS_C(K) IS_C_##K
#define V_BIT(ty, K, p, i) ((ty)((1u << (((p) + (i)) % 7)) | (((i) * 5u + (p)) & 0x41u)))
#define V_CMP(ty, K, p, i) ((ty)((((p) * 13 + (i) * 7) % 23) - 11))
#define V_SUM(ty, K, p, i) ((ty)(((p) + 2 * (i)) % 5) + (ty)(IS_C(K) ? ((p) % 3) * I : 0))
#define V_PROD(ty, K, p, i) ((ty)(1 + (((p) + (i)) % 4 == 0 && (p) < 8)))
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

/* Active set: (start, logstride, size); idx = this PE's index or -1. */
struct aset {
    int start, log, size;
};
static int as_idx(struct aset a)
{
    int d = shmem_my_pe() - a.start;
    if (d < 0 || d % (1 << a.log) || d >> a.log >= a.size)
        return -1;
    return d >> a.log;
}

#define DEF_TOALL(op, tn, ty, K)                                                                   \
    static void toall_##tn##_##op(struct aset a, int n, int inplace)                               \
    {                                                                                              \
        int me = as_idx(a);                                                                        \
        ty *s = (ty *)src, *d = inplace ? (ty *)src : (ty *)dst;                                   \
        check_stage(#tn "_" #op "_to_all");                                                        \
        for (int i = 0; i < n; i++)                                                                \
            s[i] = VF_##op(ty, K, me, i);                                                          \
        shmem_barrier(a.start, a.log, a.size, pSync2);                                             \
        shmem_##tn##_##op##_to_all(d, s, n, a.start, a.log, a.size, (ty *)pWrk, pSync);            \
        for (int i = 0; i < n; i++) {                                                              \
            ty e = VF_##op(ty, K, 0, i);                                                           \
            for (int p = 1; p < a.size; p++)                                                       \
                F_##op(e, VF_##op(ty, K, p, i));                                                   \
            REQUIRE_EQ(d[i], e, #tn "_" #op "_to_all n=%d inplace=%d set(%d,%d,%d): [%d] wrong",   \
                       n, inplace, a.start, a.log, a.size, i);                                     \
        }                                                                                          \
        shmem_barrier(a.start, a.log, a.size, pSync2);                                             \
        psync_ok(pSync, #tn "_" #op "_to_all");                                                    \
    }
#define T_AND(tn, ty, K) DEF_TOALL(and, tn, ty, K)
#define T_OR(tn, ty, K) DEF_TOALL(or, tn, ty, K)
#define T_XOR(tn, ty, K) DEF_TOALL(xor, tn, ty, K)
#define T_MAX(tn, ty, K) DEF_TOALL(max, tn, ty, K)
#define T_MIN(tn, ty, K) DEF_TOALL(min, tn, ty, K)
#define T_SUM(tn, ty, K) DEF_TOALL(sum, tn, ty, K)
#define T_PROD(tn, ty, K) DEF_TOALL(prod, tn, ty, K)
TO_ALL_AND_TYPES(T_AND)
TO_ALL_OR_TYPES(T_OR)
TO_ALL_XOR_TYPES(T_XOR)
TO_ALL_MAX_TYPES(T_MAX)
TO_ALL_MIN_TYPES(T_MIN)
TO_ALL_SUM_TYPES(T_SUM)
TO_ALL_PROD_TYPES(T_PROD)

static void run_set(struct aset a)
{
    int me = as_idx(a);
    if (me < 0)
        return;
    int S = a.start, L = a.log, P = a.size;

    check_stage("barrier/sync back to back");
    for (int i = 0; i < 300; i++) {
        shmem_barrier(S, L, P, pSync);
        shmem_sync(S, L, P, pSync);
    }
    /* A pSync may be checked once every PE is done with it, and until any
     * PE uses it again: pSync3 fences that window. */
    shmem_sync(S, L, P, pSync3);
    psync_ok(pSync, "barrier");
    shmem_sync(S, L, P, pSync3);
    /* Alternating arrays A, B, A. */
    for (int i = 0; i < 100; i++) {
        shmem_sync(S, L, P, (i & 1) ? pSync2 : pSync);
    }
    shmem_sync(S, L, P, pSync3);
    psync_ok(pSync, "sync");
    psync_ok(pSync2, "sync");
    shmem_sync(S, L, P, pSync3);

    for (int bits = 32; bits <= 64; bits += 32) {
        size_t es = (size_t)bits / 8;
        for (int n = 1; n <= N; n += N - 1) {
            check_stage("broadcast");
            for (int root = 0; root < P; root += (P > 2 ? P - 1 : 1)) {
                memset(src, me + 1, (size_t)n * es);
                memset(dst, 0x77, (size_t)n * es);
                shmem_barrier(S, L, P, pSync2);
                if (bits == 32)
                    shmem_broadcast32(dst, src, (size_t)n, root, S, L, P, pSync);
                else
                    shmem_broadcast64(dst, src, (size_t)n, root, S, L, P, pSync);
                for (size_t i = 0; i < (size_t)n * es; i++)
                    REQUIRE_EQ(dst[i], (me == root ? 0x77 : root + 1),
                               "broadcast%d n=%d root %d: byte %zu = %d", bits, n, root, i, dst[i]);
                psync_ok(pSync, "broadcast");
                /* In place, as OSU calls it. */
                shmem_barrier(S, L, P, pSync2);
                if (bits == 32)
                    shmem_broadcast32(src, src, (size_t)n, root, S, L, P, pSync);
                else
                    shmem_broadcast64(src, src, (size_t)n, root, S, L, P, pSync);
                for (size_t i = 0; i < (size_t)n * es; i++)
                    REQUIRE_EQ(src[i], root + 1, "in-place broadcast%d: byte %zu", bits, i);
            }
            check_stage("fcollect/collect");
            for (int fixed = 0; fixed < 2; fixed++) {
                size_t mine = fixed ? (size_t)n : (size_t)n + (size_t)me % 3;
                for (size_t i = 0; i < mine * es; i++)
                    src[i] = (char)(me * 5 + i % 7);
                memset(dst, 0x77, (size_t)(n + 3) * es * (size_t)P);
                shmem_barrier(S, L, P, pSync2);
                void (*f)(void *, const void *, size_t, int, int, int, long *) =
                    fixed ? (bits == 32 ? shmem_fcollect32 : shmem_fcollect64)
                          : (bits == 32 ? shmem_collect32 : shmem_collect64);
                f(dst, src, mine, S, L, P, pSync);
                size_t at = 0;
                for (int p = 0; p < P; p++) {
                    size_t cnt = fixed ? (size_t)n : (size_t)n + (size_t)p % 3;
                    for (size_t i = 0; i < cnt * es; i++, at++)
                        REQUIRE_EQ(dst[at], (char)(p * 5 + i % 7),
                                   "%scollect%d n=%d: PE %d byte %zu", fixed ? "f" : "", bits, n, p,
                                   i);
                }
                REQUIRE_EQ(dst[at], 0x77, "collect wrote past the end");
                psync_ok(pSync, "collect");
            }
            check_stage("alltoall(s)");
            for (int strided = 0; strided < 2; strided++) {
                ptrdiff_t ds = strided ? 2 : 1, ss = strided ? 3 : 1;
                for (int j = 0; j < P; j++)
                    for (int i = 0; i < n; i++)
                        memset(src + (((size_t)j * (size_t)n + (size_t)i) * (size_t)ss) * es,
                               (me * 7 + j * 3 + i) % 100, es);
                memset(dst, 0x77, (size_t)n * (size_t)P * es * (size_t)ds);
                shmem_barrier(S, L, P, pSync2);
                if (!strided)
                    (bits == 32 ? shmem_alltoall32 : shmem_alltoall64)(dst, src, (size_t)n, S, L, P, pSync);
                else
                    (bits == 32 ? shmem_alltoalls32 : shmem_alltoalls64)(dst, src, ds, ss, (size_t)n, S, L, P, pSync);
                for (int p = 0; p < P; p++)
                    for (int i = 0; i < n; i++)
                        for (size_t b = 0; b < es; b++)
                            REQUIRE_EQ(
                                dst[(((size_t)p * (size_t)n + (size_t)i) * (size_t)ds) * es + b],
                                (p * 7 + me * 3 + i) % 100, "alltoall%s%d n=%d: from %d [%d]",
                                strided ? "s" : "", bits, n, p, i);
                psync_ok(pSync, "alltoall");
            }
        }
    }
    for (int n = 1; n <= N; n += N - 1)
        for (int inplace = 0; inplace < 2; inplace++) {
#define C_AND(tn, ty, K) toall_##tn##_and(a, n, inplace);
#define C_OR(tn, ty, K) toall_##tn##_or(a, n, inplace);
#define C_XOR(tn, ty, K) toall_##tn##_xor(a, n, inplace);
#define C_MAX(tn, ty, K) toall_##tn##_max(a, n, inplace);
#define C_MIN(tn, ty, K) toall_##tn##_min(a, n, inplace);
#define C_SUM(tn, ty, K) toall_##tn##_sum(a, n, inplace);
#define C_PROD(tn, ty, K) toall_##tn##_prod(a, n, inplace);
            TO_ALL_AND_TYPES(C_AND)
            TO_ALL_OR_TYPES(C_OR)
            TO_ALL_XOR_TYPES(C_XOR)
            TO_ALL_MAX_TYPES(C_MAX)
            TO_ALL_MIN_TYPES(C_MIN)
            TO_ALL_SUM_TYPES(C_SUM)
            TO_ALL_PROD_TYPES(C_PROD)
        }
    /* OSU's pattern: min into pSync, max into pSync2, sum into pSync again. */
    check_stage("alternating pSync");
    shmem_sync(S, L, P, pSync3);
    long *ls = (long *)src, *ld = (long *)dst;
    for (int i = 0; i < 50; i++) {
        ls[0] = me + i;
        shmem_long_min_to_all(ld, ls, 1, S, L, P, (long *)pWrk, pSync);
        REQUIRE_EQ(ld[0], i, "min");
        shmem_long_max_to_all(ld + 1, ls, 1, S, L, P, (long *)pWrk, pSync2);
        REQUIRE_EQ(ld[1], P - 1 + i, "max");
        shmem_long_sum_to_all(ld + 2, ls, 1, S, L, P, (long *)pWrk, pSync);
        REQUIRE_EQ(ld[2], (long)P * i + (long)P * (P - 1) / 2, "sum");
    }
    shmem_sync(S, L, P, pSync3);
    psync_ok(pSync, "alternating");
    psync_ok(pSync2, "alternating");
    shmem_sync(S, L, P, pSync3);
}

int main(void)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = pSync2[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        pSync3[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    check_watchdog(600);
    int np = shmem_n_pes(), me = shmem_my_pe();
    REQUIRE_LE(np, MAXPE, "at most %d PEs", MAXPE);
    struct aset sets[] = {
        {0, 0, np},                    /* the world */
        {np > 1, 0, np - (np > 1)},    /* all but PE 0 */
        {0, 1, (np + 1) / 2},          /* even PEs */
        {np > 2 ? 1 : 0, 1, np / 2 > 0 ? np / 2 : 1}, /* odd PEs (or PE 0) */
    };
    for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
        run_set(sets[s]);
        shmem_barrier_all();
    }
    /* Two disjoint sets at once, each with its own pSync, then the world. */
    if (np >= 2) {
        struct aset evens = {0, 1, (np + 1) / 2}, odds = {1, 1, np / 2};
        for (int i = 0; i < 200; i++) {
            if (me % 2 == 0)
                shmem_barrier(evens.start, evens.log, evens.size, pSync);
            else
                shmem_barrier(odds.start, odds.log, odds.size, pSync);
        }
        shmem_barrier_all();
    }
    psync_ok(pSync, "end");
    if (me == 0)
        printf("coll_activeset: %d PEs, %ld checks passed\n", np, check_count());
    shmem_finalize();
    return 0;
}
