/*
 * The ucx transport: RMA and atomics over UCP.  This file holds the plugin
 * descriptor, selection (query and priority), settings, init and fini.
 *
 * Priority.  On one node the shm plugin (10) and ofi (5) come first: every
 * on-node PE is reached by load/store anyway, and over shared memory UCX
 * emulates RMA on the core's memory in software.  Across nodes ucx is
 * preferred to ofi (20) when UCX has an RDMA device, its home ground, and
 * not when it only has tcp, where ofi's tcp;ofi_rxm is the faster one here
 * (docs/ucx.md has the numbers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ucx.h"

#define PRIO_ONE_NODE 4
#define PRIO_RDMA 25
#define PRIO_TCP 15

struct ucx_global g;
struct uctx dflt;
static pshm_transport_ops ops;

/* An operation that cannot complete ends the job through the core, which
 * tells the launcher: abort() here would leave the other PEs waiting. */
void ucx_fail(const char *what, int pe, ucs_status_t st)
{
    if (pe >= 0)
        g.svc->fatal("ucx transport (UCX_TLS=%s): %s to PE %d failed: %s", g.tls, what, pe,
                     ucs_status_string(st));
    g.svc->fatal("ucx transport (UCX_TLS=%s): %s failed: %s", g.tls, what, ucs_status_string(st));
}

/* ---- what UCX found ------------------------------------------------- */

/* Transports whose atomics on our memory are applied by the target's CPU
 * (UCP's software emulation, or CPU atomics on attached memory), hence
 * atomic with respect to on-node peers' CPU atomics.  Anything else (IB's
 * rc/dc/ud, GPUs) may use device atomics, which are not.  Their UCT
 * components bear the same names (ucx_eager.c asks those). */
int ucx_cpu_served_tl(const char *tl)
{
    static const char *const cpu[] = {"self", "tcp", "sysv", "posix", "cma", "knem", "xpmem"};
    for (size_t i = 0; i < sizeof cpu / sizeof *cpu; i++)
        if (!strcmp(tl, cpu[i]))
            return 1;
    return 0;
}

/* Lists the context's transport resources ("tl/dev" names) into out and
 * counts those that are not CPU-served.  UCP has no query for them, so
 * this reads ucp_context_print_info's "resource N : ... -- tl/dev" lines;
 * -1 if none could be read. */
static int device_resources(ucp_context_h ctx, char *out, size_t outlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return -1;
    ucp_context_print_info(ctx, f);
    fclose(f);
    int found = 0, device = 0;
    size_t used = 0;
    out[0] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *dash = strstr(line, "-- ");
        if (!strstr(line, "resource") || !dash)
            continue;
        char tl[64];
        if (sscanf(dash + 3, "%63[^/]", tl) != 1)
            continue;
        found++;
        device += !ucx_cpu_served_tl(tl);
        if (used + strlen(dash + 3) + 2 < outlen)
            used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? " " : "", dash + 3);
    }
    free(text);
    return found ? device : -1;
}

/* What the transports of RES (device_resources) reach: *shm, whether one
 * is a shared-memory transport.  Those (posix, sysv, cma here) have no
 * peer-failure handling: with it asked for on an endpoint, UCX refuses
 * them ("no peer failure handler") and reaches an on-node peer over tcp or
 * not at all, so it is asked for only without them (ucx_connect).
 * *mem_only: whether every one reaches this node's memory only (no
 * network), where a flush of the worker is what the endpoint's would be. */
static void classify(const char *res, int *shm, int *mem_only)
{
    static const char *const mem[] = {"posix", "sysv", "cma", "xpmem", "knem", "self"};
    enum { SELF = 5 };
    *shm = 0;
    *mem_only = *res != 0;
    for (const char *t = res; *t;) {
        size_t len = strcspn(t, " "), tl = strcspn(t, " /");
        const int n = (int)(sizeof mem / sizeof mem[0]);
        int k = 0;
        while (k < n && (strlen(mem[k]) != tl || strncmp(t, mem[k], tl)))
            k++;
        if (k == n)
            *mem_only = 0;
        else if (k != SELF)
            *shm = 1;
        t += len + (t[len] == ' ');
    }
}

