/*
 * RMA: the per-type routines (generated rma_types.c, every type of the
 * library's table, typed and C11-generic forms), the fixed-size routines
 * (every SIZE), putmem/getmem at unaligned offsets, and 4 MiB transfers;
 * to heap and to global destinations, to self and to every other PE.
 */
#include "../common/check.h"
#include "rma.h"

#define MAXPE 16
#define SLOT 16 /* elements per (region, source PE) */
#define K 8
#define SENT 120
#define MAXB 16 /* bytes in the largest element (put128) */

static unsigned char byteval(unsigned a, unsigned b, unsigned i, unsigned j)
{
    return (unsigned char)((a * 37u + b * 11u + i * 5u + j * 3u) % 113u + 1u);
}

/* ---- fixed-size routines ------------------------------------------------ */

enum { S_PUT, S_CPUT, S_PUTNBI, S_CPUTNBI, S_IPUT, S_CIPUT, S_IBPUT, S_CIBPUT, S_SRC, NSREG };
enum { CONTIG, STRIDED, BLOCKED };

static int src_index(int kind, int i)
{
    switch (kind) {
    case CONTIG: return i < K ? i : -1;
    case STRIDED: return (i % 2 == 0 && i < 10) ? 3 * (i / 2) : -1;
    default: return (i % 5 < 2 && i < 15) ? 3 * (i / 5) + i % 5 : -1;
    }
}

static _Alignas(16) unsigned char g_sized[(size_t)NSREG * MAXPE * SLOT * MAXB];

static void check_elems(const unsigned char *got, size_t eb, int kind, unsigned a, unsigned b,
                        const char *what, int bits, const char *where, int pe)
{
    for (int i = 0; i < SLOT; i++) {
        int si = src_index(kind, i);
        for (size_t j = 0; j < eb; j++) {
            unsigned char want = si < 0 ? SENT : byteval(a, b, (unsigned)si, (unsigned)j);
            REQUIRE_EQ(got[(size_t)i * eb + j], want,
                       "%s%d (%s) from/to PE %d: element %d byte %zu is %u, expected %u", what,
                       bits, where, pe, i, j, got[(size_t)i * eb + j], want);
        }
    }
}

static void sized(const struct rma_sized_ops *o, unsigned char *s, const char *where)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t eb = (size_t)o->bits / 8, slot = SLOT * eb;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
#define SAT(reg, pe) (s + ((size_t)(reg) * (size_t)np + (size_t)(pe)) * slot)
    memset(s, SENT, NSREG * (size_t)np * slot);
    for (int i = 0; i < SLOT; i++)
        for (size_t j = 0; j < eb; j++)
            SAT(S_SRC, 0)[(size_t)i * eb + j] = byteval((unsigned)me, 99, (unsigned)i, (unsigned)j);
    shmem_barrier_all();

    _Alignas(16) unsigned char src[SLOT * MAXB];
    for (int k = 0; k < np; k++) {
        int p = (me + k) % np;
        for (int i = 0; i < SLOT; i++)
            for (size_t j = 0; j < eb; j++)
                src[(size_t)i * eb + j] = byteval((unsigned)me, (unsigned)p, (unsigned)i, (unsigned)j);
        o->put(SAT(S_PUT, me), src, K, p);
        o->ctx_put(ctx, SAT(S_CPUT, me), src, K, p);
        o->put_nbi(SAT(S_PUTNBI, me), src, K, p);
        o->ctx_put_nbi(ctx, SAT(S_CPUTNBI, me), src, K, p);
        o->iput(SAT(S_IPUT, me), src, 2, 3, 5, p);
        o->ctx_iput(ctx, SAT(S_CIPUT, me), src, 2, 3, 5, p);
        o->ibput(SAT(S_IBPUT, me), src, 5, 3, 2, 3, p);
        o->ctx_ibput(ctx, SAT(S_CIBPUT, me), src, 5, 3, 2, 3, p);
        shmem_quiet();
        shmem_ctx_quiet(ctx);
    }
    shmem_barrier_all();
    static const struct {
        int reg, kind;
        const char *name;
    } preg[] = {{S_PUT, CONTIG, "put"},           {S_CPUT, CONTIG, "ctx_put"},
                {S_PUTNBI, CONTIG, "put_nbi"},    {S_CPUTNBI, CONTIG, "ctx_put_nbi"},
                {S_IPUT, STRIDED, "iput"},        {S_CIPUT, STRIDED, "ctx_iput"},
                {S_IBPUT, BLOCKED, "ibput"},      {S_CIBPUT, BLOCKED, "ctx_ibput"}};
    for (size_t r = 0; r < sizeof preg / sizeof *preg; r++)
        for (int q = 0; q < np; q++)
            check_elems(SAT(preg[r].reg, q), eb, preg[r].kind, (unsigned)q, (unsigned)me,
                        preg[r].name, o->bits, where, q);

    const unsigned char *rs = SAT(S_SRC, 0);
    _Alignas(16) unsigned char d[SLOT * MAXB];
    for (int k = 0; k < np; k++) {
        int q = (me + np - k) % np;
#define GOT(kind, name)                                                                            \
    check_elems(d, eb, kind, (unsigned)q, 99u, name, o->bits, where, q);                           \
    memset(d, SENT, sizeof d)
        memset(d, SENT, sizeof d);
        o->get(d, rs, K, q);
        GOT(CONTIG, "get");
        o->ctx_get(ctx, d, rs, K, q);
        GOT(CONTIG, "ctx_get");
        o->get_nbi(d, rs, K, q);
        shmem_quiet();
        GOT(CONTIG, "get_nbi");
        o->ctx_get_nbi(ctx, d, rs, K, q);
        shmem_ctx_quiet(ctx);
        GOT(CONTIG, "ctx_get_nbi");
        o->iget(d, rs, 2, 3, 5, q);
        GOT(STRIDED, "iget");
        o->ctx_iget(ctx, d, rs, 2, 3, 5, q);
        GOT(STRIDED, "ctx_iget");
        o->ibget(d, rs, 5, 3, 2, 3, q);
        GOT(BLOCKED, "ibget");
        o->ctx_ibget(ctx, d, rs, 5, 3, 2, 3, q);
        GOT(BLOCKED, "ctx_ibget");
#undef GOT
        /* zero length, NULL pointers */
        o->put(NULL, NULL, 0, q);
        o->get(NULL, NULL, 0, q);
        o->put_nbi(NULL, NULL, 0, q);
        o->get_nbi(NULL, NULL, 0, q);
        o->ctx_put(ctx, NULL, NULL, 0, q);
        o->ctx_get(ctx, NULL, NULL, 0, q);
        o->ctx_put_nbi(ctx, NULL, NULL, 0, q);
        o->ctx_get_nbi(ctx, NULL, NULL, 0, q);
        o->iput(NULL, NULL, 1, 1, 0, q);
        o->iget(NULL, NULL, 1, 1, 0, q);
        o->ibput(NULL, NULL, 1, 1, 1, 0, q);
        o->ibget(NULL, NULL, 1, 1, 1, 0, q);
    }
    shmem_quiet();
    shmem_barrier_all();
