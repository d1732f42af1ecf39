/*
 * The raw-libfabric baseline for ofi_put: two processes (this one and a
 * forked child), one RDM endpoint each, a counter bound to writes, and the
 * same two loops: fi_inject_write 8 B + wait for the counter, and windows
 * of fi_inject_write + one counter wait.  It asks for what the ofi plugin
 * asks for (FI_MR_VIRT_ADDR|PROV_KEY|ALLOCATED|ENDPOINT, FI_THREAD_SAFE)
 * and completes writes the way the plugin does on that provider: plain
 * inject on shm (CMA writes are complete at once), inject with
 * FI_DELIVERY_COMPLETE elsewhere.  The child polls its counter (progress)
 * until the parent is done.  It also prints how much the parent's resident
 * set grew per put over the timed put8+wait loop: libfabric's own memory
 * per operation, the floor under the ofi plugin's (tests/rss).
 *
 *   FI_PROVIDER=tcp\;ofi_rxm raw_ofi_put [iterations] [window]
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_rma.h>

#include "raw_ofi.h"

struct card {
    uint64_t base, key;
    size_t len;
    char addr[256];
};

/* The resident set in KiB, from /proc/self/statm. */
static long rss_kib(void)
{
    long pages = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static struct fid_ep *ep;
static struct fid_cntr *cntr;
static uint64_t issued, flags, raddr, rkey;
static int use_msg;

static inline void put8(const void *src, uint64_t off)
{
    ssize_t rc;
    if (!use_msg) {
        while ((rc = fi_inject_write(ep, src, 8, 1, raddr + off, rkey)) == -FI_EAGAIN)
            (void)fi_cntr_read(cntr);
    } else {
        struct iovec iov = {(void *)src, 8};
        struct fi_rma_iov riov = {raddr + off, 8, rkey};
        struct fi_msg_rma m = {.msg_iov = &iov, .iov_count = 1, .addr = 1, .rma_iov = &riov,
                               .rma_iov_count = 1};
        while ((rc = fi_writemsg(ep, &m, flags)) == -FI_EAGAIN)
            (void)fi_cntr_read(cntr);
    }
    if (rc) {
        fprintf(stderr, "write: %s\n", fi_strerror((int)-rc));
        exit(1);
    }
    issued++;
}

static inline void wait_cntr(void)
{
    while (fi_cntr_read(cntr) < issued)
        ;
}

__attribute__((noinline)) void raw_put_quiet_loop(long n)
{
    static long v;
    for (long i = 0; i < n; i++) {
        v = i;
        put8(&v, 0);
        wait_cntr();
    }
}

__attribute__((noinline)) void raw_put_nbi_loop(long n, long window)
{
    static long src = 42;
    for (long i = 0; i < n; i += window) {
        for (long j = 0; j < window; j++)
            put8(&src, (uint64_t)(j & 63) * 8);
        wait_cntr();
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    long window = argc > 2 ? atol(argv[2]) : 256;
    int a2b[2], b2a[2], stop[2];
    if (pipe(a2b) || pipe(b2a) || pipe(stop))
        return 1;
    pid_t child = fork();
    int me = child == 0 ? 1 : 0;

    struct raw_ofi r;
    raw_ofi_open(FI_RMA | FI_ATOMIC, 2, &r);
    struct fi_info *info = r.info;
    struct fid_domain *dom = r.dom;
    struct fid_av *av = r.av;
    struct fid_cq *cq = r.cq;
    use_msg = strcmp(info->fabric_attr->prov_name, "shm") != 0;
    flags = FI_INJECT | FI_DELIVERY_COMPLETE;
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    CHECK(fi_cntr_open(dom, &ca, &cntr, NULL));
    CHECK(fi_endpoint(dom, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(ep, &cntr->fid, FI_READ | FI_WRITE));
    CHECK(fi_enable(ep));
    static char buf[4096];
    struct fid_mr *mr;
    CHECK(fi_mr_reg(dom, buf, sizeof buf, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(mr, &ep->fid, 0));
        CHECK(fi_mr_enable(mr));
    }
    struct card mine = {0}, peer;
    mine.base = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    mine.key = fi_mr_key(mr);
    mine.len = sizeof mine.addr;
    CHECK(fi_getname(&ep->fid, mine.addr, &mine.len));
    struct card cards[2];
    cards[me] = mine;
    if (me == 0) {
        if (write(a2b[1], &mine, sizeof mine) != sizeof mine ||
            read(b2a[0], &peer, sizeof peer) != sizeof peer)
            return 1;
    } else {
        if (read(a2b[0], &peer, sizeof peer) != sizeof peer ||
            write(b2a[1], &mine, sizeof mine) != sizeof mine)
            return 1;
    }
    cards[!me] = peer;
    fi_addr_t fa[2];
    if (fi_av_insert(av, cards[0].addr, 1, &fa[0], 0, NULL) != 1 ||
        fi_av_insert(av, cards[1].addr, 1, &fa[1], 0, NULL) != 1)
        return 1;
    raddr = cards[1].base;
    rkey = cards[1].key;
    if (me == 1) { /* the target: progress until told to stop */
        char c;
        close(stop[1]);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        /* Poll as a PlugSHMEM PE waiting in a barrier does: progress and
         * a pause, yielding the CPU after 256 polls. */
        for (unsigned long i = 0;; i++) {
            (void)fi_cntr_read(cntr);
            if ((i & 1023) == 0 && read(stop[0], &c, 1) == 0)
                break;
            if (i < 256)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    } else {
        close(stop[0]);
        raw_put_quiet_loop(iters / 10);
        long rss0 = rss_kib();
        double t0 = now();
        raw_put_quiet_loop(iters);
        double lat = (now() - t0) / (double)iters * 1e6;
        long rss1 = rss_kib();
        raw_put_nbi_loop(window * 4, window);
        t0 = now();
        raw_put_nbi_loop(iters * 4, window);
        double rate = (double)(iters * 4) / (now() - t0) / 1e6;
        printf("raw %-10s put8+wait  %8.3f us   inject8  %8.3f Mmsg/s   RSS %+.1f B per put\n",
               info->fabric_attr->prov_name, lat, rate,
               1024.0 * (double)(rss1 - rss0) / (double)iters);
        close(stop[1]);
        waitpid(child, NULL, 0);
    }
    fi_close(&mr->fid);
    fi_close(&ep->fid);
    fi_close(&cntr->fid);
    raw_ofi_close(&r);
    return 0;
}
