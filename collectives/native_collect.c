/* fcollect, collect, alltoall(s) of the native component.  Data goes
 * straight into the peers' dest (ready everywhere by the caller's
 * guarantee); a block is written once per PE.
 *   fcollect ring               n-1 steps, each forwarding the block received
 *   fcollect recursive_doubling log2 n exchanges of a growing contiguous range
 *                               (n a power of two; ring otherwise)
 *   fcollect linear             every PE writes its block to every PE, then
 *                               a barrier
 *   fcollect mailbox            blocks under a cache line, all mapped: the
 *                               mailbox alltoall with one source block
 *   collect                     a scan of the sizes gives each PE its offset,
 *                               then linear
 *   alltoall pairwise           step i writes to PE me + i, then a barrier
 *   alltoall linear             every PE writes to PE 0, 1, ... in order
 *   alltoall mailbox            small blocks, all mapped: native_mailbox.c */
#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "coll_config.h"
#include "hier.h"
#include "native_msg.h"

static int fcollect_linear(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    char *d = (char *)dest + (size_t)me * nbytes;
    for (int i = 0; i < n; i++)
        coll_put(d, src, nbytes, coll_wpe(t, (me + i) % n));
    coll_complete();
    return coll_barrier(t);
}

static int fcollect_ring(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    char *d = dest;
    memmove(d + (size_t)me * nbytes, src, nbytes);
    if (n == 1)
        return 0;
    uint64_t e = ++t->sym->l.seq;
    uint64_t *f = &t->sym->f.ring;
    int next = coll_wpe(t, (me + 1) % n);
    for (int s = 0; s < n - 1; s++) {
        size_t b = (size_t)((me - s + n) % n) * nbytes;
        coll_put(d + b, d + b, nbytes, next);
        coll_signal(f, PSHM_FLAG(e, s + 1), next);
        coll_wait(f, PSHM_FLAG(e, s + 1));
    }
    return 0;
}

static int fcollect_rd(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    if (n & (n - 1))
        return fcollect_ring(t, dest, src, nbytes);
    char *d = dest;
    memmove(d + (size_t)me * nbytes, src, nbytes);
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    uint64_t *f = t->sym->f.rd;
    for (int k = 0; (1 << k) < n; k++) {
        int lo = me & ~((1 << k) - 1); /* my range: [lo, lo + 2^k) */
        int w = coll_wpe(t, me ^ (1 << k));
        coll_put(d + (size_t)lo * nbytes, d + (size_t)lo * nbytes, ((size_t)1 << k) * nbytes, w);
        coll_signal(&f[k], v, w);
        coll_wait(&f[k], v);
    }
    return 0;
}

/* Blocks smaller than a cache line share the lines of every dest, which
 * each PE's copy fights over (8 B at 2 PEs: 0.25 us against 0.19 for
 * 64 B); through the mailbox each block rides in its sender's own line. */
static int fcollect_mailbox_fits(const struct pshm_team *t, size_t nbytes)
{
    int a = pshm_coll_cfg.algo[PSHM_CEXT_OP_FCOLLECT];
    size_t max = pshm_native_mailbox_max(t);
    return max && nbytes <= max &&
           (a == PSHM_COLLECT_MAILBOX || (a == PSHM_ALG_AUTO && nbytes < 64));
}

int pshm_native_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    if (t->hier)
        return pshm_hier_fcollect(t, dest, src, nbytes);
    if (t->msg)
        return pshm_msg_fcollect(t, dest, src, nbytes);
    if (fcollect_mailbox_fits(t, nbytes))
        return pshm_native_alltoall_mailbox(t, dest, src, 1, 0, 1, nbytes);
    coll_enter_writing(t);
    switch (pshm_coll_cfg.algo[PSHM_CEXT_OP_FCOLLECT]) {
    case PSHM_COLLECT_RING: return fcollect_ring(t, dest, src, nbytes);
    case PSHM_COLLECT_RECURSIVE_DOUBLING: return fcollect_rd(t, dest, src, nbytes);
    case PSHM_COLLECT_LINEAR: return fcollect_linear(t, dest, src, nbytes);
    default: break;
    }
    int n = t->n_pes;
    /* PEs outnumber cores: every round of waiting costs a trip through the
     * scheduler, so push to everyone and meet once. */
    if (t->all_mapped && pshm_g.oversubscribed && nbytes * (size_t)n <= ((size_t)256 << 10))
        return fcollect_linear(t, dest, src, nbytes);
    if (!(n & (n - 1)) && nbytes * (size_t)n <= ((size_t)256 << 10))
        return fcollect_rd(t, dest, src, nbytes);
    /* On one node every PE copies its block into every dest at once; the
     * ring's n-1 dependent steps left all but one copy waiting. */
    if (t->all_mapped)
        return fcollect_linear(t, dest, src, nbytes);
    return fcollect_ring(t, dest, src, nbytes);
}

