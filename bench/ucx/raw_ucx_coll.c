/*
 * The floor under the collectives of N PEs over UCX: N processes (this one
 * and N - 1 forked children), a UCP worker each with the tag feature, and
 * the exchanges the ucx plugin's messages make for an 8-byte reduction,
 * barrier or fcollect of a power of two PEs where PEs outnumber cores
 * (collectives/native_msg.c): log2 N rounds, each PE sending 8 bytes to
 * its partner (rank XOR 2^k) and waiting for the partner's, or (shape
 * doubling) 2^k blocks in round k, as the recursive-doubling fcollect,
 * or (shape bcast) a binomial broadcast's edges.
 * Prints the slowest process's time per call.  Waits poll the worker; after
 * RAW_SPINS idle polls (200) they yield once in RAW_YIELD_EVERY (1).
 *
 *   UCX_TLS=tcp raw_ucx_coll [processes] [iterations] [bytes] [exchange|doubling|bcast]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (a.shape == RAW_BCAST) {
        int parent = raw_group_parent(me), first = raw_group_first_child_step(me, n);
        void *sends[RAW_GROUP_MAX];
        for (long i = 0; i < iters; i++) {
            uint64_t tag = (uint64_t)i << 8;
            if (parent >= 0)
                wait_done(ucp_tag_recv_nbx(worker, a.in, a.bytes, tag, ~(ucp_tag_t)0, &none));
            int ns = 0;
            for (int m = first; m; m >>= 1)
                if (me + m < n)
                    sends[ns++] = ucp_tag_send_nbx(eps[me + m], a.in, a.bytes, tag, &none);
            while (ns)
                wait_done(sends[--ns]);
        }
        return;
    }
    for (long i = 0; i < iters; i++)
        for (int k = 0; (1 << k) < n; k++) {
            uint64_t tag = (uint64_t)i << 8 | (uint64_t)k;
            size_t len = raw_group_len(&a, k);
            void *r = ucp_tag_recv_nbx(worker, a.in, len, tag, ~(ucp_tag_t)0, &none);
            wait_done(ucp_tag_send_nbx(eps[me ^ (1 << k)], a.out, len, tag, &none));
            wait_done(r);
            raw_group_fold(&a);
        }
}

int main(int argc, char **argv)
{
    a = raw_group_args(argc, argv, "raw_ucx_coll");
    int n = a.n;
    struct raw_group g = raw_group_fork(n);
    /* As the plugin's messages go over tcp (transports/ucx/ucx_eager.c,
     * whose rule also requires every other transport to share memory):
     * eager up to 1 MiB unless the user set UCX_RNDV_THRESH (=auto for
     * UCX's choice); UCX reads the variable in raw_ucx_open. */
    const char *tls_env = getenv("UCX_TLS"), *rndv = getenv("UCX_RNDV_THRESH");
    if ((!rndv || !*rndv) && tls_env && strstr(tls_env, "tcp"))
        setenv("UCX_RNDV_THRESH", "1m", 1);
    ucp_context_h ctx = raw_ucx_open(UCP_FEATURE_TAG);
    /* Registered, as the plugin's symmetric heap is: a rendezvous from
     * memory UCX does not know goes by copies in fragments, each needing
     * the receiver's progress (32 KiB exchanged in 67-75 us, against
     * 30-36 in the plugin's fcollect from its heap). */
    ucp_mem_h mem[2];
    for (int i = 0; i < 2; i++) {
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
            .address = i ? (void *)a.in : (void *)a.out,
            .length = a.room};
        CHECK(ucp_mem_map(ctx, &mp, &mem[i]));
    }
    ucp_address_t *addr;
    size_t alen;
    CHECK(ucp_worker_get_address(worker, &addr, &alen));
    raw_group_share(&g, addr, alen);
    for (int i = 0; i < n; i++) {
        if (i == g.me)
            continue;
        /* Peer failures reported, as the plugin asks where no transport
         * shares memory (which cannot report them). */
        ucp_ep_params_t epp = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                             UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
                               .address = (const ucp_address_t *)g.sh->slot[i],
                               .err_mode = UCP_ERR_HANDLING_MODE_PEER};
        if (ucp_ep_create(worker, &epp, &eps[i]) != UCS_OK) {
            epp.err_mode = UCP_ERR_HANDLING_MODE_NONE;
            CHECK(ucp_ep_create(worker, &epp, &eps[i]));
        }
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
    for (int i = 0; i < 2; i++)
        ucp_mem_unmap(ctx, mem[i]);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    return 0;
}
