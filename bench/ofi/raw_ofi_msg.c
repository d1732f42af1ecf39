/*
 * The floor under the collectives between two PEs over libfabric: two
 * processes (this one and a forked child), an RDM endpoint each with what
 * the ofi plugin asks for (RMA, atomics and tagged messages; its MR modes
 * and threading), and both loops the plugin's messages make
 * (transports/ofi/ofi_msg.c):
 *   exchange8  both post a receive (fi_trecvmsg, FI_COMPLETION), send 8
 *              bytes to the other at once (fi_tinject) and read the CQ
 *              until the receive is done: a 2-PE barrier, reduction,
 *              fcollect or alltoall of 8 bytes is one of these
 *   pingpong8  half a round trip: the one-way latency a tree's step costs
 *
 *   FI_PROVIDER=tcp\;ofi_rxm raw_ofi_msg [iterations]
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_tagged.h>

#include "raw_ofi.h"

static struct fid_ep *ep;
static struct fid_cq *cq;
static fi_addr_t peer;

static void post_recv(uint64_t *buf, uint64_t tag) { raw_ofi_post_trecv(ep, cq, buf, 8, tag); }

static void send8(const uint64_t *buf, uint64_t tag)
{
    ssize_t rc;
    while ((rc = fi_tinject(ep, buf, 8, peer, tag)) == -FI_EAGAIN)
        (void)fi_cq_read(cq, NULL, 0);
    CHECK(rc);
}

static void wait_recv(void)
{
    struct fi_cq_entry e;
    ssize_t rc;
    unsigned spins = 0;
    while ((rc = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN)
        if (++spins > 200)
            sched_yield();
    if (rc != 1) {
        fprintf(stderr, "fi_cq_read: %s\n", fi_strerror((int)-rc));
        exit(1);
    }
}

__attribute__((noinline)) static void exchange_loop(long n)
{
    static uint64_t out, in;
    for (long i = 0; i < n; i++) {
        post_recv(&in, (uint64_t)i);
        out = (uint64_t)i;
        send8(&out, (uint64_t)i);
        wait_recv();
    }
}

__attribute__((noinline)) static void pingpong_loop(long n, int me)
{
    static uint64_t out, in;
    for (long i = 0; i < n; i++) {
        post_recv(&in, (uint64_t)i);
        if (me == 0) {
            send8(&out, (uint64_t)i);
            wait_recv();
        } else {
            wait_recv();
            send8(&out, (uint64_t)i);
        }
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    struct raw_pair pair = raw_pair_fork();
    int me = pair.me, wr = pair.wr, rd = pair.rd;
    pid_t child = pair.child;
    struct raw_ofi r;
    raw_ofi_open(FI_RMA | FI_ATOMIC | FI_TAGGED, 2, &r);
    struct fi_info *info = r.info;
    struct fid_domain *dom = r.dom;
    struct fid_av *av = r.av;
    cq = r.cq;
    CHECK(fi_endpoint(dom, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_enable(ep));
    char addr[2][256];
    size_t alen = sizeof addr[0];
    CHECK(fi_getname(&ep->fid, addr[me], &alen));
    if (write(wr, addr[me], sizeof addr[me]) != sizeof addr[me] ||
        read(rd, addr[!me], sizeof addr[!me]) != sizeof addr[!me])
        return 1;
    fi_addr_t fa[2];
    if (fi_av_insert(av, addr[0], 1, &fa[0], 0, NULL) != 1 ||
        fi_av_insert(av, addr[1], 1, &fa[1], 0, NULL) != 1)
        return 1;
    peer = fa[!me];
    double ex, pp;
    raw_pair_time_msgs(exchange_loop, pingpong_loop, iters, me, &ex, &pp);
    if (me == 0)
        printf("raw %-10s exchange8 %8.3f us   pingpong8 (one way) %8.3f us\n",
               info->fabric_attr->prov_name, ex, pp);
    /* The peer may still wait for this side's last message's progress. */
    exchange_loop(1);
    if (me == 0)
        waitpid(child, NULL, 0);
    else
        sleep(1);
    fi_close(&ep->fid);
    raw_ofi_close(&r);
    return 0;
}
