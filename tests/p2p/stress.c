/*
 * stress.c -- a randomized mix of RMA, AMO and put-with-signal traffic
 * from every PE to every PE, with fences and quiets at random points.
 *
 * Each PE draws its operation stream from a fixed seed (base seed + PE;
 * the base seed is the first argument, default 20240601) and every PE can
 * recompute every other PE's stream, so at the end each PE checks every
 * word it holds against what the operations must have produced.  The
 * operations are chosen so that the result does not depend on timing:
 *
 *   - puts (put, put_nbi, p) go to the (source, target) region that only
 *     the source writes; a put that overlaps an earlier one not yet
 *     fenced is preceded by a fence, so the last writer in program order
 *     wins; gets (get, get_nbi, g) of the source's own regions are checked
 *     against its model (after a quiet when they overlap unquieted puts);
 *   - add/fetch_add/inc/fetch_inc (long, uint32) on shared counters sum
 *     up; fetched values must be at least the source's own earlier adds;
 *   - and/or/xor (uint64 with 8-bit lanes, uint32 with 4-bit lanes, one
 *     lane per source) change only the source's lane; a different kind of
 *     operation on the same word is fenced first; fetched lanes (blocking
 *     and nbi) must equal the model;
 *   - put_signal (blocking/nbi, typed/mem) into per-source slots with
 *     SHMEM_SIGNAL_ADD 1: the final count is known, and the receiver waits
 *     on it with shmem_signal_wait_until before checking the slots.
 */
#include "p2p_test.h"
#include <shmemx.h>

#define MAXPE 8
#define RW 256   /* longs per (source, target) region */
#define NCNT 16  /* shared counters */
#define NB 8     /* bitwise words */
#define NSLOT 8  /* put_signal slots per (source, target) */
#define DW 16    /* longs per slot */
#define NOPS_SHM 20000 /* operations per PE on shm */
#define NOPS_NET 4000   /* ... on a network transport */
static int NOPS = NOPS_SHM;
#define POOL 8192   /* longs of nbi source pool */
#define GPOOL 4096  /* longs of get_nbi destination pool */
#define MAXPEND 128 /* pending nbi fetches */

static uint64_t base_seed = 20240601;
static int me, npes;

/* symmetric */
static long *R;         /* [MAXPE][RW]: region of each source */
static long *C;         /* [NCNT] */
static uint32_t *C32;   /* [NCNT] */
static uint64_t *B64;   /* [NB] */
static uint32_t *B32;   /* [NB] */
static uint64_t *S;     /* [MAXPE] signal of each source */
static long *D;         /* [MAXPE][NSLOT][DW] */

typedef struct {
    uint64_t w[RW / 64];
} bits_t;

static int overlaps(const bits_t *b, int off, int len)
{
    for (int i = off; i < off + len; i++)
        if (b->w[i / 64] >> (i % 64) & 1)
            return 1;
    return 0;
}
static void mark(bits_t *b, int off, int len)
{
    for (int i = off; i < off + len; i++)
        b->w[i / 64] |= 1ull << (i % 64);
}

/* What one source's stream does to each target, and the bookkeeping that
 * decides its fences and quiets (the same whether executed or only
 * simulated). */
struct model {
    long R[MAXPE][RW];
    long cadd[MAXPE][NCNT];
    uint32_t c32[MAXPE][NCNT];
    uint64_t b64[MAXPE][NB]; /* this source's lane only */
    uint32_t b32[MAXPE][NB];
    uint64_t sigcnt[MAXPE];
    long D[MAXPE][NSLOT][DW];
    /* bookkeeping */
    bits_t pend_put[MAXPE], unq_put[MAXPE], pend_get[MAXPE];
    int kind64[MAXPE][NB], kind32[MAXPE][NB]; /* bitwise kind since fence */
    int pend_amo[MAXPE];                      /* non-fetching AMO since fence */
    unsigned pend_d[MAXPE];                   /* slots written since fence */
    int pool, gpool, npend;
    long nfence, nquiet;
};

