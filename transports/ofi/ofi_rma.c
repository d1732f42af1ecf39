/* Put and get. */
#include "ofi.h"

void ofi_write_msg(struct octx *c, int pe, uint64_t raddr, uint64_t key, const void *src,
                   size_t len, uint64_t flags)
{
    struct iovec iov = {(void *)src, len};
    struct fi_rma_iov riov = {raddr, len, key};
    struct fi_msg_rma m = {.msg_iov = &iov, .desc = NULL, .iov_count = 1, .addr = (fi_addr_t)pe,
                           .rma_iov = &riov, .rma_iov_count = 1, .context = NULL, .data = 0};
    ISSUE(c, "fi_writemsg", fi_writemsg(c->ep, &m, flags));
}

__attribute__((noinline)) static void put_rest(struct octx *c, int pe, int seg, size_t off,
                                               const void *src, size_t len)
{
    if (put_issue(c, pe, seg, off, src, len))
        ofi_wait_all(c);
}

static inline __attribute__((always_inline)) void put(pshm_tctx t, int pe, int seg, size_t off,
                                                       const void *src, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_rest(c, pe, seg, off, src, len);
    LEAVE(c);
}

void ofi_put(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    put(t, pe, seg, off, src, len);
}

/* The value is stored here, on this function's stack, rather than by the
 * core's p routine, which then passes it on in a tail call (ABI 2.4). */
void ofi_p(pshm_tctx t, int pe, int seg, size_t off, uint64_t value, size_t len)
{
    put(t, pe, seg, off, &value, len);
}

/* The source of a put_nbi may not be changed before the next quiet, so a
 * large one is left in flight. */
void ofi_put_nbi(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_issue(c, pe, seg, off, src, len);
    LEAVE(c);
}

void ofi_get(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    ofi_wait_all(c);
    LEAVE(c);
}

void ofi_get_nbi(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    LEAVE(c);
}
