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
        if (!pshm_g.n_pes)
            pshm_not_init(routine);
        pshm_fatal("%s: address %p is not symmetric (neither in the symmetric heap nor in global "
                   "or static data)",
                   routine, addr);
    }
    return s;
}

__attribute__((cold, noreturn)) static void past_end(const char *routine, const char *what,
                                                     const void *addr, size_t n, int s, size_t off,
                                                     size_t hi)
{
    const char *base = (const char *)addr - off;
    if (s == PSHM_SEG_HEAP)
        pshm_fatal("%s: %s %p + %zu bytes runs past the end of the symmetric heap (%zu bytes at "
                   "%p; SHMEM_SYMMETRIC_SIZE)",
                   routine, what, addr, n, hi, (const void *)base);
    if (s == PSHM_SEG_DATA)
        pshm_fatal("%s: %s %p + %zu bytes runs past the end of the global and static data (%zu "
                   "bytes at %p)",
                   routine, what, addr, n, hi, (const void *)base);
    pshm_fatal("%s: %s %p + %zu bytes runs past the end of its memory space (%zu bytes at %p)",
               routine, what, addr, n, hi, (const void *)base);
}

/* Under SHMEM_DEBUG, a heap range must stay inside one live allocation. */
__attribute__((cold)) static void check_alloc(const char *routine, const char *what,
                                              const void *addr, size_t n, size_t off)
{
    size_t start, len;
    const char *heap = (const char *)pshm_g.heap_lo;
    if (pshm_memory_block_of(off, &start, &len))
        pshm_fatal("%s: %s %p + %zu bytes is not in an allocation (no shmem_malloc block holds "
                   "%p)",
                   routine, what, addr, n, addr);
    if (n > start + len - off)
        pshm_fatal("%s: %s %p + %zu bytes runs past the end of its allocation (%zu bytes at %p)",
                   routine, what, addr, n, len, (const void *)(heap + start));
}

int pshm_range_or_die(const char *routine, const char *what, const void *addr, size_t n,
                      size_t *off)
{
    int s = pshm_seg_or_die(routine, addr, off);
    size_t hi;
    if (s == PSHM_SEG_HEAP) {
        /* The internal area after the user's part is the library's own,
         * which reaches it without this check (pshm_internal_xfer). */
        hi = pshm_g.heap_user_len;
        if (*off >= hi || n > hi - *off)
            past_end(routine, what, addr, n, s, *off, hi);
        if (pshm_g.debug)
            check_alloc(routine, what, addr, n, *off);
        return s;
    }
    hi = s == PSHM_SEG_DATA ? pshm_g.data_len : pshm_space_seg_len(s);
    if (n > hi - *off)
        past_end(routine, what, addr, n, s, *off, hi);
    return s;
}

void pshm_internal_xfer(void *dst, const void *src, size_t n, int pe, int put)
{
    const void *addr = put ? dst : src;
    size_t off = (uintptr_t)addr - pshm_g.heap_lo;
    if (off >= pshm_g.heap_user_len && off < pshm_g.heap_len) {
        (put ? pshm_g.tp->put(pshm_ctx_default.t, pe, PSHM_SEG_HEAP, off, src, n)
             : pshm_g.tp->get(pshm_ctx_default.t, pe, PSHM_SEG_HEAP, off, dst, n));
        return;
    }
    pshm_rma("collective", &pshm_ctx_default, dst, src, n, pe, put, 0);
}

void pshm_p_slow(const char *routine, struct pshm_ctx *c, void *dst, uint64_t v, size_t n, int pe)
{
    pshm_put_slow(routine, c, dst, &v, n, pe, 0);
}

void pshm_p_by_put(pshm_tctx t, int pe, int seg, size_t off, uint64_t v, size_t n)
{
    pshm_g.tp->put(t, pe, seg, off, &v, n);
}

void pshm_put_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi)
{
    pshm_check_pe(routine, pe);
    if (!n)
        return;
    size_t off;
    int s = pshm_range_or_die(routine, "dest", dst, n, &off);
    char *b = pshm_route_base(pe, s);
    if (b) {
        memcpy(b + off, src, n);
        return;
    }
    (nbi ? pshm_g.tp->put_nbi : pshm_g.tp->put)(c->t, pe, s, off, src, n);
}

void pshm_get_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi)
{
    pshm_check_pe(routine, pe);
    if (!n)
        return;
    size_t off;
    int s = pshm_range_or_die(routine, "source", src, n, &off);
    const char *b = pshm_route_base(pe, s);
    if (b) {
        memcpy(dst, b + off, n);
        return;
    }
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

void pshm_not_init(const char *routine)
{
    pshm_fatal("%s: called %s", routine,
               pshm_g.finalized ? "after shmem_finalize" : "before shmem_init");
}

void pshm_bad_pe(const char *routine, int pe)
{
    if (!pshm_g.n_pes)
        pshm_not_init(routine);
    pshm_fatal("%s: pe=%d is out of range; this job has PEs 0 to %d", routine, pe,
               pshm_g.n_pes - 1);
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
    pshm_check_pe(routine, pe);
    if (pshm_g.tp->put_signal) {
        size_t off, sig_off;
        int s = pshm_range_or_die(routine, "dest", dst, n, &off),
            ss = pshm_range_or_die(routine, "sig_addr", sig, sizeof *sig, &sig_off);
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
    pshm_amo_far(routine, c, sig, pe, sig_op == SHMEM_SIGNAL_SET ? PSHM_AMO_SET : PSHM_AMO_ADD,
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
