/* Reductions (all PEs get the result) of the native component.
 *   recursive_doubling       log2 n exchanges of the whole vector through
 *                            scratch (chunked); n not a power of two folds
 *                            the extra PEs in first and out last
 *   ring                     ring reduce-scatter through scratch with
 *                            credits, then ring allgather into dest
 *   reduce_scatter_allgather each PE reduces 1/n of the vector reading every
 *                            PE's source (in place when mapped), then
 *                            pushes it to every dest: two barriers, no scratch
 * Every algorithm gives all PEs bit-identical results: each element is
 * either combined once and copied, or combined pairwise with operands that
 * commute exactly. */
#include <stdlib.h>

#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "coll_config.h"
#include "hier.h"
#include "native_msg.h"

/* Scratch of a recursive-doubling chunk: [parity][round or fold]. */
static size_t rd_buf_bytes(int rounds)
{
    size_t b = PSHM_COLL_SCRATCH_SIZE / (2 * (size_t)(rounds + 1));
    return b & ~(size_t)63;
}

static inline unsigned char *rd_buf(struct pshm_team *t, size_t bb, int rounds, int par, int r)
{
    return t->sym->scratch + ((size_t)par * (size_t)(rounds + 1) + (size_t)r) * bb;
}

/* acc (private or dest) holds this PE's contribution; on return, the result. */
static void rd_chunk(struct pshm_team *t, unsigned char *acc, size_t m, const struct pshm_red *r)
{
    int n = t->n_pes, me = t->my_pe, rounds = coll_log2_floor(n), p = 1 << rounds;
    size_t bb = rd_buf_bytes(rounds), bytes = m * r->esize;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    int par = (int)(t->sym->l.rd_count++ & 1);
    struct pshm_coll_flags *f = &t->sym->f;
    unsigned char *fold = rd_buf(t, bb, rounds, par, rounds);
    if (me >= p) { /* extra PE: hand in, get the result back in own fold buffer */
        int w = coll_wpe(t, me - p);
        coll_put(fold, acc, bytes, w);
        coll_signal(&f->fold_in, v, w);
        coll_wait(&f->fold_out, v);
        memcpy(acc, fold, bytes);
        return;
    }
    if (me < n - p) {
        coll_wait(&f->fold_in, v);
        r->fn(acc, fold, m);
    }
    /* Up to 112 bytes the data rides with its flag (in its line, and the
     * next one past 48 bytes): the receiver sees the flag and has the
     * data, instead of fetching a scratch line after it (2 PEs: 8 B 0.19
     * -> 0.17 us, 64 B 0.21 -> 0.19). */
    int inline_data = bytes <= PSHM_INLINE_MAX && rounds <= PSHM_INLINE_ROUNDS;
    for (int k = 0; k < rounds; k++) {
        int w = coll_wpe(t, me ^ (1 << k));
        uint64_t *flag = inline_data ? &f->rdl[par][k].flag : &f->rd[k];
        unsigned char *b = inline_data ? f->rdl[par][k].data : rd_buf(t, bb, rounds, par, k);
        coll_put(b, acc, bytes, w);
        coll_signal(flag, v, w);
        coll_wait(flag, v);
        r->fn(acc, b, m);
    }
    if (me < n - p) {
        int w = coll_wpe(t, me + p);
        coll_put(fold, acc, bytes, w);
        coll_signal(&f->fold_out, v, w);
    }
}

/* Recursive doubling where dest need not be symmetric (the result is
 * computed in place in dest). */
static int reduce_rd(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r)
{
    if (dest != src)
        memmove(dest, src, count * r->esize);
    if (t->n_pes == 1)
        return 0;
    coll_scratch(t, COLL_SCRATCH_RD);
    size_t cm = rd_buf_bytes(coll_log2_floor(t->n_pes)) / r->esize;
    unsigned char *d = dest;
    for (size_t off = 0; off < count; off += cm) {
        size_t m = count - off < cm ? count - off : cm;
        rd_chunk(t, d + off * r->esize, m, r);
    }
    return 0;
}

static inline void seg(size_t count, size_t bs, int b, size_t *lo, size_t *m)
{
    size_t l = (size_t)b * bs, h = l + bs;
    if (l > count)
        l = count;
    if (h > count)
        h = count;
    *lo = l;
    *m = h - l;
}

