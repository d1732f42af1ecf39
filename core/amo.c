/* AMOs off the fast path: argument checks (SHMEM_DEBUG), CPU atomics on
 * mapped memory, and the transport for everything else. */
#include "api.h"
#include "error.h"

static void cpu_amo(void *p, int op, int type, const void *operand, const void *compare,
                    void *fetch)
{
    if (type == PSHM_T_U32 || type == PSHM_T_FLOAT) {
        uint32_t v, c = 0, r;
        memcpy(&v, operand, 4);
        if (compare)
            memcpy(&c, compare, 4);
        r = PSHM_CPU_AMO((uint32_t *)p, op, v, c);
        if (fetch)
            memcpy(fetch, &r, 4);
    } else {
        uint64_t v, c = 0, r;
        memcpy(&v, operand, 8);
        if (compare)
            memcpy(&c, compare, 8);
        r = PSHM_CPU_AMO((uint64_t *)p, op, v, c);
        if (fetch)
            memcpy(fetch, &r, 8);
    }
}

/* What pshm_amo_far did not send straight to the transport: a PE out of
 * range, a word on a mapped PE that the inline test missed (a space, a
 * signal from put-with-signal's slow path), bounds errors and SHMEM_DEBUG's
 * checks, all by the general segment test. */
static void amo_slow(const char *routine, struct pshm_ctx *c, void *dst, int pe, int op,
                     int type, const void *operand, const void *compare, void *fetch, int nbi)
{
    pshm_check_pe(routine, pe);
    size_t w = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? 4 : 8;
    size_t off;
    int s = pshm_range_or_die(routine, "dest", dst, w, &off);
    if (pshm_g.debug && (off & (w - 1)))
        pshm_fatal("%s: address %p is not aligned to its %zu-byte type", routine, dst, w);
    char *b = pshm_route_amo(pe, s);
    if (b) {
        cpu_amo(b + off, op, type, operand, compare, fetch);
        if (!fetch) /* as on the fast path: a non-fetching AMO may be a signal */
            pshm_wake_check(pe, dst);
        return;
    }
    pshm_g.tp->amo(c->t, pe, s, off, op, type, operand, compare, fetch, nbi);
}

/* With the bypass off every AMO comes here: a word of the heap or the
 * global data of a PE reached through the transport goes straight to it,
 * skipping the general checks (about 50 instructions).  Out of line, so
 * that the inline entry points keep the on-node path's code as it was.
 * The start alone is compared, as pshm_amo_addr does. */
void pshm_amo_far(const char *routine, struct pshm_ctx *c, void *dst, int pe, int op, int type,
                  const void *operand, const void *compare, void *fetch, int nbi)
{
    if (PSHM_LIKELY(PSHM_PE_OK(pe))) {
        int s = PSHM_SEG_HEAP;
        uintptr_t off = (uintptr_t)dst - pshm_g.heap_lo;
        if (off >= pshm_g.heap_fast_len) {
            s = PSHM_SEG_DATA;
            off = (uintptr_t)dst - pshm_g.data_lo;
            if (off >= pshm_g.data_fast_len)
                goto slow;
        }
        if (PSHM_LIKELY(!pshm_g.amo_route[s][pe])) {
            pshm_g.tp->amo(c->t, pe, s, off, op, type, operand, compare, fetch, nbi);
            return;
        }
    }
slow:
    amo_slow(routine, c, dst, pe, op, type, operand, compare, fetch, nbi);
}

uint64_t pshm_internal_amo(int pe, uint64_t *addr, int op, uint64_t v, uint64_t cmp)
{
    size_t off = (uintptr_t)addr - pshm_g.heap_lo;
    uint64_t old = 0;
    char *b = pe == pshm_g.my_pe ? (char *)pshm_g.heap_lo : pshm_route_amo(pe, PSHM_SEG_HEAP);
    if (b) {
        cpu_amo(b + off, op, PSHM_T_U64, &v, &cmp, &old);
        pshm_wake_check(pe, addr);
        return old;
    }
    pshm_g.tp->amo(pshm_ctx_default.t, pe, PSHM_SEG_HEAP, off, op, PSHM_T_U64, &v, &cmp, &old, 0);
    return old;
}
