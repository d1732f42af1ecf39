/* sum_inscan / sum_exscan of the native component.
 *   linear         after a barrier (every source ready) each PE folds the
 *                  sources of PEs 0..me (or 0..me-1) in rank order, reading
 *                  them in place when mapped; a second barrier makes sure
 *                  no PE still reads a source before dest (which may be the
 *                  source) is written.  PE n-1 reads n sources.
 *   hillis_steele  log2 n rounds over the dissemination pattern: in round
 *                  k each PE sends its partial (the fold of PEs me-2^k+1..me)
 *                  to PE me+2^k through the receiver's scratch and folds the
 *                  one from PE me-2^k.  A PE whose partner lies past the
 *                  team's end sends the flag alone to (me+2^k) mod n, so
 *                  that, as in the dissemination barrier, a PE returns only
 *                  once every member entered the call; that is also what
 *                  lets a chunk reuse the scratch of the chunk two before.
 *   segmented      each PE scans 1/n of the vector across all PEs, between
 *                  two barriers (below). */
#include <stdlib.h>

#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "coll_config.h"
#include "error.h"

#define SCAN_CHUNK 8192

static int scan_linear(struct pshm_team *t, void *dest, const void *src, size_t count,
                       const struct pshm_red *r, int exclusive)
{
    int me = t->my_pe, last = exclusive ? me - 1 : me;
    size_t es = r->esize, bytes = count * es;
    unsigned char *res = bytes ? malloc(bytes) : NULL;
    if (bytes && !res)
        pshm_fatal("%s: out of memory (%zu bytes)", pshm_coll_routine, bytes);
    _Alignas(64) unsigned char in[SCAN_CHUNK];
    size_t cm = SCAN_CHUNK / es;
    coll_barrier(t);
    if (last < 0)
        memset(res, 0, bytes); /* all-zero bits are 0 for every SUM type */
    for (size_t off = 0; off < count && last >= 0; off += cm) {
        size_t m = count - off < cm ? count - off : cm, b = m * es;
        const unsigned char *s = (const unsigned char *)src + off * es;
        for (int i = 0; i <= last; i++) {
            int w = coll_wpe(t, i);
            const void *p = w == pshm_g.my_pe ? (const void *)s : pshm_mapped(s, w);
            if (!p) {
                coll_get(in, s, b, w);
                p = in;
            }
            if (i == 0)
                memcpy(res + off * es, p, b);
            else
                r->fn(res + off * es, p, m);
        }
    }
    coll_barrier(t);
    if (bytes)
        memcpy(dest, res, bytes);
    free(res);
    return 0;
}

#define HS_MAX (PSHM_COLL_SCRATCH_SIZE / 2)

/* Scratch of one round of a chunk: [parity][round]. */
static size_t hs_buf_bytes(int rounds)
{
    return (PSHM_COLL_SCRATCH_SIZE / (2 * (size_t)rounds)) & ~(size_t)63;
}

/* One chunk of m elements: s its source, d its dest (either may be the
 * other).  The inclusive partial is kept in d for inscan, in incl for
 * exscan, whose result gathers in d what came from below. */
static void hs_chunk(struct pshm_team *t, unsigned char *d, const unsigned char *s, size_t m,
                     const struct pshm_red *r, int exclusive, int rounds, unsigned char *incl)
{
    int n = t->n_pes, me = t->my_pe;
    size_t bb = hs_buf_bytes(rounds), b = m * r->esize;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    int par = (int)(t->sym->l.scan_count++ & 1);
    struct pshm_coll_flags *f = &t->sym->f;
    unsigned char *acc = exclusive ? incl : d;
    if (acc != s && b)
        memmove(acc, s, b);
    int have = 0; /* exscan: d holds something from below */
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        unsigned char *buf = t->sym->scratch + ((size_t)par * (size_t)rounds + (size_t)k) * bb;
        int to = coll_wpe(t, (me + dist) % n);
        if (me + dist < n)
            coll_put(buf, acc, b, to);
        coll_signal(&f->scan[k], v, to);
        coll_wait(&f->scan[k], v);
        if (me - dist < 0)
            continue;
        if (exclusive) {
            if (have)
                r->fn(d, buf, m);
            else if (b)
                memcpy(d, buf, b);
            have = 1;
        }
        /* exscan: the partial is only sent on, and no later round may. */
        if (!exclusive || me + 2 * dist < n)
            r->fn(acc, buf, m);
    }
    if (exclusive && !have && b)
        memset(d, 0, b); /* PE 0: all-zero bits are 0 for every SUM type */
}