#undef SAT
}

/* ---- putmem/getmem: no alignment, odd lengths ---------------------------- */

enum { M_PUT, M_CPUT, M_PUTNBI, M_CPUTNBI, M_SRC, NMREG };
#define MSLOT 32
static unsigned char g_mem[(size_t)NMREG * MAXPE * MSLOT];

static void mem(unsigned char *s, const char *where)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
#define MAT(reg, pe) (s + ((size_t)(reg) * (size_t)np + (size_t)(pe)) * MSLOT)
    memset(s, SENT, NMREG * (size_t)np * MSLOT);
    for (unsigned i = 0; i < MSLOT; i++)
        MAT(M_SRC, 0)[i] = byteval((unsigned)me, 98, i, 0);
    shmem_barrier_all();
    unsigned char src[MSLOT];
    for (int k = 0; k < np; k++) {
        int p = (me + k) % np;
        for (unsigned i = 0; i < MSLOT; i++)
            src[i] = byteval((unsigned)me, (unsigned)p, i, 1);
        /* 13 bytes from an odd source address to an odd offset */
        shmem_putmem(MAT(M_PUT, me) + 3, src + 1, 13, p);
        shmem_ctx_putmem(ctx, MAT(M_CPUT, me) + 3, src + 1, 13, p);
        shmem_putmem_nbi(MAT(M_PUTNBI, me) + 3, src + 1, 13, p);
        shmem_ctx_putmem_nbi(ctx, MAT(M_CPUTNBI, me) + 3, src + 1, 13, p);
        shmem_quiet();
        shmem_ctx_quiet(ctx);
    }
    shmem_barrier_all();
    static const char *names[] = {"putmem", "ctx_putmem", "putmem_nbi", "ctx_putmem_nbi"};
    for (int r = M_PUT; r <= M_CPUTNBI; r++)
        for (int q = 0; q < np; q++)
            for (unsigned i = 0; i < MSLOT; i++) {
                unsigned char want = (i >= 3 && i < 16) ? byteval((unsigned)q, (unsigned)me, i - 2, 1)
                                                        : SENT;
                REQUIRE_EQ(MAT(r, q)[i], want, "%s (%s) from PE %d: byte %u is %u, expected %u",
                           names[r], where, q, i, MAT(r, q)[i], want);
            }
    unsigned char d[MSLOT];
    for (int k = 0; k < np; k++) {
        int q = (me + np - k) % np;
        for (int v = 0; v < 4; v++) {
            memset(d, SENT, sizeof d);
            const unsigned char *rs = MAT(M_SRC, 0) + 2;
            switch (v) {
            case 0: shmem_getmem(d + 5, rs, 11, q); break;
            case 1: shmem_ctx_getmem(ctx, d + 5, rs, 11, q); break;
            case 2: shmem_getmem_nbi(d + 5, rs, 11, q); shmem_quiet(); break;
            default: shmem_ctx_getmem_nbi(ctx, d + 5, rs, 11, q); shmem_ctx_quiet(ctx); break;
            }
            for (unsigned i = 0; i < MSLOT; i++) {
                unsigned char want = (i >= 5 && i < 16) ? byteval((unsigned)q, 98, i - 3, 0) : SENT;
                REQUIRE_EQ(d[i], want,
                           "getmem variant %d (%s) from PE %d: byte %u is %u, expected %u", v,
                           where, q, i, d[i], want);
            }
        }
        shmem_putmem(NULL, NULL, 0, q);
        shmem_getmem(NULL, NULL, 0, q);
        shmem_putmem_nbi(NULL, NULL, 0, q);
        shmem_getmem_nbi(NULL, NULL, 0, q);
        shmem_ctx_putmem(ctx, NULL, NULL, 0, q);
        shmem_ctx_getmem(ctx, NULL, NULL, 0, q);
        shmem_ctx_putmem_nbi(ctx, NULL, NULL, 0, q);
        shmem_ctx_getmem_nbi(ctx, NULL, NULL, 0, q);
    }
    shmem_quiet();
    shmem_barrier_all();
