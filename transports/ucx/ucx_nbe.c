/* Explicit requests (nbe): each operation is one UCP request whose
 * callback counts it done in the shmem request that owns it, and a put's
 * or AMO's target endpoints are flushed once its local completions are
 * in (UCP completes a put when its source may be reused, not when it
 * reached the target).  So a request waits for its own gets and fetches
 * and for what its context sent to the PEs its puts went to; nothing
 * else.  Quiet waits for these requests too (c->nbe_pending). */
#include <stdlib.h>
#include <string.h>

#include "ucx.h"
#include "../common/grow.h"

struct ureq {
    struct uctx *c;
    unsigned pending;   /* UCP requests not yet called back */
    int flushed;        /* the flushes of pe[] were issued */
    int npe, cap;
    int *pe;            /* PEs that got puts or AMOs, once each */
};

static void done_cb(void *request, ucs_status_t st, void *user_data)
{
    struct ureq *u = user_data;
    if (UNLIKELY(st != UCS_OK))
        ucx_fail("an explicit request's operation", -1, st);
    __atomic_fetch_sub(&u->pending, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&u->c->nbe_pending, 1, __ATOMIC_RELAXED);
    ucp_request_free(request);
}

static struct ureq *ureq_of(struct uctx *c, pshm_treq *req)
{
    struct ureq *u = (struct ureq *)*req;
    if (LIKELY(u != NULL))
        return u;
    if (!(u = calloc(1, sizeof *u)))
        g.svc->fatal("ucx transport: out of memory for a request");
    u->c = c;
    *req = (pshm_treq)u;
    return u;
}

static void param_of(ucp_request_param_t *p, struct ureq *u)
{
    p->op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p->cb.send = done_cb;
    p->user_data = u;
}

/* An operation's UCP answer: NULL (done), an error, or a request whose
 * callback will come. */
static void track(struct ureq *u, void *r, const char *what, int pe)
{
    if (r == NULL)
        return;
    if (UNLIKELY(UCS_PTR_IS_ERR(r)))
        ucx_fail(what, pe, UCS_PTR_STATUS(r));
    __atomic_fetch_add(&u->pending, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&u->c->nbe_pending, 1, __ATOMIC_RELAXED);
}

static void note_pe(struct ureq *u, int pe)
{
    for (int i = 0; i < u->npe; i++)
        if (u->pe[i] == pe)
            return;
    u->pe = pshm_grow(u->pe, u->npe, &u->cap, sizeof *u->pe, g.svc, "ucx");
    u->pe[u->npe++] = pe;
}

static inline uint64_t raddr(int pe, int r, size_t off) { return g.rbase[pe * NREGIONS + r] + off; }

/* A put joins the PEs its request flushes at completion; a get is
 * complete when its reply is here. */
static void rma_nbe(pshm_tctx t, int pe, int seg, size_t off, void *buf, size_t len,
                    pshm_treq *req, int put)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    struct ureq *u = ureq_of(c, req);
    ucp_request_param_t p = {.op_attr_mask = 0};
    param_of(&p, u);
    ucp_ep_h e = ucx_ep(c, pe);
    uint64_t ra = raddr(pe, seg, off);
    ucp_rkey_h rk = c->rkey[pe * NREGIONS + seg];
    if (put) {
        track(u, ucp_put_nbx(e, buf, len, ra, rk, &p), "ucp_put_nbx", pe);
        ucx_mark(c, pe);
        note_pe(u, pe);
        u->flushed = 0;
    } else {
        track(u, ucp_get_nbx(e, buf, len, ra, rk, &p), "ucp_get_nbx", pe);
    }
    LEAVE(c);
}

void ucx_put_nbe(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req)
{
    rma_nbe(t, pe, seg, off, (void *)src, len, req, 1);
}

void ucx_get_nbe(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len,
                 pshm_treq *req)
{
    rma_nbe(t, pe, seg, off, dst, len, req, 0);
}

/* Every nbe AMO fetches: its reply completes it.  Fetching AND/OR/XOR on
 * a UCX with the bitwise bug (ucx_amo.c) take the blocking detour. */
void ucx_amo_nbe(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
                 const void *compare, void *fetch, pshm_treq *req)
{
    static const ucp_atomic_op_t uop[PSHM_AMO_NOPS] = {
        [PSHM_AMO_ADD] = UCP_ATOMIC_OP_ADD,   [PSHM_AMO_AND] = UCP_ATOMIC_OP_AND,
        [PSHM_AMO_OR] = UCP_ATOMIC_OP_OR,     [PSHM_AMO_XOR] = UCP_ATOMIC_OP_XOR,
        [PSHM_AMO_SWAP] = UCP_ATOMIC_OP_SWAP, [PSHM_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
        [PSHM_AMO_READ] = UCP_ATOMIC_OP_ADD,  [PSHM_AMO_SET] = UCP_ATOMIC_OP_SWAP,
    };
    static const uint64_t zero;
    if (UNLIKELY(g.fetch_bitwise_cas) &&
        (op == PSHM_AMO_AND || op == PSHM_AMO_OR || op == PSHM_AMO_XOR)) {
        ucx_amo(t, pe, seg, off, op, type, operand, compare, fetch, 0);
        return;
    }
    struct uctx *c = CTX(t);
    size_t w = type == PSHM_T_U32 || type == PSHM_T_FLOAT ? 4 : 8;
    const void *buf = operand;
    if (op == PSHM_AMO_READ)
        buf = &zero;
    if (op == PSHM_AMO_CSWAP) {
        /* UCP's compare-and-swap: the buffer is the compare value, the
         * reply buffer carries the new value in and the old one out. */
        memcpy(fetch, operand, w);
        buf = compare;
    }
    ENTER(c);
    struct ureq *u = ureq_of(c, req);
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                             UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                             .datatype = ucp_dt_make_contig(w),
                             .reply_buffer = fetch};
    param_of(&p, u);
    ucp_ep_h e = ucx_ep(c, pe);
    track(u, ucp_atomic_op_nbx(e, uop[op], buf, 1, raddr(pe, seg, off),
                               c->rkey[pe * NREGIONS + seg], &p),
          "ucp_atomic_op_nbx", pe);
    LEAVE(c);
}

int ucx_req_test(pshm_tctx t, pshm_treq req)
{
    struct uctx *c = CTX(t);
    struct ureq *u = (struct ureq *)req;
    int done = 0;
    ENTER(c);
    ucp_worker_progress(c->w);
    if (c != &dflt)
        ucx_progress_target();
    if (__atomic_load_n(&u->pending, __ATOMIC_RELAXED) == 0) {
        if (u->npe && !u->flushed) {
            /* the sources are read: now make the puts reach their targets */
            for (int i = 0; i < u->npe; i++) {
                ucp_request_param_t p = {.op_attr_mask = 0};
                param_of(&p, u);
                track(u, ucp_ep_flush_nbx(c->ep[u->pe[i]], &p), "ucp_ep_flush_nbx", u->pe[i]);
            }
            u->flushed = 1;
        }
        done = __atomic_load_n(&u->pending, __ATOMIC_RELAXED) == 0;
    }
    LEAVE(c);
    if (done) {
        free(u->pe);
        free(u);
    }
    return done;
}

/* Quiet's part: every nbe operation of c called back (c held). */
void ucx_nbe_drain(struct uctx *c)
{
    while (__atomic_load_n(&c->nbe_pending, __ATOMIC_RELAXED)) {
        ucp_worker_progress(c->w);
        if (c != &dflt)
            ucx_progress_target();
    }
}
