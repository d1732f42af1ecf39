/* Broadcast of the native component: data goes straight into every PE's
 * dest (the caller guarantees dest is ready everywhere), so no scratch is
 * needed and each PE receives each byte once.
 *   binomial          the root's subtree halves each round: log2 n steps
 *   scatter_allgather binomial scatter of n blocks, then a ring allgather:
 *                     every link carries about 2 * nbytes, not log2 n times */
#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "config.h"

static inline int lowbit_log(int v) { return __builtin_ctz((unsigned)v); }

/* Where this PE (relative rank vr) stands in the binomial tree of a
 * broadcast: the root copies its source into dest and sends from source;
 * the others wait for their parent's flag and send from dest.  Returns
 * the distance below which this PE's children lie; *from is what to send. */
static int bino_enter(const uint64_t *bino, uint64_t v, int vr, int n, void *dest,
                      const void *src, size_t nbytes, const void **from)
{
    if (vr == 0) {
        if (dest != src)
            memmove(dest, src, nbytes);
        *from = src;
        int top = 1;
        while (top < n)
            top <<= 1;
        return top;
    }
    int k = lowbit_log(vr);
    coll_wait(&bino[k], v);
    *from = dest;
    return 1 << k;
}

/*
 * The root returns as soon as its children have the data, so without care
 * it could run calls ahead of a slow PE (coll_state.h, coll_enter).  Each
 * PE therefore tells its parent that it entered the call (bino_rdy, one
 * store), and a parent writes into a child's dest only when it knows the
 * child has entered the previous call, so is done with the buffer of the
 * call before:
 *   previous call not a binomial broadcast  it returned only after every
 *                                           PE entered it: nothing to wait
 *   binomial with the same root             same tree: the child's notice
 *                                           of the previous call
 *   binomial with another root              this call's notice (the child's
 *                                           parent then was another PE)
 * In a loop with a fixed root, the root thus stays up to one call ahead,
 * which is all the pipelining the buffers allow.
 */
static int bcast_binomial(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    struct pshm_coll_flags *f = &t->sym->f;
    int vr = (me - root + n) % n;
    uint64_t need = 0;
    if (coll_enter(t))
        need = t->sym->l.bcast_root == root ? t->sym->l.bcast_v : v;
    t->sym->l.bcast_open = 1;
    t->sym->l.bcast_root = root;
    t->sym->l.bcast_v = v;
    if (vr) {
        int k = lowbit_log(vr);
        coll_notify(&f->bino_rdy[k], v, coll_wpe(t, (me - (1 << k) + n) % n));
    }
    const void *from;
    int top = bino_enter(f->bino, v, vr, n, dest, src, nbytes, &from);
    for (int m = top >> 1; m >= 1; m >>= 1) {
        if (vr + m >= n)
            continue;
        int k = lowbit_log(m), w = coll_wpe(t, (vr + m + root) % n);
        if (need)
            coll_wait(&f->bino_rdy[k], need);
        coll_put(dest, from, nbytes, w);
        coll_signal(&f->bino[k], v, w);
    }
    return 0;
}

/* Bytes of block b of nblk blocks of bs bytes over nbytes: [lo, hi). */
static inline void block(size_t nbytes, size_t bs, int b, size_t *lo, size_t *hi)
{
    size_t l = (size_t)b * bs, h = l + bs;
    if (l > nbytes)
        l = nbytes;
    if (h > nbytes)
        h = nbytes;
    *lo = l;
    *hi = h;
}

static int bcast_scatter_allgather(struct pshm_team *t, void *dest, const void *src, size_t nbytes,
                                   int root)
{
    int n = t->n_pes, me = t->my_pe;
    if (n == 1 || nbytes < (size_t)n)
        return bcast_binomial(t, dest, src, nbytes, root);
    /* The scatter and the ring's first step write before hearing from the
     * receiver; the ring makes the call return only once all entered it. */
    coll_enter_writing(t);
    uint64_t e = ++t->sym->l.seq, v = PSHM_FLAG(e, 0);
    struct pshm_coll_flags *f = &t->sym->f;
    int vr = (me - root + n) % n;
    size_t bs = (nbytes + (size_t)n - 1) / (size_t)n;
    char *d = dest;
    const void *from_v;
    int top = bino_enter(f->bino, v, vr, n, dest, src, nbytes, &from_v);
    const char *from = from_v;
    /* Scatter: child c gets the blocks of its subtree, [c, c + min(m, n - c)). */
    for (int m = top >> 1; m >= 1; m >>= 1) {
        int c = vr + m;
        if (c >= n)
            continue;
        int cnt = m < n - c ? m : n - c;
        size_t lo, hi, l2, h2;
        block(nbytes, bs, c, &lo, &hi);
        block(nbytes, bs, c + cnt - 1, &l2, &h2);
        int w = coll_wpe(t, (c + root) % n);
        coll_put(d + lo, from + lo, h2 - lo, w);
        coll_signal(&f->bino[lowbit_log(m)], v, w);
    }
    /* Ring allgather over virtual ranks: step s sends block vr - s. */
    int next = coll_wpe(t, (me + 1) % n);
    for (int s = 0; s < n - 1; s++) {
        int b = (vr - s + n) % n;
        size_t lo, hi;
        block(nbytes, bs, b, &lo, &hi);
        coll_put(d + lo, from + lo, hi - lo, next);
        coll_signal(&f->ring, PSHM_FLAG(e, s + 1), next);
        coll_wait(&f->ring, PSHM_FLAG(e, s + 1));
        from = dest; /* the root's own blocks come from src; received ones from dest */
        if (vr == 0)
            from = src;
    }
    return 0;
}

int pshm_native_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    switch (pshm_cfg.coll_algo[PSHM_COP_BCAST]) {
    case PSHM_BCAST_BINOMIAL: return bcast_binomial(t, dest, src, nbytes, root);
    case PSHM_BCAST_SCATTER_ALLGATHER: return bcast_scatter_allgather(t, dest, src, nbytes, root);
    default: break;
    }
    if (t->n_pes > 2 && nbytes >= ((size_t)64 << 10))
        return bcast_scatter_allgather(t, dest, src, nbytes, root);
    return bcast_binomial(t, dest, src, nbytes, root);
}
