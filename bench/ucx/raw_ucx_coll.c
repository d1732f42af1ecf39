/*
 * The floor under the collectives of N PEs over UCX: N processes (this one
 * and N - 1 forked children), a UCP worker each with the tag feature, and
 * the exchanges the ucx plugin's messages make for an 8-byte reduction,
 * barrier or fcollect of a power of two PEs where PEs outnumber cores
 * (collectives/native_msg.c): log2 N rounds, each PE sending 8 bytes to
 * its partner (rank XOR 2^k) and waiting for the partner's.  Prints the
 * slowest process's time per call.  Waits poll the worker; after
 * RAW_SPINS idle polls (200) they yield once in RAW_YIELD_EVERY (1).
 *
 *   UCX_TLS=tcp raw_ucx_coll [processes] [iterations] [bytes]
 */
#include <stdio.h>
#include <stdlib.h>

#include "raw_ucx.h"
#include "../raw_group.h"

static ucp_ep_h eps[RAW_GROUP_MAX];
static struct raw_group_run a;
static const ucp_request_param_t none = {.op_attr_mask = 0};

static void wait_done(void *req)
{
    if (!req_pending(req))
        return;
    unsigned spins = 0;
    while (ucp_request_check_status(req) == UCS_INPROGRESS)
        if (!ucp_worker_progress(worker))
            raw_idle(&a.policy, &spins);
    ucp_request_free(req);
}

__attribute__((noinline)) static void rounds_loop(long iters, int me, int n)
{
    for (long i = 0; i < iters; i++)
        for (int k = 0; (1 << k) < n; k++) {
            uint64_t tag = (uint64_t)i << 8 | (uint64_t)k;
            void *r = ucp_tag_recv_nbx(worker, a.in, a.bytes, tag, ~(ucp_tag_t)0, &none);
            wait_done(ucp_tag_send_nbx(eps[me ^ (1 << k)], a.out, a.bytes, tag, &none));
            wait_done(r);
            raw_group_fold(&a);
        }
}

int main(int argc, char **argv)
{
    a = raw_group_args(argc, argv, "raw_ucx_coll");
    int n = a.n;
    struct raw_group g = raw_group_fork(n);
    ucp_context_h ctx = raw_ucx_open(UCP_FEATURE_TAG);
    ucp_address_t *addr;
    size_t alen;
    CHECK(ucp_worker_get_address(worker, &addr, &alen));
    raw_group_share(&g, addr, alen);
    for (int i = 0; i < n; i++) {
        if (i == g.me)
            continue;
        ucp_ep_params_t epp = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                               .address = (const ucp_address_t *)g.sh->slot[i]};
        CHECK(ucp_ep_create(worker, &epp, &eps[i]));
    }
    const char *tls = getenv("UCX_TLS");
    char what[64];
    snprintf(what, sizeof what, "ucx %s", tls ? tls : "all");
    raw_group_time(&g, &a, rounds_loop, what);
    /* Every process still progresses while the endpoints close. */
    rounds_loop(1, g.me, n);
    for (int i = 0; i < n; i++) {
        if (i == g.me)
            continue;
        void *r = ucp_ep_close_nbx(eps[i], &(ucp_request_param_t){
                                               .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                               .flags = UCP_EP_CLOSE_FLAG_FORCE});
        if (r && !UCS_PTR_IS_ERR(r))
            wait_done(r);
    }
    raw_group_join(&g);
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    return 0;
}
