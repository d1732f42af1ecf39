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
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        int rc_ = (int)(x);                                                                        \
        if (rc_) {                                                                                 \
            fprintf(stderr, "%s: %s\n", #x, fi_strerror(-rc_));                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct fid_ep *ep;
static struct fid_cq *cq;
static fi_addr_t peer;

static void post_recv(uint64_t *buf, uint64_t tag)
{
    struct iovec iov = {buf, 8};
    struct fi_msg_tagged m = {
        .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .tag = tag, .context = buf};
    ssize_t rc;
    while ((rc = fi_trecvmsg(ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        (void)fi_cq_read(cq, NULL, 0);
    CHECK(rc);
}

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
    int a2b[2], b2a[2];
    if (pipe(a2b) || pipe(b2a))
        return 1;
    pid_t child = fork();
    int me = child == 0;
    struct fi_info *h = fi_allocinfo(), *info;
    h->caps = FI_RMA | FI_ATOMIC | FI_TAGGED;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &info));
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    CHECK(fi_fabric(info->fabric_attr, &fab, NULL));
    CHECK(fi_domain(fab, info, &dom, NULL));
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = 2};
    CHECK(fi_av_open(dom, &ava, &av, NULL));
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    CHECK(fi_cq_open(dom, &cqa, &cq, NULL));
    CHECK(fi_endpoint(dom, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_enable(ep));
    char addr[2][256];
    size_t alen = sizeof addr[0];
    CHECK(fi_getname(&ep->fid, addr[me], &alen));
    int wr = me ? b2a[1] : a2b[1], rd = me ? a2b[0] : b2a[0];
    if (write(wr, addr[me], sizeof addr[me]) != sizeof addr[me] ||
        read(rd, addr[!me], sizeof addr[!me]) != sizeof addr[!me])
        return 1;
    fi_addr_t fa[2];
    if (fi_av_insert(av, addr[0], 1, &fa[0], 0, NULL) != 1 ||
        fi_av_insert(av, addr[1], 1, &fa[1], 0, NULL) != 1)
        return 1;
    peer = fa[!me];
    exchange_loop(iters / 10); /* warm up (connection) */
    double t0 = now();
    exchange_loop(iters);
    double ex = (now() - t0) / (double)iters * 1e6;
    pingpong_loop(iters / 10, me);
    t0 = now();
    pingpong_loop(iters, me);
    double pp = (now() - t0) / (double)iters * 1e6 / 2;
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
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
    fi_freeinfo(info);
    fi_freeinfo(h);
    return 0;
}