#undef MAT
}

/* ---- 4 MiB transfers ---------------------------------------------------- */

#define BIG (4u << 20)
#define BIGW (BIG / 4)
static uint32_t g_big[2 * BIGW];

static uint32_t word(int pe, size_t i, unsigned salt) { return (uint32_t)(pe * 0x9E3779B1u) ^ (uint32_t)(i * 2654435761u) ^ salt; }

static void check_big(const uint32_t *w, int pe, unsigned salt, const char *what, const char *where)
{
    for (size_t i = 0; i < BIGW; i++)
        if (w[i] != word(pe, i, salt))
            FAIL("%s (%s) of 4 MiB with PE %d: word %zu is %#x, expected %#x", what, where, pe, i,
                 w[i], word(pe, i, salt));
}

static void big(uint32_t *s, const char *where)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    uint32_t *src = malloc(BIG), *d = malloc(BIG);
    REQUIRE(src && d, "malloc of 4 MiB");
    for (size_t i = 0; i < BIGW; i++) {
        src[i] = word(me, i, 1);
        s[BIGW + i] = word(me, i, 2);
    }
    shmem_barrier_all();
    /* ring put, then the source is reused at once (blocking put) */
    shmem_putmem(s, src, BIG, right);
    memset(src, 0, BIG);
    shmem_barrier_all();
    check_big(s, left, 1, "putmem", where);
    shmem_barrier_all();
    for (size_t i = 0; i < BIGW; i++)
        src[i] = word(me, i, 3);
    shmem_uint32_put_nbi(s, src, BIGW, right);
    shmem_quiet();
    shmem_barrier_all();
    check_big(s, left, 3, "uint32_put_nbi", where);
    shmem_getmem(d, s + BIGW, BIG, left);
    check_big(d, left, 2, "getmem", where);
    memset(d, 0, BIG);
    shmem_getmem_nbi(d, s + BIGW, BIG, right);
    shmem_quiet();
    check_big(d, right, 2, "getmem_nbi", where);
    shmem_getmem(d, s + BIGW, BIG, me);
    check_big(d, me, 2, "getmem from self", where);
    free(src);
    free(d);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int np = shmem_n_pes();

    int ntypes = rma_types_run();
    REQUIRE_EQ(ntypes, 24, "the RMA type table has %d types, the standard 24", ntypes);

    int nsizes = 0;
    for (const struct rma_sized_ops *o = rma_sized_ops; o->bits; o++, nsizes++) {
        char stage[32];
        snprintf(stage, sizeof stage, "rma size %d", o->bits);
        check_stage(stage);
        size_t len = NSREG * (size_t)np * SLOT * ((size_t)o->bits / 8);
        unsigned char *h = shmem_align(16, len);
        REQUIRE_NE(h, NULL, "shmem_align(16, %zu)", len);
        sized(o, h, "heap");
        shmem_free(h);
        if (np <= MAXPE)
            sized(o, g_sized, "global");
    }
    REQUIRE_EQ(nsizes, 5, "%d SIZEs, expected 8, 16, 32, 64, 128", nsizes);

    check_stage("putmem/getmem");
    unsigned char *h = shmem_malloc(NMREG * (size_t)np * MSLOT);
    REQUIRE_NE(h, NULL, "shmem_malloc");
    mem(h, "heap");
    shmem_free(h);
    if (np <= MAXPE)
        mem(g_mem, "global");

    check_stage("4 MiB");
    uint32_t *hb = shmem_malloc(2 * (size_t)BIG);
    REQUIRE_NE(hb, NULL, "shmem_malloc(8 MiB)");
    big(hb, "heap");
    shmem_free(hb);
    big(g_big, "global");

    int status = check_done("rma");
    shmem_finalize();
    return status;
}
