/* Broadcast of the native component.
 *   binomial          the root's subtree halves each round: log2 n steps;
 *                     data goes straight into every PE's dest
 *   scatter_allgather binomial scatter of n blocks, then a ring allgather:
 *                     every link carries about 2 * nbytes, not log2 n times
 *   eager             the binomial tree for up to 112 bytes, each call's
 *                     data and flag in one slot (two cache lines) of the
 *                     receiver's eager ring, which it copies into its dest
 *                     itself: the root may run several calls ahead */
#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "coll_config.h"
#include "hier.h"
#include "native_msg.h"


/* Where this PE (relative rank vr) stands in the binomial tree of a
 * broadcast: the root copies its source into dest and sends from source;
 * the others wait for their parent's flag and send from dest.  Returns
 * the distance below which this PE's children lie; *from is what to send. */
static int bino_enter(const uint64_t *bino, uint64_t v, int vr, int n, void *dest,
                      const void *src, size_t nbytes, const void **from)
{
    if (vr == 0) {
        if (dest != src && nbytes)
            memmove(dest, src, nbytes);
        *from = src;
        int top = 1;
        while (top < n)
            top <<= 1;
        return top;
    }
    int k = coll_lowbit_log(vr);
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
 *
 * bcast_open records this call and says which case holds: PREV_CLOSED,
 * PREV_SAME_ROOT or PREV_OTHER_ROOT; *prev_v is the previous call's flag.
 */
enum { PREV_CLOSED, PREV_SAME_ROOT, PREV_OTHER_ROOT };

static int bcast_open(struct pshm_team *t, int root, uint64_t e, uint64_t *prev_v)
{
    struct pshm_native_local *l = &t->sym->l;
    int how = !coll_enter(t) ? PREV_CLOSED : l->bcast_root == root ? PREV_SAME_ROOT : PREV_OTHER_ROOT;
    *prev_v = l->bcast_v;
    if (how != PREV_SAME_ROOT)
        l->bcast_run = e;
    l->bcast_open = 1;
    l->bcast_root = root;
    l->bcast_v = PSHM_FLAG(e, 0);
    return how;
}

static int bcast_binomial(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t e = ++t->sym->l.seq, v = PSHM_FLAG(e, 0), prev_v;
    struct pshm_coll_flags *f = &t->sym->f;
    int vr = coll_mod(me - root, n);
    int how = bcast_open(t, root, e, &prev_v);
    uint64_t need = how == PREV_CLOSED ? 0 : how == PREV_SAME_ROOT ? prev_v : v;
    if (vr) {
        int k = coll_lowbit_log(vr);
        coll_notify(&f->bino_rdy[k], v, coll_wpe(t, coll_mod(me - (1 << k), n)));
    }
    const void *from;
    int top = bino_enter(f->bino, v, vr, n, dest, src, nbytes, &from);
    for (int m = top >> 1; m >= 1; m >>= 1) {
        if (vr + m >= n)
            continue;
        int k = coll_lowbit_log(m), w = coll_wpe(t, coll_mod(vr + m + root, n));
        if (need)
            coll_wait(&f->bino_rdy[k], need);
        coll_put(dest, from, nbytes, w);
        coll_signal(&f->bino[k], v, w);
    }
    return 0;
}

/*
 * The eager broadcast never writes into another PE's dest: call e's data
 * goes into slot e % PSHM_EAGER_DEPTH of the child's eager ring (from
 * distance 2^k, so each slot has one writer whatever the root), and the
 * child copies it out during its own call e.  A parent therefore waits
 * only for that slot to be free: the child has entered call
 * e - DEPTH + 1, so is done with call e - DEPTH.  Nothing to wait for
 * when the previous collective was not an open broadcast (every PE
 * entered it) or when the run of broadcasts from this root began after
 * that call (the run began after a closed collective or with a wait for
 * the child's notice); otherwise the child's notice of that call, which
 * every broadcast of the run sent.  In a loop the root thus runs up to
 * DEPTH - 1 calls ahead, and a call costs a slot sent, not a round trip.
 */
static int bcast_eager(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t e = ++t->sym->l.seq, v = PSHM_FLAG(e, 0), prev_v;
    struct pshm_coll_flags *f = &t->sym->f;
    int vr = coll_mod(me - root, n);
    int how = bcast_open(t, root, e, &prev_v);
    uint64_t need = 0;
    if (how == PREV_OTHER_ROOT)
        need = v;
    else if (how == PREV_SAME_ROOT && e + 1 >= t->sym->l.bcast_run + PSHM_EAGER_DEPTH)
        need = PSHM_FLAG(e + 1 - PSHM_EAGER_DEPTH, 0);
    unsigned slot = (unsigned)(e % PSHM_EAGER_DEPTH);
    const void *from = src;
    int top = 1;
    if (vr) {
        int k = coll_lowbit_log(vr);
        coll_notify(&f->bino_rdy[k], v, coll_wpe(t, coll_mod(me - (1 << k), n)));
        struct pshm_inline *in = &f->eager[k][slot];
        coll_wait(&in->flag, v);
        if (nbytes) /* dest may be NULL then */
            memcpy(dest, in->data, nbytes);
        from = in->data;
        top = 1 << k;
    } else {
        if (dest != src && nbytes)
            memmove(dest, src, nbytes);
        while (top < n)
            top <<= 1;
    }
    for (int m = top >> 1; m >= 1; m >>= 1) {
        if (vr + m >= n)
            continue;
        int k = coll_lowbit_log(m), w = coll_wpe(t, coll_mod(vr + m + root, n));
        uint64_t *seen = &t->sym->l.rdy_seen[k];
        if (need > *seen) {
            coll_wait(&f->bino_rdy[k], need);
            *seen = __atomic_load_n(&f->bino_rdy[k], __ATOMIC_ACQUIRE);
        }
        coll_put(f->eager[k][slot].data, from, nbytes, w);
        coll_signal(&f->eager[k][slot].flag, v, w);
    }
    return 0;
}

static int eager_fits(const struct pshm_team *t, size_t nbytes)
{
    return nbytes <= PSHM_INLINE_MAX && t->n_pes <= 1 << PSHM_INLINE_ROUNDS;
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
        coll_signal(&f->bino[coll_lowbit_log(m)], v, w);
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
    if (t->hier)
        return pshm_hier_broadcast(t, dest, src, nbytes, root);
    if (t->msg)
        return pshm_msg_broadcast(t, dest, src, nbytes, root);
    switch (pshm_coll_cfg.algo[PSHM_CEXT_OP_BCAST]) {
    case PSHM_BCAST_BINOMIAL: return bcast_binomial(t, dest, src, nbytes, root);
    case PSHM_BCAST_SCATTER_ALLGATHER: return bcast_scatter_allgather(t, dest, src, nbytes, root);
    case PSHM_BCAST_EAGER:
        if (eager_fits(t, nbytes))
            return bcast_eager(t, dest, src, nbytes, root);
        return bcast_binomial(t, dest, src, nbytes, root);
    default: break;
    }
    if (eager_fits(t, nbytes))
        return bcast_eager(t, dest, src, nbytes, root);
    if (t->n_pes > 2 && nbytes >= ((size_t)64 << 10))
        return bcast_scatter_allgather(t, dest, src, nbytes, root);
    return bcast_binomial(t, dest, src, nbytes, root);
}
