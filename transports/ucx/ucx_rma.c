/* Put and get: one ucp_put_nbx/ucp_get_nbx each; UCP splits large ones. */
#include "ucx.h"

static const ucp_request_param_t no_param = {.op_attr_mask = 0};

static inline uint64_t raddr(int pe, int seg, size_t off)
{
    return g.rbase[pe * NREGIONS + seg] + off;
}

static inline __attribute__((always_inline)) void put(pshm_tctx t, int pe, int seg, size_t off,
                                                       const void *src, size_t len)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    ucp_ep_h e = ucx_ep(c, pe);
    void *req = ucp_put_nbx(e, src, len, raddr(pe, seg, off), c->rkey[pe * NREGIONS + seg],
                            &no_param);
    ucx_mark(c, pe);
    /* Small puts complete in place (NULL); a request means src is still
     * being read. */
    if (UNLIKELY(req != NULL))
        ucx_wait(c, req, "ucp_put_nbx", pe);
    LEAVE(c);
}

void ucx_put(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    put(t, pe, seg, off, src, len);
}

/* The value is stored here rather than by the core's p routine (ABI 2.4). */
void ucx_p(pshm_tctx t, int pe, int seg, size_t off, uint64_t value, size_t len)
{
    put(t, pe, seg, off, &value, len);
}

void ucx_put_nbi(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    ucp_ep_h e = ucx_ep(c, pe);
    void *req = ucp_put_nbx(e, src, len, raddr(pe, seg, off), c->rkey[pe * NREGIONS + seg],
                            &no_param);
    ucx_mark(c, pe);
    ucx_release(req, "ucp_put_nbx", pe);
    LEAVE(c);
}

void ucx_get(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    ucp_ep_h e = ucx_ep(c, pe);
    void *req = ucp_get_nbx(e, dst, len, raddr(pe, seg, off), c->rkey[pe * NREGIONS + seg],
                            &no_param);
    if (req != NULL)
        ucx_wait(c, req, "ucp_get_nbx", pe);
    LEAVE(c);
}

void ucx_get_nbi(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    ucp_ep_h e = ucx_ep(c, pe);
    void *req = ucp_get_nbx(e, dst, len, raddr(pe, seg, off), c->rkey[pe * NREGIONS + seg],
                            &no_param);
    ucx_mark(c, pe);
    if (req)
        ucx_keep(c, req, "ucp_get_nbx", pe);
    LEAVE(c);
}
