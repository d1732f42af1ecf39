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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        ucs_status_t st_ = (x);                                                                    \
        if (st_ != UCS_OK) {                                                                       \
            fprintf(stderr, "%s: %s\n", #x, ucs_status_string(st_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ucp_worker_h worker;
static ucp_ep_h ep;

static void wait_req(void *req)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "request: %s\n", ucs_status_string(UCS_PTR_STATUS(req)));
        exit(1);
    }
    unsigned spins = 0;
    while (ucp_request_check_status(req) == UCS_INPROGRESS) {
        if (ucp_worker_progress(worker))
            continue;
        if (++spins > 200)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
    ucp_request_free(req);
}

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

static int put_all(int fd, const void *p, size_t n)
{
    return write(fd, &n, sizeof n) == sizeof n && write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static void *get_all(int fd)
{
    size_t n;
    if (read(fd, &n, sizeof n) != sizeof n)
        exit(1);
    char *p = malloc(n);
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, p + got, n - got);
        if (r <= 0)
            exit(1);
        got += (size_t)r;
    }
    return p;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int a2b[2], b2a[2];
    if (pipe(a2b) || pipe(b2a))
        return 1;
    pid_t child = fork();
    int me = child == 0;
    ucp_config_t *cfg;
    CHECK(ucp_config_read(NULL, NULL, &cfg));
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                      .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                                  UCP_FEATURE_TAG};
    ucp_context_h ctx;
    CHECK(ucp_init(&p, cfg, &ctx));
    ucp_config_release(cfg);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    CHECK(ucp_worker_create(ctx, &wp, &worker));
    ucp_address_t *addr;
    size_t alen;
    CHECK(ucp_worker_get_address(worker, &addr, &alen));
    int wr = me ? b2a[1] : a2b[1], rd = me ? a2b[0] : b2a[0];
    if (put_all(wr, addr, alen))
        return 1;
    void *paddr = get_all(rd);
    ucp_ep_params_t epp = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = paddr};
    CHECK(ucp_ep_create(worker, &epp, &ep));
    exchange_loop(iters / 10); /* warm up (connection) */
    double t0 = now();
    exchange_loop(iters);
    double ex = (now() - t0) / (double)iters * 1e6;
    pingpong_loop(iters / 10, me);
    t0 = now();
    pingpong_loop(iters, me);
    double pp = (now() - t0) / (double)iters * 1e6 / 2;
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