static int scan_hs(struct pshm_team *t, void *dest, const void *src, size_t count,
                   const struct pshm_red *r, int exclusive)
{
    int n = t->n_pes;
    size_t es = r->esize;
    if (n == 1) {
        if (exclusive && count)
            memset(dest, 0, count * es);
        else if (dest != src && count)
            memmove(dest, src, count * es);
        return 0;
    }
    coll_scratch(t, COLL_SCRATCH_SCAN);
    int rounds = 0;
    while ((1 << rounds) < n)
        rounds++;
    size_t cm = hs_buf_bytes(rounds) / es;
    _Alignas(64) unsigned char incl[HS_MAX];
    unsigned char *d = dest;
    const unsigned char *s = src;
    /* A count of 0 still meets the others once. */
    size_t off = 0;
    do {
        size_t m = count - off < cm ? count - off : cm;
        hs_chunk(t, d + off * es, s + off * es, m, r, exclusive, rounds, incl);
        off += m;
    } while (off < count);
    return 0;
}

/* Each PE scans one segment of the vector across all PEs: it reads the
 * segment of every source in rank order (in place when mapped), keeping
 * the running fold, and writes each prefix into that PE's dest.  Every PE
 * reads and writes the vector's size once, whatever n, between two
 * barriers (the linear scan's last PE reads n sources; Hillis-Steele
 * copies the vector log2 n times in chunks, a round trip each).  In place
 * works: only this PE reads a segment of a source, and it reads it before
 * writing that segment of the same PE's dest. */
static int scan_segmented(struct pshm_team *t, void *dest, const void *src, size_t count,
                          const struct pshm_red *r, int exclusive)
{
    int n = t->n_pes, me = t->my_pe;
    size_t es = r->esize;
    _Alignas(64) unsigned char acc[SCAN_CHUNK], prev[SCAN_CHUNK], in[SCAN_CHUNK];
    size_t cm = SCAN_CHUNK / es;
    size_t bs = (count + (size_t)n - 1) / (size_t)n;
    size_t lo = bs * (size_t)me < count ? bs * (size_t)me : count;
    size_t hi = lo + bs < count ? lo + bs : count;
    coll_barrier(t); /* every source and dest is ready */
    const unsigned char *s = src;
    unsigned char *d = dest;
    for (size_t off = lo; off < hi; off += cm) {
        size_t m = hi - off < cm ? hi - off : cm, b = m * es;
        for (int i = 0; i < n; i++) {
            int w = coll_wpe(t, i);
            const void *p = w == pshm_g.my_pe ? (const void *)(s + off * es) : pshm_mapped(s + off * es, w);
            if (!p) {
                coll_get(in, s + off * es, b, w);
                p = in;
            }
            if (exclusive) {
                if (i)
                    memcpy(prev, acc, b);
                else
                    memset(prev, 0, b); /* all-zero bits are 0 for every SUM type */
            }
            if (i)
                r->fn(acc, p, m);
            else
                memcpy(acc, p, b);
            coll_put(d + off * es, exclusive ? prev : acc, b, w);
        }
    }
    coll_complete();
    coll_barrier(t); /* every dest is complete, no source is read any more */
    return 0;
}

int pshm_native_scan(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r, int exclusive)
{
    coll_enter(t);
    switch (pshm_coll_cfg.algo[PSHM_CEXT_OP_SCAN]) {
    case PSHM_SCAN_LINEAR: return scan_linear(t, dest, src, count, r, exclusive);
    case PSHM_SCAN_HILLIS_STEELE: return scan_hs(t, dest, src, count, r, exclusive);
    case PSHM_SCAN_SEGMENTED: return scan_segmented(t, dest, src, count, r, exclusive);
    default: break;
    }
    /* On one node, past 2 KiB or one chunk of Hillis-Steele (a round trip
     * per round and chunk), the segmented scan, which moves the vector
     * once per PE, wins.  2 PEs on 2 cores, µs: 4 KiB segmented 0.43-0.46,
     * linear 0.49-0.52, Hillis-Steele 0.73; 32 KiB 1.44, 2.46, 6.4; up to
     * 512 B Hillis-Steele 0.20-0.27, the others 0.33-0.40. */
    int n = t->n_pes, rounds = 0;
    while ((1 << rounds) < n)
        rounds++;
    size_t bytes = count * r->esize, chunk = hs_buf_bytes(rounds ? rounds : 1);
    if (t->all_mapped && n > 1 && (bytes > 2048 || bytes > chunk))
        return scan_segmented(t, dest, src, count, r, exclusive);
    return scan_hs(t, dest, src, count, r, exclusive);
}
