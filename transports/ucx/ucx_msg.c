/* Tagged messages (ABI 2.5) on the default worker: the collectives' way
 * between nodes.  UCP matches a message to a receive by tag alone, keeps
 * the unexpected ones, and matches those of one sender and tag in order:
 * the ABI's contract as it stands. */
#include "ucx.h"

static void complete(void *req, ucs_status_t st, void *done, const char *what)
{
    if (UNLIKELY(st != UCS_OK))
        ucx_fail(what, -1, st);
    __atomic_store_n((uint64_t *)done, 1, __ATOMIC_RELEASE);
    ucp_request_free(req);
}

static void sent(void *req, ucs_status_t st, void *done)
{
    complete(req, st, done, "a collective's message (ucp_tag_send_nbx)");
}

static void received(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *done)
{
    (void)info;
    complete(req, st, done, "a collective's message (ucp_tag_recv_nbx)");
}

/* NULL: done at once (UCP calls back only for a request it returned). */
static void issued(void *r, const char *what, int pe, uint64_t *done)
{
    if (UNLIKELY(UCS_PTR_IS_ERR(r)))
        ucx_fail(what, pe, UCS_PTR_STATUS(r));
    if (!r)
        __atomic_store_n(done, 1, __ATOMIC_RELEASE);
}

void ucx_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = sent,
        .user_data = done,
    };
    /* The program is in the library: the progress thread may rest.  A
     * broadcast's root only sends, and never waits to say so otherwise. */
    pshm_progress_poke(&g.pt);
    ENTER(&dflt);
    void *r = ucp_tag_send_nbx(ucx_ep(&dflt, pe), buf, len, tag, &prm);
    LEAVE(&dflt);
    issued(r, "a collective's message (ucp_tag_send_nbx)", pe, done);
}

void ucx_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv = received,
        .user_data = done,
    };
    ENTER(&dflt);
    void *r = ucp_tag_recv_nbx(dflt.w, buf, len, tag, ~(ucp_tag_t)0, &prm);
    LEAVE(&dflt);
    issued(r, "a collective's message (ucp_tag_recv_nbx)", -1, done);
}