struct pget {
    long *buf;
    int t, off, len;
};
struct pfetch {
    uint64_t got;
    uint64_t want;  /* lane expected, or lower bound for counters */
    uint64_t mask;  /* lane mask; 0 for a counter lower bound */
    int width;
    const char *what;
    int opi;
};

static long pool[POOL], gpool[GPOOL];
static struct pget pgets[GPOOL];
static int npgets;
static struct pfetch pfetch[MAXPEND];
static struct model *mine;

static long val(int src, int opi, int w)
{
    return (long)t_mix(((uint64_t)src << 44) ^ ((uint64_t)opi << 12) ^ (uint64_t)w);
}

static uint64_t lane64(int src) { return 0xffull << (8 * src); }
static uint32_t lane32(int src) { return 0xfu << (4 * src); }

/* Every failure names the seed, which replays the run: the stage carries it. */
static char seed_stage_name[160];
static void seed_stage(const char *name)
{
    snprintf(seed_stage_name, sizeof seed_stage_name,
             "%s, base seed %llu: run with that seed as argument to repeat", name,
             (unsigned long long)base_seed);
    check_stage(seed_stage_name);
}

static void do_fence(struct model *m, int exec)
{
    if (exec)
        shmem_fence();
    for (int t = 0; t < npes; t++) {
        memset(&m->pend_put[t], 0, sizeof(bits_t));
        memset(m->kind64[t], 0, sizeof m->kind64[t]);
        memset(m->kind32[t], 0, sizeof m->kind32[t]);
        m->pend_amo[t] = 0;
        m->pend_d[t] = 0;
    }
    m->nfence++;
}

static void do_quiet(struct model *m, int exec)
{
    if (exec) {
        shmem_quiet();
        for (int k = 0; k < npgets; k++) {
            struct pget *g = &pgets[k];
            for (int i = 0; i < g->len; i++)
                REQUIRE_EQ(g->buf[i], m->R[g->t][g->off + i],
                           "get_nbi of own region on PE %d word %d: %ld, expected %ld", g->t,
                           g->off + i, g->buf[i], m->R[g->t][g->off + i]);
        }
        for (int k = 0; k < m->npend; k++) {
            struct pfetch *f = &pfetch[k];
            if (f->mask)
                REQUIRE_EQ((f->got & f->mask), f->want,
                           "op %d %s (nbi, %d-bit): fetched lane %#llx, expected %#llx", f->opi,
                           f->what, f->width, (unsigned long long)(f->got & f->mask),
                           (unsigned long long)f->want);
            else
                REQUIRE_GE(
                    f->got, f->want,
                    "op %d %s (nbi): fetched %llu, less than this PE's own earlier adds %llu",
                    f->opi, f->what, (unsigned long long)f->got, (unsigned long long)f->want);
        }
    }
    npgets = 0;
    for (int t = 0; t < npes; t++) {
        memset(&m->unq_put[t], 0, sizeof(bits_t));
        memset(&m->pend_get[t], 0, sizeof(bits_t));
    }
    m->pool = m->gpool = m->npend = 0;
    m->nquiet++;
    do_fence(m, 0); /* a quiet orders too */
}