/* ---- selection ------------------------------------------------------ */

static int ucx_max_priority(const pshm_core_services *svc)
{
    return svc->n_local == svc->n_pes ? PRIO_ONE_NODE : PRIO_RDMA;
}

static int ucx_query(const pshm_core_services *svc, char *why, size_t whylen)
{
    ucp_context_h ctx;
    char tls[128], res[512];
    if (ucx_context_open(svc, &ctx, tls, sizeof tls, 0, why, whylen))
        return -1;
    int device = device_resources(ctx, res, sizeof res);
    ucp_cleanup(ctx);
    if (svc->n_local == svc->n_pes)
        return PRIO_ONE_NODE;
    return device > 0 ? PRIO_RDMA : PRIO_TCP;
}

/* ---- settings ------------------------------------------------------- */

/* The core checks each value's form against the descriptor's table before
 * init (so a bad one stops shmem_init with one line); ranges and meanings
 * are read here. */

static int read_settings(int *want_thread)
{
    const pshm_core_services *svc = g.svc;
    if (pshm_kit_progress(svc, want_thread, &g.pt.interval_us))
        return -1;
    static const char *const connect[] = {"lazy", "eager", NULL};
    g.eager = svc->get_choice("SHMEM_UCX_CONNECT", connect, 0) == 1;
    /* -1 auto, 0 native, 1 cas: the index less one. */
    static const char *const bitwise[] = {"auto", "native", "cas", NULL};
    g.bitwise_mode = svc->get_choice("SHMEM_UCX_FETCH_BITWISE", bitwise, 0) - 1;
    g.verbose = svc->get_bool("SHMEM_UCX_VERBOSE", 0) == 1 && svc->my_pe == 0;
    g.wakeup = svc->get_bool("SHMEM_UCX_WAKEUP", 0) == 1;
    return 0;
}

/* Whether our AMOs may share a word with on-node peers' CPU atomics. */
static int amo_cpu_coherent(const char *res, int device)
{
    int v = g.svc->get_bool("SHMEM_UCX_AMO_CPU_COHERENT", -1);
    if (v >= 0)
        return v;
    (void)res;
    /* UCX_ATOMIC_MODE=cpu keeps device atomics out. */
    const char *mode = getenv("UCX_ATOMIC_MODE");
    if (mode && !strcasecmp(mode, "cpu"))
        return 1;
    return device == 0;
}

/* ---- init / fini ---------------------------------------------------- */

static void teardown(void)
{
    ucx_thread_stop();
    while (g.ctxs) {
        struct uctx *c = g.ctxs;
        g.ctxs = c->next;
        ucx_worker_close(c);
        free(c);
    }
    if (g.my_addr)
        ucp_worker_release_address(dflt.w, g.my_addr);
    g.my_addr = NULL;
    if (dflt.w)
        ucx_worker_close(&dflt);
    ucx_unmap_regions();
    if (g.ctx)
        ucp_cleanup(g.ctx);
    free(g.addrs);
    free(g.rkeys);
    free(g.rbase);
    g.ctx = NULL;
    g.addrs = NULL;
    g.rkeys = NULL;
    g.rbase = NULL;
}

