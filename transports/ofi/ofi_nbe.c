#include "ofi.h"

/* ---- explicit requests (nbe) ----------------------------------------
 * One counter per endpoint counts completions in any order, so a count
 * of the request's own operations cannot be told apart from later ones.
 * A request's word is instead its context's issued count after its last
 * operation (a mark); it is complete once the counter has been seen to
 * reach the issued count at some moment after that mark (c->done): then
 * everything issued up to that moment is complete, the request's
 * operations among it.  On a private context this waits only for the
 * thread's own operations; one more fi_cntr_read per test, no extra
 * resources.  Per-operation completions (FI_COMPLETION and a CQ entry per
 * operation) would be exact, but the CQ path corrupted atomics on the shm
 * provider (see poll_ep). */

void ofi_put_nbe(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_issue(c, pe, seg, off, src, len);
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

void ofi_get_nbe(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len,
                 pshm_treq *req)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

/* Every nbe AMO fetches; the core keeps operand and compare alive until
 * the request completes, so nothing is waited for here. */
void ofi_amo_nbe(pshm_tctx t, int pe, int seg, size_t off, int op, int type,
                 const void *operand, const void *compare, void *fetch, pshm_treq *req)
{
    struct octx *c = CTX(t);
    enum fi_datatype dt = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? FI_UINT32 : FI_UINT64;
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    ENTER(c);
    if (op == PSHM_AMO_CSWAP)
        ISSUE(c, "fi_compare_atomic",
              fi_compare_atomic(c->ep, operand, 1, NULL, compare, NULL, fetch, NULL, (fi_addr_t)pe,
                                raddr, r->key, dt, FI_CSWAP, NULL));
    else
        ISSUE(c, "fi_fetch_atomic",
              fi_fetch_atomic(c->ep, operand, 1, NULL, fetch, NULL, (fi_addr_t)pe, raddr, r->key,
                              dt, amo_fiop[op], NULL));
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

int ofi_req_test(pshm_tctx t, pshm_treq mark)
{
    struct octx *c = CTX(t);
    int ok = 0;
    ENTER(c);
    if (c->done >= (uint64_t)mark) {
        ok = 1;
    } else {
        uint64_t issued = c->issued;
        if (fi_cntr_read(c->cntr) >= issued) {
            c->done = issued;
            ok = 1;
        } else {
            if (UNLIKELY(fi_cntr_readerr(c->cntr)))
                ofi_op_error(c);
            if (c != &dflt)
                ofi_progress_target();
        }
    }
    LEAVE(c);
    return ok;
}