/* Inclusive prefix sum of x over the team (Hillis-Steele, log2 n rounds). */
static uint64_t scan_u64(struct pshm_team *t, uint64_t x)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    struct pshm_coll_flags *f = &t->sym->f;
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        if (me + d < n) {
            int w = coll_wpe(t, me + d);
            coll_put(&f->scan_val[k], &x, sizeof x, w);
            coll_signal(&f->scan[k], v, w);
        }
        if (me - d >= 0) {
            coll_wait(&f->scan[k], v);
            x += __atomic_load_n(&f->scan_val[k], __ATOMIC_RELAXED);
        }
    }
    return x;
}

int pshm_native_collect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    if (t->msg)
        return pshm_msg_collect(t, dest, src, nbytes);
    coll_enter_writing(t);
    size_t off = (size_t)scan_u64(t, nbytes) - nbytes;
    char *d = (char *)dest + off;
    for (int i = 0; i < n; i++)
        coll_put(d, src, nbytes, coll_wpe(t, (me + i) % n));
    coll_complete();
    return coll_barrier(t);
}

/* The mailbox where it fits, when chosen or by default: its flags ride
 * with the data, where the others store into shared lines of each dest and
 * then meet. */
static int use_mailbox(const struct pshm_team *t, size_t bytes)
{
    int a = pshm_coll_cfg.algo[PSHM_CEXT_OP_ALLTOALL];
    size_t max = pshm_native_mailbox_max(t); /* 0: not on this team (even for 0 bytes) */
    return (a == PSHM_ALG_AUTO || a == PSHM_ALLTOALL_MAILBOX) && max && bytes <= max;
}

int pshm_native_alltoall(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    if (t->msg)
        return pshm_msg_alltoalls(t, dest, src, 1, 1, nbytes, 1);
    if (t->hier && pshm_coll_msg_usable(t))
        return pshm_hier_alltoalls(t, dest, src, 1, 1, nbytes, 1);
    if (use_mailbox(t, nbytes))
        return pshm_native_alltoall_mailbox(t, dest, src, 1, 1, nbytes, 1);
    coll_enter_writing(t);
    int linear = pshm_coll_cfg.algo[PSHM_CEXT_OP_ALLTOALL] == PSHM_ALLTOALL_LINEAR;
    for (int i = 0; i < n; i++) {
        int pe = linear ? i : (me + i) % n;
        coll_put((char *)dest + (size_t)me * nbytes, (const char *)src + (size_t)pe * nbytes,
                 nbytes, coll_wpe(t, pe));
    }
    coll_complete();
    return coll_barrier(t);
}

int pshm_native_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esize)
{
    int n = t->n_pes, me = t->my_pe;
    if (t->msg)
        return pshm_msg_alltoalls(t, dest, src, dst, sst, nelems, esize);
    if (t->hier && pshm_coll_msg_usable(t))
        return pshm_hier_alltoalls(t, dest, src, dst, sst, nelems, esize);
    if (use_mailbox(t, nelems * esize))
        return pshm_native_alltoall_mailbox(t, dest, src, dst, sst, nelems, esize);
    coll_enter_writing(t);
    int linear = pshm_coll_cfg.algo[PSHM_CEXT_OP_ALLTOALL] == PSHM_ALLTOALL_LINEAR;
    for (int i = 0; i < n; i++) {
        int pe = linear ? i : (me + i) % n, w = coll_wpe(t, pe);
        char *d = (char *)dest + (ptrdiff_t)((size_t)me * nelems) * dst * (ptrdiff_t)esize;
        const char *s = (const char *)src + (ptrdiff_t)((size_t)pe * nelems) * sst * (ptrdiff_t)esize;
        if (dst == 1 && sst == 1) {
            coll_put(d, s, nelems * esize, w);
            continue;
        }
        char *p = w == pshm_g.my_pe ? d : pshm_mapped(d, w);
        if (p) {
            for (size_t j = 0; j < nelems; j++)
                memmove(p + (ptrdiff_t)j * dst * (ptrdiff_t)esize, s + (ptrdiff_t)j * sst * (ptrdiff_t)esize, esize);
        } else if (nelems) {
            pshm_strided(pshm_coll_routine, &pshm_ctx_default, 1, d, s, dst, sst, 1, nelems, esize, w);
        }
    }
    coll_complete();
    return coll_barrier(t);
}