static int ucx_init(const pshm_core_services *svc, const pshm_transport_ops **out)
{
    char why[512];
    int want_thread;
    memset(&g, 0, sizeof g);
    memset(&dflt, 0, sizeof dflt);
    g.svc = svc;
    g.thread_level = svc->thread_level;
    snprintf(g.tls, sizeof g.tls, "?");
    if (pshm_kit_ready(svc, why, sizeof why)) {
        svc->error("ucx transport: %s", why);
        return -1;
    }
    if (read_settings(&want_thread))
        return -1;
    if (ucx_context_open(svc, &g.ctx, g.tls, sizeof g.tls, g.wakeup, why, sizeof why)) {
        svc->error("ucx transport: %s", why);
        return -1;
    }
    char res[512];
    int device = device_resources(g.ctx, res, sizeof res);
    if ((g.coherent = amo_cpu_coherent(res, device)) < 0)
        goto fail;
    classify(res, &g.shares_memory, &g.memory_only);
    g.peer_errors = !g.shares_memory;
    /* The default worker is shared with the progress thread. */
    if (ucx_worker_open(&dflt, UCS_THREAD_MODE_SERIALIZED, why, sizeof why)) {
        svc->error("ucx transport (UCX_TLS=%s): %s", g.tls, why);
        goto fail;
    }
    ucs_status_t st;
    g.efd = -1;
    if (g.wakeup && (st = ucp_worker_get_efd(dflt.w, &g.efd)) != UCS_OK) {
        svc->error("ucx transport (UCX_TLS=%s): SHMEM_UCX_WAKEUP=1, but ucp_worker_get_efd: %s",
                   g.tls, ucs_status_string(st));
        goto fail;
    }
    st = ucp_worker_get_address(dflt.w, &g.my_addr, &g.my_addr_len);
    if (st != UCS_OK) {
        g.my_addr = NULL;
        svc->error("ucx transport: ucp_worker_get_address: %s", ucs_status_string(st));
        goto fail;
    }
    if (ucx_map_regions())
        goto fail;
    ucx_probe_fill();
    if (ucx_exchange_cards())
        goto fail;
    /* From here peers may send to this PE: serve them while in the
     * bootstrap's collectives, also when no thread is wanted later. */
    if (ucx_thread_start()) {
        svc->error("ucx transport: cannot start the progress thread");
        goto fail;
    }
    if (g.eager)
        ucx_connect_all(&dflt);
    if (ucx_bitwise_selftest())
        goto fail;
    if (svc->barrier()) {
        svc->error("ucx transport: bootstrap barrier failed");
        goto fail;
    }
    int thread = want_thread >= 0 ? want_thread : 1; /* every UCX path needs target progress */
    if (!thread)
        ucx_thread_stop();
    dflt.locked = g.pt.on || g.thread_level == THREAD_MULTIPLE;

    memset(&ops, 0, sizeof ops);
    ops.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_transport_ops);
    /* Shared contexts take their lock at SHMEM_THREAD_MULTIPLE (the default
     * one also whenever the progress thread runs); below it the core
     * serializes calls anyway.  Targets need progress: ops.progress says so. */
    ops.caps = (g.coherent ? PSHM_CAP_AMO_CPU_COHERENT : 0) |
               (g.thread_level == THREAD_MULTIPLE ? PSHM_CAP_THREAD_SAFE : 0);
    ops.ctx_create = ucx_ctx_create;
    ops.ctx_destroy = ucx_ctx_destroy;
    ops.put = ucx_put;
    ops.p = ucx_p;
    ops.get = ucx_get;
    ops.put_nbi = ucx_put_nbi;
    ops.get_nbi = ucx_get_nbi;
    ops.amo = ucx_amo;
    ops.fence = ucx_fence;
    ops.quiet = ucx_quiet;
    ops.progress = ucx_progress;
    ops.block = g.wakeup ? ucx_block : NULL;
    ops.seg_register = ucx_seg_register;
    ops.seg_deregister = ucx_seg_deregister;
    ops.put_nbe = ucx_put_nbe;
    ops.get_nbe = ucx_get_nbe;
    ops.amo_nbe = ucx_amo_nbe;
    ops.req_test = ucx_req_test;
    ops.msg_send = ucx_msg_send;
    ops.msg_recv = ucx_msg_recv;
    if (g.verbose) {
        const char *eager_why, *eager = ucx_msg_eager(g.tls, &eager_why);
        fprintf(stderr,
                "ucx transport: UCX %s, UCX_TLS=%s, resources: %s; heap %s; connections %s; "
                "messages eager up to %s (%s); progress thread %s; long waits %s; CPU-coherent "
                "atomics %s; fetching and/or/xor %s (self-test: UCX-allocated memory %s, "
                "registered memory %s)\n",
                ucp_get_version_string(), g.tls, res,
                g.heap_adopted ? "allocated by UCX" : "the core's, registered",
                g.eager ? "eager" : "lazy",
                eager ? UCX_MSG_EAGER_MAX " bytes" : "the threshold", eager_why,
                g.pt.on ? "on" : "off", g.wakeup ? "sleep on the worker's events" : "poll",
                g.coherent ? "yes" : "no",
                g.fetch_bitwise_cas ? "by compare-and-swap" : "native",
                g.bug_seen[PROBE_UCX_ALLOCATED] ? "WRONG" : "right",
                g.bug_seen[PROBE_REGISTERED] ? "WRONG" : "right");
    }
    *out = &ops;
    return 0;