/* Ring: segments of n blocks of at most half the scratch each. */
static int reduce_ring(struct pshm_team *t, void *dest, const void *src, size_t count,
                       const struct pshm_red *r)
{
    int n = t->n_pes, me = t->my_pe;
    size_t es = r->esize;
    if (n == 1 || count == 0) {
        if (dest != src)
            memmove(dest, src, count * es);
        return 0;
    }
    coll_scratch(t, COLL_SCRATCH_RING);
    size_t half = (PSHM_COLL_SCRATCH_SIZE / 2) & ~(size_t)63;
    size_t cmax = half / es; /* elements per block */
    struct pshm_coll_flags *f = &t->sym->f;
    int next = coll_wpe(t, (me + 1) % n), prev = coll_wpe(t, (me - 1 + n) % n);
    unsigned char *d = dest;
    const unsigned char *s = src;
    size_t segmax = cmax * (size_t)n;
    for (size_t base = 0; base < count; base += segmax) {
        size_t len = count - base < segmax ? count - base : segmax;
        size_t bs = (len + (size_t)n - 1) / (size_t)n;
        uint64_t e = ++t->sym->l.seq;
        unsigned char *db = d + base * es;
        const unsigned char *sb = s + base * es;
        /* reduce-scatter */
        for (int j = 1; j < n; j++) {
            uint64_t c = ++t->sym->l.ring_count;
            unsigned char *buf = t->sym->scratch + (c & 1) * half;
            int sbk = (me - j + 1 + n) % n, rbk = (me - j + n) % n;
            size_t lo, m;
            seg(len, bs, sbk, &lo, &m);
            if (c > 2)
                coll_wait(&f->ring_ack, c - 2);
            coll_put(buf, (j == 1 ? sb : db) + lo * es, m * es, next);
            coll_signal(&f->ring, PSHM_FLAG(e, j), next);
            coll_wait(&f->ring, PSHM_FLAG(e, j));
            seg(len, bs, rbk, &lo, &m);
            if (db != sb)
                memcpy(db + lo * es, sb + lo * es, m * es);
            r->fn(db + lo * es, buf, m);
            coll_signal(&f->ring_ack, c, prev);
        }
        /* allgather of the final blocks, straight into dest */
        for (int i = 0; i < n - 1; i++) {
            int sbk = (me + 1 - i + n) % n;
            size_t lo, m;
            seg(len, bs, sbk, &lo, &m);
            coll_put(db + lo * es, db + lo * es, m * es, next);
            coll_signal(&f->ring, PSHM_FLAG(e, n + i), next);
            coll_wait(&f->ring, PSHM_FLAG(e, n + i));
        }
    }
    return 0;
}

/* A PE's source, readable here: mapped, or fetched into buf. */
static inline const void *src_of(const void *sym, int wpe, void *buf, size_t bytes)
{
    if (wpe == pshm_g.my_pe)
        return sym;
    const void *p = pshm_mapped(sym, wpe);
    if (p)
        return p;
    coll_get(buf, sym, bytes, wpe);
    return buf;
}

#define RSAG_CHUNK 8192

/* Each PE folds its segment in its own dest, starting from its own source
 * (nobody else reads either part), then copies it to the other dests: the
 * segment's bytes are read once from every source and written once to
 * every dest, with no copy in between.  Chunks keep the accumulator in the
 * first-level cache while the sources are folded in. */
static int reduce_rsag(struct pshm_team *t, void *dest, const void *src, size_t count,
                       const struct pshm_red *r)
{
    int n = t->n_pes, me = t->my_pe;
    size_t es = r->esize;
    if (n == 1) {
        if (dest != src)
            memmove(dest, src, count * es);
        return 0;
    }
    _Alignas(64) unsigned char in[RSAG_CHUNK];
    size_t cm = RSAG_CHUNK / es;
    size_t bs = (count + (size_t)n - 1) / (size_t)n, lo, len;
    seg(count, bs, me, &lo, &len);
    coll_barrier(t); /* every source is ready */
    const unsigned char *s = src;
    unsigned char *d = dest;
    for (size_t off = lo; off < lo + len; off += cm) {
        size_t m = lo + len - off < cm ? lo + len - off : cm, b = m * es;
        unsigned char *acc = d + off * es;
        if (acc != s + off * es)
            memmove(acc, s + off * es, b);
        for (int i = 1; i < n; i++)
            r->fn(acc, src_of(s + off * es, coll_wpe(t, (me + i) % n), in, b), m);
        for (int i = 1; i < n; i++)
            coll_put(acc, acc, b, coll_wpe(t, (me + i) % n));
    }
    coll_complete();
    coll_barrier(t); /* every dest is complete, no source is read any more */
    return 0;
}

/* Every member mapped and small data: each PE stores its source into a slot
 * of every member's scratch, all meet once, and each folds the n slots in
 * rank order (the same order everywhere: bit-identical results).  One
 * barrier in which each PE waits once: what matters when PEs outnumber
 * cores.  Two scratch halves alternate; a PE can only reuse a half after
 * the next call's barrier, which every reader of this call has passed. */
