/* Atomics.  Fetching ones always wait: their operand is on the caller's
 * stack. */
#include "ofi.h"

const enum fi_op amo_fiop[PSHM_AMO_NOPS] = {
    [PSHM_AMO_ADD] = FI_SUM,          [PSHM_AMO_AND] = FI_BAND,
    [PSHM_AMO_OR] = FI_BOR,           [PSHM_AMO_XOR] = FI_BXOR,
    [PSHM_AMO_SWAP] = FI_ATOMIC_WRITE, [PSHM_AMO_CSWAP] = FI_CSWAP,
    [PSHM_AMO_READ] = FI_ATOMIC_READ, [PSHM_AMO_SET] = FI_ATOMIC_WRITE,
};

void ofi_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type,
             const void *operand, const void *compare, void *fetch, int nbi)
{
    (void)nbi; /* fetching AMOs always wait: their operand is on the caller's stack */
    struct octx *c = CTX(t);
    enum fi_datatype dt = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? FI_UINT32 : FI_UINT64;
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    enum fi_op fop = amo_fiop[op];
    uint64_t tmp = 0, zero = 0;

    if (op == PSHM_AMO_READ && !fetch)
        return;
    if (!operand)
        operand = &zero;
    ENTER(c);
    if (op == PSHM_AMO_CSWAP) {
        ISSUE(c, "fi_compare_atomic",
              fi_compare_atomic(c->ep, operand, 1, NULL, compare, NULL, fetch ? fetch : &tmp, NULL,
                                (fi_addr_t)pe, raddr, r->key, dt, FI_CSWAP, NULL));
        ofi_wait_all(c);
    } else if (fetch) {
        ISSUE(c, "fi_fetch_atomic",
              fi_fetch_atomic(c->ep, operand, 1, NULL, fetch, NULL, (fi_addr_t)pe, raddr, r->key,
                              dt, fop, NULL));
        ofi_wait_all(c);
    } else if (LIKELY(!g.amo_flags)) {
        ISSUE(c, "fi_inject_atomic",
              fi_inject_atomic(c->ep, operand, 1, (fi_addr_t)pe, raddr, r->key, dt, fop));
        if (g.amo_flush && !c->is_dirty[pe]) {
            c->is_dirty[pe] = 1;
            c->dirty[c->ndirty++] = pe;
        }
    } else {
        struct fi_ioc ioc = {(void *)operand, 1};
        struct fi_rma_ioc rioc = {raddr, 1, r->key};
        struct fi_msg_atomic m = {.msg_iov = &ioc, .desc = NULL, .iov_count = 1,
                                  .addr = (fi_addr_t)pe, .rma_iov = &rioc, .rma_iov_count = 1,
                                  .datatype = dt, .op = fop, .context = NULL, .data = 0};
        ISSUE(c, "fi_atomicmsg", fi_atomicmsg(c->ep, &m, FI_INJECT | g.amo_flags));
    }
    LEAVE(c);
}
