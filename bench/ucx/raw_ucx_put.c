/*
 * The raw-UCX baseline for ucx_put (bench/ofi/ofi_put run over the ucx
 * plugin): two processes (this one and a forked child), a UCP context and
 * worker each with what the plugin asks for (RMA, AMO32/64), a target
 * buffer registered with ucp_mem_map as the plugin registers the heap, and
 * the same loop: ucp_put_nbx of 8 bytes, then ucp_ep_flush_nbx waited
 * for.  The child progresses its worker as a PE waiting in a barrier does
 * (progress, pause, and sched_yield on every poll after 16384 of them, as
 * the core's waits do when PEs do not outnumber cores) until the parent is
 * done.
 * UCX_TLS chooses the transports, as for the plugin.  RAW_UCX_ALLOCATE=1
 * takes the target buffer from UCX (UCP_MEM_MAP_ALLOCATE, as Open MPI's
 * OSHMEM takes its heap) instead of registering memory of our own: over
 * shared memory UCX then writes it directly, without the target.
 *
 *   UCX_TLS=tcp raw_ucx_put [iterations]
 *
 * Under valgrind --tool=callgrind --toggle-collect=raw_put_flush_loop it
 * counts instructions per put + flush.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_ucx.h"

__attribute__((noinline)) void raw_put_flush_loop(ucp_ep_h ep, uint64_t raddr, ucp_rkey_h rkey,
                                                  long n)
{
    static const ucp_request_param_t none = {.op_attr_mask = 0};
    static long v;
    for (long i = 0; i < n; i++) {
        v = i;
        void *req = ucp_put_nbx(ep, &v, 8, raddr, rkey, &none);
        if (req)
            wait_req(req);
        wait_req(ucp_ep_flush_nbx(ep, &none));
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int a2b[2], b2a[2], stop[2];
    if (pipe(a2b) || pipe(b2a) || pipe(stop))
        return 1;
    pid_t child = fork();
    int me = child == 0;

    ucp_context_h ctx = raw_ucx_open(0);
    ucp_address_t *addr;
    size_t alen;
    CHECK(ucp_worker_get_address(worker, &addr, &alen));

    size_t len = 1 << 20;
    const char *alloc_env = getenv("RAW_UCX_ALLOCATE");
    int allocate = alloc_env && *alloc_env == '1';
    void *buf = allocate ? NULL
                         : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                                             UCP_MEM_MAP_PARAM_FIELD_FLAGS,
                               .address = buf,
                               .length = len,
                               .flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0};
    ucp_mem_h mh;
    CHECK(ucp_mem_map(ctx, &mp, &mh));
    if (allocate) {
        ucp_mem_attr_t ma = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS};
        CHECK(ucp_mem_query(mh, &ma));
        buf = ma.address;
    }
    void *rk;
    size_t rklen;
    CHECK(ucp_rkey_pack(ctx, mh, &rk, &rklen));
    uint64_t base = (uint64_t)(uintptr_t)buf;

    int wr = me ? b2a[1] : a2b[1], rd = me ? a2b[0] : b2a[0];
    if (put_all(wr, addr, alen) || put_all(wr, rk, rklen) || put_all(wr, &base, sizeof base))
        return 1;
    void *paddr = get_all(rd), *prk = get_all(rd);
    uint64_t *pbase = get_all(rd);

    /* Only the initiator connects, as with a PE that never sends to the
     * other: the target answers on the endpoint UCP makes for it. */
    ucp_ep_h e = NULL;
    ucp_rkey_h rkey = NULL;
    if (me == 0) {
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = paddr};
        CHECK(ucp_ep_create(worker, &ep, &e));
        CHECK(ucp_ep_rkey_unpack(e, prk, &rkey));
    }
    if (me == 1) {
        char c;
        close(stop[1]);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        for (unsigned long i = 0;; i++) {
            ucp_worker_progress(worker);
            if ((i & 1023) == 0 && read(stop[0], &c, 1) == 0)
                break;
            if (i < 16384) /* SHMEM_WAIT_SPINS=auto with PEs <= cores */
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    } else {
        close(stop[0]);
        raw_put_flush_loop(e, *pbase, rkey, iters / 10); /* warm up (connection) */
        double t0 = now();
        raw_put_flush_loop(e, *pbase, rkey, iters);
        double lat = (now() - t0) / (double)iters * 1e6;
        const char *tls = getenv("UCX_TLS");
        printf("raw ucx %-10s put8+flush %8.3f us\n", tls ? tls : "all", lat);
        /* Close while the target still serves: a flushing close needs it. */
        ucp_rkey_destroy(rkey);
        ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
        void *r = ucp_ep_close_nbx(e, &cp);
        if (r && !UCS_PTR_IS_ERR(r))
            wait_req(r);
        close(stop[1]);
        /* The child may still be in its last poll. */
        while (waitpid(child, NULL, WNOHANG) == 0)
            ucp_worker_progress(worker);
    }
    ucp_rkey_buffer_release(rk);
    ucp_mem_unmap(ctx, mh);
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    return 0;
}