fail:
    teardown();
    return -1;
}

static void ucx_fini(void)
{
    if (!g.svc)
        return;
    /* Complete what this PE issued, then serve peers until every PE got
     * here (their last operations may need this PE), close the endpoints
     * (a flush), and serve again until every PE closed: a closing
     * endpoint may still need this PE's answers. */
    ucx_quiet(NULL);
    ucx_thread_start();
    g.svc->barrier();
    for (struct uctx *c = g.ctxs; c; c = c->next)
        ucx_close_endpoints(c);
    pshm_lock(&dflt.lock);
    ucx_close_endpoints(&dflt);
    pshm_unlock(&dflt.lock);
    g.svc->barrier();
    teardown();
    g.svc = NULL;
}

/* Listed by shmem_info and the README (component "transport ucx").  The
 * progress-thread pair has the ofi transport's names: one job runs one
 * network transport, and users set them the same way for both. */
static const pshm_setting settings[] = {
    {"SHMEM_UCX_TLS", PSHM_SETTING_STRING, "(UCX_TLS, else all)", NULL,
     "ucx transport: UCX transports to use, e.g. tcp, sm, rc,sm; beats UCX_TLS"},
    {"SHMEM_UCX_HEAP", PSHM_SETTING_CHOICE, "auto", "auto|ucx|core",
     "ucx transport: the symmetric heap in memory UCX allocates, which its shared-memory "
     "transports reach by load/store (ucx), or the core's, registered (core); auto: ucx where "
     "no peer maps the heap (SHMEM_BYPASS=0), PEs share the node and UCX has shared memory"},
    {"SHMEM_UCX_CONNECT", PSHM_SETTING_CHOICE, "lazy", "lazy|eager",
     "ucx transport: connect to a PE on first use (lazy) or to every PE at init (eager)"},
    PSHM_KIT_PROGRESS_SETTINGS("ucx transport", "on"),
    {"SHMEM_UCX_FETCH_BITWISE", PSHM_SETTING_CHOICE, "auto", "auto|native|cas",
     "ucx transport: fetching and/or/xor natively or by compare-and-swap (auto: cas where the "
     "init self-test finds UCX 1.13's wrong results)"},
    {"SHMEM_UCX_AMO_CPU_COHERENT", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ucx transport: whether UCX's atomics mix with CPU atomics on-node (auto: yes when every "
     "resource is CPU-served or UCX_ATOMIC_MODE=cpu)"},
    {"SHMEM_UCX_WAKEUP", PSHM_SETTING_BOOL, "0", NULL,
     "ucx transport: 1: a long wait sleeps until UCX has traffic for this PE instead of polling "
     "(UCP_FEATURE_WAKEUP, which makes every operation over tcp slower: docs/ucx.md)"},
    {"SHMEM_UCX_VERBOSE", PSHM_SETTING_BOOL, "0", NULL,
     "ucx transport: 1: PE 0 prints UCX's version, transports, modes and self-test results"},
    {NULL, 0, NULL, NULL, NULL},
};

PSHM_TRANSPORT_DEFINE("ucx",
                      "UCX (UCP) RMA and atomics (UCX_TLS or SHMEM_UCX_TLS picks the transports); "
                      "priority 4 on one node, 25 across nodes with an RDMA device, 15 with tcp "
                      "only",
                      ucx_query, ucx_init, ucx_fini, .max_priority = ucx_max_priority,
                      .settings = settings,
                      .nbe_completion = "its own UCP requests, then a flush of the endpoints its "
                                        "puts went to");
