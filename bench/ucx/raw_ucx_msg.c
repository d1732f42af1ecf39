/*
 * The floor under the collectives between two PEs over UCX: two processes
 * (this one and a forked child), a UCP worker each with the tag feature,
 * and both loops the ucx plugin's messages make (transports/ucx/ucx_msg.c):
 *   exchange8  both post a receive, send 8 bytes to the other at once, and
 *              wait for both: a 2-PE barrier, reduction, fcollect or
 *              alltoall of 8 bytes is one of these
 *   pingpong8  half a round trip: the one-way latency a tree's step costs
 * Waiting polls the worker as the plugin's waits do (progress; after 200
 * idle polls sched_yield).  UCX_TLS chooses the transports.
 *
 *   UCX_TLS=tcp raw_ucx_msg [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_ucx.h"

static ucp_ep_h ep;

static const ucp_request_param_t none = {.op_attr_mask = 0};

static void *recv8(uint64_t *buf, uint64_t tag)
{
    return ucp_tag_recv_nbx(worker, buf, 8, tag, ~(ucp_tag_t)0, &none);
}

__attribute__((noinline)) static void exchange_loop(long n)
{
    static uint64_t out, in;
    for (long i = 0; i < n; i++) {
        void *r = recv8(&in, (uint64_t)i);
        out = (uint64_t)i;
        wait_req(ucp_tag_send_nbx(ep, &out, 8, (uint64_t)i, &none));
        wait_req(r);
    }
}

__attribute__((noinline)) static void pingpong_loop(long n, int me)
{
    static uint64_t out, in;
    for (long i = 0; i < n; i++) {
        if (me == 0) {
            void *r = recv8(&in, (uint64_t)i);
            wait_req(ucp_tag_send_nbx(ep, &out, 8, (uint64_t)i, &none));
            wait_req(r);
        } else {
            wait_req(recv8(&in, (uint64_t)i));
            wait_req(ucp_tag_send_nbx(ep, &out, 8, (uint64_t)i, &none));
        }
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    struct raw_pair pair = raw_pair_fork();
    int me = pair.me, wr = pair.wr, rd = pair.rd;
    pid_t child = pair.child;
    ucp_context_h ctx = raw_ucx_open(UCP_FEATURE_TAG);
    ucp_address_t *addr;
    size_t alen;
    CHECK(ucp_worker_get_address(worker, &addr, &alen));
    if (put_all(wr, addr, alen))
        return 1;
    void *paddr = get_all(rd);
    ucp_ep_params_t epp = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = paddr};
    CHECK(ucp_ep_create(worker, &epp, &ep));
    double ex, pp;
    raw_pair_time_msgs(exchange_loop, pingpong_loop, iters, me, &ex, &pp);
    if (me == 0) {
        const char *tls = getenv("UCX_TLS");
        printf("raw ucx %-10s exchange8 %8.3f us   pingpong8 (one way) %8.3f us\n",
               tls ? tls : "all", ex, pp);
    }
    /* Both still progress while the endpoints close (a flushing close). */
    exchange_loop(1);
    void *r = ucp_ep_close_nbx(ep, &(ucp_request_param_t){.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                                           .flags = UCP_EP_CLOSE_FLAG_FORCE});
    if (r && !UCS_PTR_IS_ERR(r))
        wait_req(r);
    if (me == 0)
        waitpid(child, NULL, 0);
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    return 0;
}
