/* RMA paths off the on-node fast path: the transport, the data segment,
 * strided transfers, and argument checks. */
#include <stdio.h>

#include "api.h"
#include "error.h"
#include "team.h"

int pshm_seg_or_die(const char *routine, const void *addr, size_t *off)
{
    int s = pshm_seg_of(addr, off);
    if (PSHM_UNLIKELY(s < 0)) {
        if (!pshm_g.heap_len)
            pshm_fatal("%s: called before shmem_init", routine);
        pshm_fatal("%s: address %p is not symmetric (neither in the symmetric heap nor in global "
                   "or static data)",
                   routine, addr);
    }
    return s;
}

void pshm_put_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi)
{
    if (pshm_g.debug)
        pshm_check_pe(routine, pe);
    if (!n)
        return;
    char *b = pshm_mapped(dst, pe);
    if (b) {
        memcpy(b, src, n);
        return;
    }
    size_t off;
    int s = pshm_seg_or_die(routine, dst, &off);
    (nbi ? pshm_g.tp->put_nbi : pshm_g.tp->put)(c->t, pe, s, off, src, n);
}

void pshm_get_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi)
{
    if (pshm_g.debug)
        pshm_check_pe(routine, pe);
    if (!n)
        return;
    const char *b = pshm_mapped(src, pe);
    if (b) {
        memcpy(dst, b, n);
        return;
    }
    size_t off;
    int s = pshm_seg_or_die(routine, src, &off);
    (nbi ? pshm_g.tp->get_nbi : pshm_g.tp->get)(c->t, pe, s, off, dst, n);
}

void pshm_strided(const char *routine, struct pshm_ctx *c, int is_put, void *dest, const void *source, ptrdiff_t dst,
                  ptrdiff_t sst, size_t bsize, size_t nblocks, size_t esize, int pe)
{
    size_t blen = bsize * esize;
    char *d = dest;
    const char *s = source;
    for (size_t i = 0; i < nblocks; i++) {
        if (is_put)
            pshm_put_nbi(routine, c, d + (ptrdiff_t)i * dst * (ptrdiff_t)esize,
                         s + (ptrdiff_t)i * sst * (ptrdiff_t)esize, blen, pe);
        else
            pshm_get_nbi(routine, c, d + (ptrdiff_t)i * dst * (ptrdiff_t)esize,
                         s + (ptrdiff_t)i * sst * (ptrdiff_t)esize, blen, pe);
    }
    /* A blocking get returns with the data; a put needs only its source
     * reusable, which put_nbi does not promise: complete both. */
    if (nblocks && !pshm_mapped(dest, pe) && !pshm_mapped(source, pe))
        pshm_quiet(c);
}

void pshm_check_pe(const char *routine, int pe)
{
    if (pe < 0 || pe >= pshm_g.n_pes) {
        if (!pshm_g.n_pes)
            pshm_fatal("%s: called before shmem_init", routine);
        pshm_fatal("%s: pe=%d is out of range; this job has PEs 0 to %d", routine, pe,
                   pshm_g.n_pes - 1);
    }
}

int pshm_ctx_pe_check(struct pshm_ctx *c, const char *routine, int pe)
{
    if (!c)
        pshm_fatal("%s: ctx is SHMEM_CTX_INVALID", routine);
    int n = c->team ? c->team->n_pes : pshm_g.n_pes;
    if (pe < 0 || pe >= n)
        pshm_fatal("%s: pe=%d is out of range; the context's team has PEs 0 to %d", routine, pe,
                   n - 1);
    return c->pe_world ? c->pe_world[pe] : pe;
}

void pshm_bad_cmp(const char *routine, int cmp)
{
    pshm_fatal("%s: cmp=%d is not a comparison; use SHMEM_CMP_EQ, NE, GT, GE, LT or LE", routine,
               cmp);
}

void pshm_put_signal_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                          size_t n, uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        pshm_fatal("%s: sig_op=%d is not a signal operator; use SHMEM_SIGNAL_SET or "
                   "SHMEM_SIGNAL_ADD",
                   routine, sig_op);
    if (pshm_g.debug && ((uintptr_t)sig & 7))
        pshm_fatal("%s: sig_addr %p is not aligned to 8 bytes", routine, (void *)sig);
    if (pshm_g.tp->put_signal) {
        if (pshm_g.debug)
            pshm_check_pe(routine, pe);
        size_t off, sig_off;
        int s = pshm_seg_or_die(routine, dst, &off), ss = pshm_seg_or_die(routine, sig, &sig_off);
        /* Both through the transport: it orders them itself. */
        if (!pshm_route_base(pe, s) && !pshm_route_amo(pe, ss)) {
            pshm_g.tp->put_signal(c->t, pe, s, off, src, n, ss, sig_off, signal,
                                  sig_op == SHMEM_SIGNAL_SET ? PSHM_AMO_SET : PSHM_AMO_ADD, nbi);
            return;
        }
    }
    pshm_rma(routine, c, dst, src, n, pe, 1, nbi);
    /* The signal must not overtake the data: order them as a fence does. */
    atomic_thread_fence(memory_order_release);
    if (pshm_g.tp->fence)
        pshm_g.tp->fence(c->t);
    pshm_amo_slow(routine, c, sig, pe, sig_op == SHMEM_SIGNAL_SET ? PSHM_AMO_SET : PSHM_AMO_ADD,
                  PSHM_T_U64, &signal, NULL, NULL, nbi);
}

size_t pshm_any_start(size_t nelems)
{
    static _Thread_local uint64_t x = 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return nelems ? (size_t)(x % nelems) : 0;
}