/* Runs (exec) or simulates source src's stream into m. */
static void stream(int src, int exec, struct model *m)
{
    memset(m, 0, sizeof *m);
    uint64_t st = base_seed * 1000003u + (uint64_t)src;
    if (exec)
        npgets = 0;
    for (int opi = 0; opi < NOPS; opi++) {
        uint64_t r = t_rand(&st);
        int op = (int)(r % 100);
        int t = (int)((r >> 8) % (uint64_t)npes);
        uint64_t r2 = t_rand(&st);
        if (op < 22) { /* ---- put, put_nbi, p */
            int kind = (int)(r2 % 3);
            int len = kind == 2 ? 1 : 1 + (int)((r2 >> 8) % 64);
            int off = (int)((r2 >> 20) % (uint64_t)(RW - len + 1));
            if (overlaps(&m->pend_get[t], off, len))
                do_quiet(m, exec);
            if (overlaps(&m->pend_put[t], off, len))
                do_fence(m, exec);
            if (kind == 1 && m->pool + len > POOL)
                do_quiet(m, exec);
            long *dst = &R[(size_t)src * RW + (size_t)off];
            long *srcbuf = kind == 1 ? &pool[m->pool] : NULL;
            long tmp[64];
            if (!srcbuf)
                srcbuf = tmp;
            for (int i = 0; i < len; i++)
                m->R[t][off + i] = srcbuf[i] = val(src, opi, i);
            if (exec) {
                if (kind == 0)
                    shmem_long_put(dst, srcbuf, (size_t)len, t);
                else if (kind == 1)
                    shmem_long_put_nbi(dst, srcbuf, (size_t)len, t);
                else
                    shmem_long_p(dst, srcbuf[0], t);
            }
            if (kind == 1)
                m->pool += len;
            mark(&m->pend_put[t], off, len);
            mark(&m->unq_put[t], off, len);
        } else if (op < 34) { /* ---- get, get_nbi, g */
            int kind = (int)(r2 % 3);
            int len = kind == 2 ? 1 : 1 + (int)((r2 >> 8) % 64);
            int off = (int)((r2 >> 20) % (uint64_t)(RW - len + 1));
            if (overlaps(&m->unq_put[t], off, len))
                do_quiet(m, exec);
            if (kind == 1 && (m->gpool + len > GPOOL))
                do_quiet(m, exec);
            const long *from = &R[(size_t)src * RW + (size_t)off];
            if (kind == 1) {
                if (exec) {
                    long *buf = &gpool[m->gpool];
                    shmem_long_get_nbi(buf, from, (size_t)len, t);
                    pgets[npgets++] = (struct pget){buf, t, off, len};
                }
                m->gpool += len;
                mark(&m->pend_get[t], off, len);
            } else if (exec) {
                long buf[64];
                if (kind == 0)
                    shmem_long_get(buf, from, (size_t)len, t);
                else
                    buf[0] = shmem_long_g(from, t);
                for (int i = 0; i < len; i++)
                    REQUIRE_EQ(buf[i], m->R[t][off + i],
                               "op %d: %s of own region on PE %d word %d: %ld, expected %ld", opi,
                               kind ? "g" : "get", t, off + i, buf[i], m->R[t][off + i]);
            }
        } else if (op < 56) { /* ---- counters */
            int k = (int)(r2 % NCNT), kind = (int)((r2 >> 8) % 7);
            long v = 1 + (long)((r2 >> 16) % 1000);
            int fetching = kind == 1 || kind == 3 || kind == 5 || kind == 6;
            if (fetching && m->pend_amo[t])
                do_fence(m, exec);
            if (fetching && kind == 6 && m->npend >= MAXPEND)
                do_quiet(m, exec);
            long before = m->cadd[t][k];
            uint32_t before32 = m->c32[t][k];
            if (kind <= 3 || kind == 6) {
                long add = kind >= 2 && kind <= 3 ? 1 : v;
                m->cadd[t][k] += add;
                if (exec) {
                    long f = 0;
                    switch (kind) {
                    case 0: shmem_long_atomic_add(&C[k], add, t); break;
                    case 1: f = shmem_long_atomic_fetch_add(&C[k], add, t); break;
                    case 2: shmem_long_atomic_inc(&C[k], t); break;
                    case 3: f = shmem_long_atomic_fetch_inc(&C[k], t); break;
                    case 6: {
                        struct pfetch *pf = &pfetch[m->npend];
                        *pf = (struct pfetch){0, (uint64_t)before, 0, 64, "long fetch_add_nbi", opi};
                        shmem_long_atomic_fetch_add_nbi((long *)&pf->got, &C[k], add, t);
                    } break;
                    }
                    if (kind == 1 || kind == 3)
                        REQUIRE_GE(
                            f, before,
                            "op %d: fetch_add/inc on counter %d of PE %d returned %ld, less than "
                            "this PE's own earlier adds %ld",
                            opi, k, t, f, before);
                }
                if (kind == 6)
                    m->npend++;
            } else {
                uint32_t add = (uint32_t)v;
                m->c32[t][k] += add;
                if (exec) {
                    if (kind == 4)
                        shmem_uint32_atomic_add(&C32[k], add, t);
                    else {
                        uint32_t f = shmem_uint32_atomic_fetch_add(&C32[k], add, t);
                        REQUIRE(f >= before32 || before32 > 0x7fffffffu,
                                "op %d: uint32 fetch_add on counter %d of PE %d returned %u, less "
                                "than own earlier adds %u",
                                opi, k, t, f, before32);
                    }
                }
            }
            if (!fetching || kind == 6) /* an nbi fetch is still in flight */
                m->pend_amo[t] = 1;
        } else if (op < 76) { /* ---- bitwise on this source's lane */
            int k = (int)(r2 % NB), kind = 1 + (int)((r2 >> 8) % 3); /* 1 and, 2 or, 3 xor */
            int fetch = (int)((r2 >> 12) % 3);                          /* 0 no, 1 yes, 2 nbi */
            int wide = (int)((r2 >> 16) & 1);
            uint64_t rv = t_rand(&st);
            int *pk = wide ? &m->kind64[t][k] : &m->kind32[t][k];
            if ((*pk && *pk != kind) || (fetch && *pk))
                do_fence(m, exec);
            if (fetch == 2 && m->npend >= MAXPEND)
                do_quiet(m, exec);
            static const char *names[] = {"", "and", "or", "xor"};
            if (wide) {
                uint64_t lane = lane64(src), bitsv = rv & lane, before = m->b64[t][k];
                uint64_t operand = kind == 1 ? ~bitsv : bitsv;
                uint64_t after = kind == 1 ? before & ~bitsv : kind == 2 ? before | bitsv
                                                                         : before ^ bitsv;
                m->b64[t][k] = after;
                if (exec) {
                    uint64_t *d = &B64[k];
                    uint64_t f = 0;
                    if (fetch == 2) {
                        struct pfetch *pf = &pfetch[m->npend];
                        *pf = (struct pfetch){0, before, lane, 64, names[kind], opi};
                        if (kind == 1)
                            shmem_uint64_atomic_fetch_and_nbi(&pf->got, d, operand, t);
                        else if (kind == 2)
                            shmem_uint64_atomic_fetch_or_nbi(&pf->got, d, operand, t);
                        else
                            shmem_uint64_atomic_fetch_xor_nbi(&pf->got, d, operand, t);
                    } else if (fetch == 1) {
                        f = kind == 1   ? shmem_uint64_atomic_fetch_and(d, operand, t)
                            : kind == 2 ? shmem_uint64_atomic_fetch_or(d, operand, t)
                                        : shmem_uint64_atomic_fetch_xor(d, operand, t);
                        REQUIRE_EQ(
                            (f & lane), before,
                            "op %d: uint64 fetch_%s on word %d of PE %d: lane %#llx, expected "
                            "%#llx",
                            opi, names[kind], k, t, (unsigned long long)(f & lane),
                            (unsigned long long)before);
                    } else if (kind == 1)
                        shmem_uint64_atomic_and(d, operand, t);
                    else if (kind == 2)
                        shmem_uint64_atomic_or(d, operand, t);
                    else
                        shmem_uint64_atomic_xor(d, operand, t);
                }
            } else {
                uint32_t lane = lane32(src), bitsv = (uint32_t)rv & lane, before = m->b32[t][k];
                uint32_t operand = kind == 1 ? ~bitsv : bitsv;
                uint32_t after = kind == 1 ? before & ~bitsv : kind == 2 ? before | bitsv
                                                                         : before ^ bitsv;
                m->b32[t][k] = after;
                if (exec) {
                    uint32_t *d = &B32[k];
                    if (fetch == 2) {
                        struct pfetch *pf = &pfetch[m->npend];
                        *pf = (struct pfetch){0, before, lane, 32, names[kind], opi};
                        /* the fetch lands in the low half of got (little-endian) */
                        uint32_t *fp = (uint32_t *)&pf->got;
                        if (kind == 1)
                            shmem_uint32_atomic_fetch_and_nbi(fp, d, operand, t);
                        else if (kind == 2)
                            shmem_uint32_atomic_fetch_or_nbi(fp, d, operand, t);
                        else
                            shmem_uint32_atomic_fetch_xor_nbi(fp, d, operand, t);
                    } else if (fetch == 1) {
                        uint32_t f = kind == 1   ? shmem_uint32_atomic_fetch_and(d, operand, t)
                                     : kind == 2 ? shmem_uint32_atomic_fetch_or(d, operand, t)
                                                 : shmem_uint32_atomic_fetch_xor(d, operand, t);
                        REQUIRE_EQ(
                            (f & lane), before,
                            "op %d: uint32 fetch_%s on word %d of PE %d: lane %#x, expected %#x",
                            opi, names[kind], k, t, f & lane, before);
                    } else if (kind == 1)
                        shmem_uint32_atomic_and(d, operand, t);
                    else if (kind == 2)
                        shmem_uint32_atomic_or(d, operand, t);
                    else
                        shmem_uint32_atomic_xor(d, operand, t);
                }
            }
            if (fetch == 2)
                m->npend++;
            if (fetch != 1) /* applied later, or in flight (nbi) */
                *pk = kind;
        } else if (op < 90) { /* ---- put_signal into a slot, ADD 1 */
            int kind = (int)(r2 % 4); /* long blocking, long nbi, mem blocking, mem nbi */
            int slot = (int)(m->sigcnt[t] % NSLOT);
            if (m->pend_d[t] >> slot & 1)
                do_fence(m, exec);
            if ((kind & 1) && m->pool + DW > POOL)
                do_quiet(m, exec);
            long tmp[DW];
            long *sb = (kind & 1) ? &pool[m->pool] : tmp;
            for (int i = 0; i < DW; i++)
                m->D[t][slot][i] = sb[i] = val(src, opi, 100 + i);
            if (exec) {
                long *dst = &D[((size_t)src * NSLOT + (size_t)slot) * DW];
                switch (kind) {
                case 0: shmem_long_put_signal(dst, sb, DW, &S[src], 1, SHMEM_SIGNAL_ADD, t); break;
                case 1:
                    shmem_long_put_signal_nbi(dst, sb, DW, &S[src], 1, SHMEM_SIGNAL_ADD, t);
                    break;
                case 2:
                    shmem_putmem_signal(dst, sb, DW * sizeof(long), &S[src], 1, SHMEM_SIGNAL_ADD,
                                        t);
                    break;
                case 3:
                    shmem_putmem_signal_nbi(dst, sb, DW * sizeof(long), &S[src], 1,
                                            SHMEM_SIGNAL_ADD, t);
                    break;
                }
            }
            if (kind & 1)
                m->pool += DW;
            m->sigcnt[t]++;
            m->pend_d[t] |= 1u << slot;
        } else if (op < 96) {
            do_fence(m, exec);
        } else {
            do_quiet(m, exec);
        }
    }
    do_quiet(m, exec);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        base_seed = strtoull(argv[1], NULL, 0);
    shmem_init();
    check_watchdog(150);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *tp = shmemx_transport_name();
    if (!tp || strcmp(tp, "shm") != 0)
        NOPS = NOPS_NET;
    REQUIRE_LE(npes, MAXPE, "at most %d PEs (one 8-bit lane per PE)", MAXPE);

    R = shmem_calloc(MAXPE * RW, sizeof(long));
    C = shmem_calloc(NCNT, sizeof(long));
    C32 = shmem_calloc(NCNT, sizeof(uint32_t));
    B64 = shmem_calloc(NB, sizeof(uint64_t));
    B32 = shmem_calloc(NB, sizeof(uint32_t));
    S = shmem_calloc(MAXPE, sizeof(uint64_t));
    D = shmem_calloc(MAXPE * NSLOT * DW, sizeof(long));
    mine = malloc(sizeof *mine);
    struct model *sim = malloc(sizeof *sim);
    REQUIRE(R && C && C32 && B64 && B32 && S && D && mine && sim, "allocation failed");

    seed_stage("stream");
    stream(me, 1, mine);

    seed_stage("signals");
    /* The put_signal slots: wait for each source's count, then its data
     * must be there (no barrier yet). */
    long wantC[NCNT] = {0};
    uint32_t want32[NCNT] = {0};
    uint64_t wantB64[NB] = {0};
    uint32_t wantB32[NB] = {0};
    for (int s = 0; s < npes; s++) {
        stream(s, 0, sim);
        if (s == me)
            REQUIRE(memcmp(sim->R, mine->R, sizeof sim->R) == 0 && sim->nfence == mine->nfence &&
                        sim->nquiet == mine->nquiet,
                    "simulated stream differs from the executed one");
        uint64_t got = shmem_signal_wait_until(&S[s], SHMEM_CMP_EQ, sim->sigcnt[me]);
        REQUIRE_EQ(got, sim->sigcnt[me], "signal of PE %d: %llu, expected %llu", s,
                   (unsigned long long)got, (unsigned long long)sim->sigcnt[me]);
        for (int k = 0; k < NSLOT; k++)
            for (int i = 0; i < DW; i++)
                REQUIRE_EQ(D[((size_t)s * NSLOT + (size_t)k) * DW + (size_t)i], sim->D[me][k][i],
                           "put_signal slot %d word %d from PE %d: %ld, expected %ld once its "
                           "signal reached %llu",
                           k, i, s, D[((size_t)s * NSLOT + (size_t)k) * DW + (size_t)i],
                           sim->D[me][k][i], (unsigned long long)sim->sigcnt[me]);
    }
    shmem_barrier_all();

    seed_stage("check");
    long nf = 0, nq = 0;
    for (int s = 0; s < npes; s++) {
        stream(s, 0, sim);
        nf += sim->nfence;
        nq += sim->nquiet;
        for (int i = 0; i < RW; i++)
            REQUIRE_EQ(R[(size_t)s * RW + (size_t)i], sim->R[me][i],
                       "region of PE %d word %d: %ld, expected %ld", s, i,
                       R[(size_t)s * RW + (size_t)i], sim->R[me][i]);
        for (int k = 0; k < NCNT; k++) {
            wantC[k] += sim->cadd[me][k];
            want32[k] += sim->c32[me][k];
        }
        for (int k = 0; k < NB; k++) {
            wantB64[k] |= sim->b64[me][k];
            wantB32[k] |= sim->b32[me][k];
        }
    }
    for (int k = 0; k < NCNT; k++) {
        REQUIRE_EQ(C[k], wantC[k], "long counter %d: %ld, expected %ld", k, C[k], wantC[k]);
        REQUIRE_EQ(C32[k], want32[k], "uint32 counter %d: %u, expected %u", k, C32[k], want32[k]);
    }
    for (int k = 0; k < NB; k++) {
        REQUIRE_EQ(B64[k], wantB64[k], "uint64 bit word %d: %#llx, expected %#llx", k,
                   (unsigned long long)B64[k], (unsigned long long)wantB64[k]);
        REQUIRE_EQ(B32[k], wantB32[k], "uint32 bit word %d: %#x, expected %#x", k, B32[k],
                   wantB32[k]);
    }
    shmem_barrier_all();
    free(mine);
    free(sim);
    shmem_free(R);
    shmem_free(C);
    shmem_free(C32);
    shmem_free(B64);
    shmem_free(B32);
    shmem_free(S);
    shmem_free(D);
    int status =
        check_done("stress", "base seed %llu, %d ops per PE, %ld fences and %ld quiets in all",
                   (unsigned long long)base_seed, NOPS, nf, nq);
    shmem_finalize();
    return status;
}