static size_t gather_half(void) { return PSHM_COLL_SCRATCH_SIZE / 2; }
_Static_assert(PSHM_COLL_SCRATCH_SIZE / 2 >= 4096, "the gather reduction takes up to 4 KiB");

static int reduce_gather(struct pshm_team *t, void *dest, const void *src, size_t count,
                         const struct pshm_red *r)
{
    int n = t->n_pes, me = t->my_pe;
    size_t bytes = count * r->esize;
    coll_scratch(t, COLL_SCRATCH_GATHER);
    unsigned char *buf = t->sym->scratch + (t->sym->l.gather_count++ & 1) * gather_half();
    for (int i = 0; i < n; i++)
        coll_put(buf + (size_t)me * bytes, src, bytes, coll_wpe(t, (me + i) % n));
    coll_barrier(t);
    memmove(dest, buf, bytes);
    for (int i = 1; i < n; i++)
        r->fn(dest, buf + (size_t)i * bytes, count);
    return 0;
}

int pshm_native_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                       const struct pshm_red *r)
{
    if (t->hier)
        return pshm_hier_reduce(t, dest, src, count, r);
    if (t->msg)
        return pshm_msg_reduce(t, dest, src, count, r);
    coll_enter(t); /* every algorithm writes peers' scratch only, or after a barrier */
    switch (pshm_coll_cfg.algo[PSHM_CEXT_OP_REDUCE]) {
    case PSHM_REDUCE_RECURSIVE_DOUBLING: return reduce_rd(t, dest, src, count, r);
    case PSHM_REDUCE_RING: return reduce_ring(t, dest, src, count, r);
    case PSHM_REDUCE_REDUCE_SCATTER_ALLGATHER: return reduce_rsag(t, dest, src, count, r);
    default: break;
    }
    size_t bytes = count * r->esize;
    /* PEs outnumber cores: one barrier in which each PE waits once beats
     * log2(n) rounds that each need a partner scheduled, while the last PE
     * folds no more than 4 KiB (4 PEs on 2 cores, µs: 1 KiB gather 3.8,
     * reduce_scatter_allgather 4.0; 2 KiB 5.4 and 4.0). */
    if (t->all_mapped && pshm_g.oversubscribed && t->n_pes > 2 && bytes * (size_t)t->n_pes <= 4096)
        return reduce_gather(t, dest, src, count, r);
    /* On one node past 512 bytes, reading the sources in place halves what
     * each PE copies and folds even at 2 PEs, for two meetings in all (2 PEs
     * on 2 cores, µs: 512 B both 0.36; 1 KiB recursive doubling 0.56,
     * reduce_scatter_allgather 0.35; 4 KiB 1.38 and 0.43).  With more PEs
     * recursive doubling copies the vector log2 n times, the other way
     * once, but its two barriers take 2 log2 n rounds instead of log2 n:
     * 1 KiB there, near where the one-chunk rule put it with the former
     * 16 KiB team slots (1.9 KiB at 4 PEs, 1.1 at 16; not measured, no
     * such machine here).  Across nodes, recursive doubling while the
     * vector fits one chunk of scratch. */
    size_t rd_max = rd_buf_bytes(coll_log2_floor(t->n_pes));
    size_t rd_mapped_max = t->n_pes <= 2 ? 512 : 1024;
    if (t->all_mapped && rd_max > rd_mapped_max)
        rd_max = rd_mapped_max;
    if (bytes <= rd_max || (t->n_pes <= 2 && !t->all_mapped))
        return reduce_rd(t, dest, src, count, r);
    if (t->all_mapped || bytes >= ((size_t)t->n_pes << 16))
        return reduce_rsag(t, dest, src, count, r);
    return reduce_ring(t, dest, src, count, r);
}

static void or_u64(void *a_, const void *b_, size_t n)
{
    uint64_t *a = a_;
    const uint64_t *b = b_;
    for (size_t i = 0; i < n; i++)
        a[i] |= b[i];
}

int pshm_native_reduce_private(struct pshm_team *t, void *dest, const void *src, size_t count,
                               const struct pshm_red *r)
{
    coll_enter(t);
    return reduce_rd(t, dest, src, count, r);
}

int pshm_coll_or_u64(struct pshm_team *t, uint64_t *v, size_t n)
{
    static const struct pshm_red r = {or_u64, 8, PSHM_OP_OR, "uint64"};
    coll_enter(t);
    return reduce_rd(t, v, v, n, &r);
}
