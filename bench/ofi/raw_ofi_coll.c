/*
 * The floor under the collectives of N PEs over libfabric: N processes
 * (this one and N - 1 forked children), an RDM endpoint each with what the
 * ofi plugin asks for, and the exchanges the plugin's messages make for an
 * 8-byte reduction, barrier or fcollect of a power of two PEs where PEs
 * outnumber cores (collectives/native_msg.c): log2 N rounds, each PE
 * sending 8 bytes to its partner (rank XOR 2^k, fi_tinject) and reading
 * the CQ until the partner's has come, or (shape doubling) 2^k blocks in
 * round k, as the recursive-doubling fcollect, or (shape bcast) a binomial
 * broadcast's edges.  Prints the slowest process's time
 * per call.  Waits read the CQ; after RAW_SPINS idle reads (200) they
 * yield once in RAW_YIELD_EVERY (1).
 *
 *   FI_PROVIDER=tcp\;ofi_rxm raw_ofi_coll [processes] [iterations] [bytes] [exchange|doubling|bcast]
 */
#include <stdio.h>
#include <stdlib.h>

#include "raw_ofi.h"
#include "../raw_group.h"

static struct fid_ep *ep;
static struct fid_cq *cq;
static fi_addr_t fa[RAW_GROUP_MAX];
static struct raw_group_run a;
static size_t inject_max;
static int sends; /* sends whose completion is still to be read */

/* Injected where the provider allows it (the plugin's way); else sent
 * and its completion read. */
static void send(const uint64_t *buf, size_t len, int to, uint64_t tag)
{
    ssize_t rc;
    if (len <= inject_max) {
        while ((rc = fi_tinject(ep, buf, len, fa[to], tag)) == -FI_EAGAIN)
            (void)fi_cq_read(cq, NULL, 0);
        CHECK(rc);
        return;
    }
    struct iovec iov = {(void *)buf, len};
    struct fi_msg_tagged m = {
        .msg_iov = &iov, .iov_count = 1, .addr = fa[to], .tag = tag, .context = (void *)buf};
    while ((rc = fi_tsendmsg(ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        (void)fi_cq_read(cq, NULL, 0);
    CHECK(rc);
    sends++;
}

/* Reads the CQ until want completions (and any send's) have come. */
static void wait_cq(int want)
{
    struct fi_cq_entry e;
    unsigned spins = 0;
    for (int left = want + sends; left;) {
        ssize_t rc = fi_cq_read(cq, &e, 1);
        if (rc == -FI_EAGAIN) {
            raw_idle(&a.policy, &spins);
            continue;
        }
        if (rc != 1) {
            fprintf(stderr, "fi_cq_read: %s\n", fi_strerror((int)-rc));
            exit(1);
        }
        left--;
    }
    sends = 0;
}

static void wait_recv(void) { wait_cq(1); }
static void wait_sends(void) { wait_cq(0); }

__attribute__((noinline)) static void rounds_loop(long iters, int me, int n)
{
    if (a.shape == RAW_BCAST) {
        int parent = raw_group_parent(me), first = raw_group_first_child_step(me, n);
        for (long i = 0; i < iters; i++) {
            uint64_t tag = (uint64_t)i << 8;
            if (parent >= 0) {
                raw_ofi_post_trecv(ep, cq, a.in, a.bytes, tag);
                wait_recv();
            }
            for (int m = first; m; m >>= 1)
                if (me + m < n)
                    send(a.in, a.bytes, me + m, tag);
            if (sends)
                wait_sends();
        }
        return;
    }
    for (long i = 0; i < iters; i++)
        for (int k = 0; (1 << k) < n; k++) {
            uint64_t tag = (uint64_t)i << 8 | (uint64_t)k;
            size_t len = raw_group_len(&a, k);
            raw_ofi_post_trecv(ep, cq, a.in, len, tag);
            send(a.out, len, me ^ (1 << k), tag);
            wait_recv();
            raw_group_fold(&a);
        }
}

int main(int argc, char **argv)
{
    a = raw_group_args(argc, argv, "raw_ofi_coll");
    int n = a.n;
    struct raw_group g = raw_group_fork(n);
    struct raw_ofi r;
    raw_ofi_open(FI_RMA | FI_ATOMIC | FI_TAGGED, n, &r);
    cq = r.cq;
    CHECK(fi_endpoint(r.dom, r.info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &r.av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_enable(ep));
    inject_max = r.info->tx_attr->inject_size;
    char addr[256];
    size_t alen = sizeof addr;
    CHECK(fi_getname(&ep->fid, addr, &alen));
    raw_group_share(&g, addr, alen);
    for (int i = 0; i < n; i++)
        if (fi_av_insert(r.av, g.sh->slot[i], 1, &fa[i], 0, NULL) != 1)
            return 1;
    raw_group_time(&g, &a, rounds_loop, r.info->fabric_attr->prov_name);
    /* The partners may still wait for this side's last messages' progress. */
    rounds_loop(1, g.me, n);
    raw_group_join(&g);
    fi_close(&ep->fid);
    raw_ofi_close(&r);
    return 0;
}
