/* The descriptor, query and selection priority, init and fini, and the
 * settings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofi.h"

struct ofi_globals g;
struct octx dflt;
static pshm_transport_ops ops;

/* Whether the kernel lets a process write into a sibling's memory, which
 * the shm provider's direct (CMA) RMA needs. */
static int cma_usable(void)
{
    const char *d = getenv("FI_SHM_DISABLE_CMA");
    if (d && (*d == '1' || !strcasecmp(d, "yes") || !strcasecmp(d, "true")))
        return 0;
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    if (!f)
        return 1;
    int v = 1;
    if (fscanf(f, "%d", &v) != 1)
        v = 1;
    fclose(f);
    return v == 0;
}

/* How a completion (what quiet waits for) comes to mean that the target
 * memory holds the result:
 *  - shm with FI_MR_VIRT_ADDR and no RMA ordering writes and reads by
 *    process_vm_writev/readv from the initiator: a completed put is in
 *    place.  Its non-fetching atomics complete when queued, before the
 *    target applied them (measured); with FI_DELIVERY_COMPLETE they are
 *    acknowledged, but that path corrupted atomics here under preemption
 *    (an operand applied at the previous command's address, libfabric
 *    1.17).  So they go inline, and quiet flushes: one fetching read to
 *    each PE they went to, which the target serves after them (its queue
 *    is in order).  Without CMA, shm puts are queued too and need
 *    FI_DELIVERY_COMPLETE.
 *  - any other provider: FI_DELIVERY_COMPLETE on puts and atomics. */
static void choose_completion(void)
{
    int force = g.svc->get_bool("SHMEM_OFI_DELIVERY_COMPLETE", -1);
    if (force >= 0) {
        g.put_flags = g.amo_flags = force ? FI_DELIVERY_COMPLETE : 0;
        g.amo_flush = 0;
        return;
    }
    g.amo_flags = FI_DELIVERY_COMPLETE;
    g.put_flags = FI_DELIVERY_COMPLETE;
    if (!strcmp(g.prov, "shm")) {
        g.amo_flags = 0;
        g.amo_flush = 1;
        if ((g.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) && cma_usable())
            g.put_flags = 0;
    }
}

/* Providers whose atomics are applied in the target process by libfabric's
 * shared atomic handlers, which use the CPU's atomic instructions: a word
 * updated by them and by CPU atomics of an on-node peer stays atomic. */
static int amo_cpu_coherent(void)
{
    int v = g.svc->get_bool("SHMEM_OFI_AMO_CPU_COHERENT", -1);
    if (v >= 0)
        return v;
    return !strcmp(g.prov, "shm") || !strcmp(g.prov, "tcp;ofi_rxm") ||
           !strcmp(g.prov, "udp;ofi_rxd") || !strcmp(g.prov, "tcp");
}

/* query() passed over domains without them; this is the domain init
 * opened, which a provider could still answer otherwise. */
static int check_atomics(void)
{
    char why[768];
    if (!ofi_atomics_refusal(g.domain, g.prov, why, sizeof why))
        return 0;
    g.svc->error("ofi transport: %s", why);
    return -1;
}

static void teardown(void)
{
    ofi_thread_stop();
    ofi_ctx_close(&dflt);
    for (int s = 0; s < PSHM_MAX_SEGS; s++)
        if (g.mr[s]) {
            fi_close(&g.mr[s]->fid);
            g.mr[s] = NULL;
        }
    if (g.av)
        fi_close(&g.av->fid);
    if (g.domain)
        fi_close(&g.domain->fid);
    if (g.fabric)
        fi_close(&g.fabric->fid);
    if (g.info)
        fi_freeinfo(g.info);
    free(g.peer);
    g.av = NULL;
    g.domain = NULL;
    g.fabric = NULL;
    g.info = NULL;
    g.peer = NULL;
}

static int ofi_init(const pshm_core_services *svc, const pshm_transport_ops **out)
{
    char why[512];
    memset(&g, 0, sizeof g);
    memset(&dflt, 0, sizeof dflt);
    g.svc = svc;
    g.thread_level = svc->thread_level;
    snprintf(g.prov, sizeof g.prov, "?");

    struct fi_info *i = ofi_pick(svc, why, sizeof why);
    if (!i) {
        svc->error("ofi transport: %s", why);
        return -1;
    }
    g.info = fi_dupinfo(i);
    if (!g.info) {
        svc->error("ofi transport: out of memory");
        return -1;
    }
    snprintf(g.prov, sizeof g.prov, "%s", g.info->fabric_attr->prov_name);
    g.inject = g.info->tx_attr->inject_size;
    g.max_msg = g.info->ep_attr->max_msg_size ? g.info->ep_attr->max_msg_size : SIZE_MAX;
    if (g.max_msg > ((size_t)1 << 30))
        g.max_msg = (size_t)1 << 30;
    g.rxd = strstr(g.prov, "ofi_rxd") != NULL;
    if (g.rxd && g.inject >= sizeof(uint64_t) && g.max_msg > g.inject)
        g.max_msg = g.inject; /* see ofi_rxd_prime() */
    g.manual = g.info->domain_attr->data_progress == FI_PROGRESS_MANUAL ||
               g.info->domain_attr->control_progress == FI_PROGRESS_MANUAL;
    /* With automatic progress the core sleeps on its own (no progress op). */
    g.wakeup = g.manual && svc->get_bool("SHMEM_OFI_WAKEUP", 0) == 1;
    g.wait_fd = -1;

    int want_thread;
    choose_completion();
    int coherent = amo_cpu_coherent();
    if (pshm_kit_progress(svc, &want_thread, &g.pt.interval_us))
        goto fail;
    /* The endpoint's default completion level for fi_write/fi_read. */
    g.info->tx_attr->op_flags = g.put_flags;
    g.inject_fast = g.put_flags ? 0 : g.inject;

    int rc;
    const char *what;
    if ((rc = fi_fabric(g.info->fabric_attr, &g.fabric, NULL))) {
        what = "fi_fabric";
        goto fail_rc;
    }
    if ((rc = fi_domain(g.fabric, g.info, &g.domain, NULL))) {
        what = "fi_domain";
        goto fail_rc;
    }
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)svc->n_pes};
    if ((rc = fi_av_open(g.domain, &ava, &g.av, NULL))) {
        what = "fi_av_open";
        goto fail_rc;
    }
    if (ofi_ctx_open(&dflt, why, sizeof why)) {
        svc->error("ofi transport (provider %s): cannot open an endpoint: %s", g.prov, why);
        goto fail;
    }
    if (check_atomics())
        goto fail;

    struct card mine;
    memset(&mine, 0, sizeof mine);
    if (ofi_register_segments(&mine))
        goto fail;
    size_t alen = sizeof mine.addr;
    if ((rc = fi_getname(&dflt.ep->fid, mine.addr, &alen))) {
        what = "fi_getname";
        goto fail_rc;
    }
    mine.addrlen = alen;
    struct card *cards = calloc((size_t)svc->n_pes, sizeof *cards);
    g.peer = calloc((size_t)svc->n_pes * PSHM_MAX_SEGS, sizeof *g.peer);
    if (!cards || !g.peer) {
        free(cards);
        svc->error("ofi transport: out of memory for %d PEs", svc->n_pes);
        goto fail;
    }
    if (svc->allgather(&mine, cards, sizeof mine)) {
        free(cards);
        svc->error("ofi transport: bootstrap exchange of addresses failed");
        goto fail;
    }
    for (int pe = 0; pe < svc->n_pes; pe++) {
        for (int s = 0; s < PSHM_NSEGS; s++) {
            g.peer[pe * PSHM_MAX_SEGS + s].addr = cards[pe].base[s];
            g.peer[pe * PSHM_MAX_SEGS + s].key = cards[pe].key[s];
        }
        fi_addr_t fa = FI_ADDR_NOTAVAIL;
        rc = fi_av_insert(g.av, cards[pe].addr, 1, &fa, 0, NULL);
        if (rc != 1 || fa != (fi_addr_t)pe) {
            free(cards);
            svc->error("ofi transport (provider %s): cannot insert PE %d's address (rc %d, fi_addr "
                       "%" PRIu64 ")",
                       g.prov, pe, rc, (uint64_t)fa);
            goto fail;
        }
    }
    free(cards);
    if (g.rxd)
        ofi_rxd_prime(&dflt);

    dflt.locked = g.thread_level == THREAD_MULTIPLE;
    int thread = want_thread >= 0 ? want_thread : g.manual;
    if (thread && ofi_thread_start()) {
        svc->error("ofi transport: cannot start the progress thread");
        goto fail;
    }

    memset(&ops, 0, sizeof ops);
    ops.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_transport_ops);
    ops.caps = (coherent ? PSHM_CAP_AMO_CPU_COHERENT : 0) |
               /* shared contexts take their lock at this level */
               (g.thread_level == THREAD_MULTIPLE ? PSHM_CAP_THREAD_SAFE : 0);
    ops.ctx_create = ofi_ctx_create;
    ops.ctx_destroy = ofi_ctx_destroy;
    ops.put = ofi_put;
    ops.p = ofi_p;
    ops.get = ofi_get;
    ops.put_nbi = ofi_put_nbi;
    ops.get_nbi = ofi_get_nbi;
    ops.amo = ofi_amo;
    ops.fence = ofi_fence;
    ops.quiet = ofi_quiet;
    ops.progress = g.manual ? ofi_progress : NULL;
    ops.block = g.wakeup ? ofi_block : NULL;
    ops.seg_register = ofi_seg_register;
    ops.seg_deregister = ofi_seg_deregister;
    ops.put_nbe = ofi_put_nbe;
    ops.get_nbe = ofi_get_nbe;
    ops.amo_nbe = ofi_amo_nbe;
    ops.req_test = ofi_req_test;
    /* Tagged messages where the provider has them (the hints ask, and do
     * without when no provider would answer), read by the core's polls of
     * progress.  Not on rxd: a message longer than its inject size is a
     * multi-packet transfer, whose segment count stays in the tx entry for
     * a later fetching atomic (see ofi_rxd_prime; the collective suite at
     * 5 PEs crashed in 1 run of 2). */
    if ((g.info->caps & FI_TAGGED) && !g.rxd) {
        ops.msg_send = ofi_msg_send;
        ops.msg_recv = ofi_msg_recv;
    }
    /* put_signal stays NULL: ordering the signal after the data without
     * waiting needs FI_FENCE or write-after-write ordering, and none of the
     * providers used here (shm, tcp;ofi_rxm, udp;ofi_rxd) offers FI_FENCE,
     * while asking shm for RMA ordering turns off its CMA writes.  Done
     * here it would be put, quiet, atomic: what the core does already. */
    if (svc->get_string("SHMEM_OFI_VERBOSE") && svc->my_pe == 0)
        fprintf(stderr,
                "ofi transport: provider %s, domain %s, mr_mode %s, inject %zu, progress %s%s, "
                "delivery-complete puts %s atomics %s%s, CPU-coherent atomics %s, long waits %s\n",
                g.prov, g.info->domain_attr->name,
                fi_tostr(&g.info->domain_attr->mr_mode, FI_TYPE_MR_MODE), g.inject,
                g.manual ? "manual" : "auto", g.pt.on ? " + thread" : "",
                g.put_flags ? "yes" : "no", g.amo_flags ? "yes" : "no",
                g.amo_flush ? " (flushed at quiet)" : "", coherent ? "yes" : "no",
                g.wakeup ? "sleep on the CQ's descriptor" : g.manual ? "poll" : "sleep (core)");
    *out = &ops;
    return 0;

fail_rc:
    svc->error("ofi transport (provider %s): %s failed: %s", g.prov, what, fi_strerror(-rc));
fail:
    teardown();
    return -1;
}

static void ofi_fini(void)
{
    if (!g.svc)
        return;
    /* Complete what this PE issued, then keep serving peers until every PE
     * got here: a peer may still wait for this PE to progress its last
     * operations (target-driven providers), and closing first would strand
     * it. */
    ofi_quiet(NULL);
    if (!g.pt.on && g.manual)
        ofi_thread_start();
    g.svc->barrier();
    teardown();
    ofi_answer_drop();
    g.svc = NULL;
}

/* Listed by shmem_info and the README; the core checks their form before
 * init, the ranges are checked here. */
static const pshm_setting settings[] = {
    {"SHMEM_OFI_PROVIDER", PSHM_SETTING_STRING, "(FI_PROVIDER, else libfabric's first)", NULL,
     "ofi transport: libfabric provider, e.g. shm, tcp;ofi_rxm, udp;ofi_rxd"},
    {"SHMEM_OFI_DOMAIN", PSHM_SETTING_STRING, "(provider's first)", NULL,
     "ofi transport: libfabric domain (NIC), e.g. eth0; one that no provider offers is an error"},
    PSHM_KIT_PROGRESS_SETTINGS("ofi transport", "on for providers with manual progress"),
    {"SHMEM_OFI_DELIVERY_COMPLETE", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ofi transport: FI_DELIVERY_COMPLETE on puts and atomics (auto: where the provider needs it; "
     "0 is unsafe, for measurements)"},
    {"SHMEM_OFI_AMO_CPU_COHERENT", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ofi transport: whether the provider's atomics mix with CPU atomics on-node (auto: per "
     "provider)"},
    {"SHMEM_OFI_WAKEUP", PSHM_SETTING_BOOL, "0", NULL,
     "ofi transport: 1: with a manual-progress provider, a long wait sleeps until the target "
     "endpoint's CQ signals instead of polling (a CQ wait descriptor, which makes every "
     "operation over tcp;ofi_rxm slower: docs/ofi.md)"},
    {"SHMEM_OFI_VERBOSE", PSHM_SETTING_STRING, "(unset)", NULL,
     "ofi transport: when set, PE 0 prints the provider and modes chosen"},
    {NULL, 0, NULL, NULL, NULL},
};

PSHM_TRANSPORT_DEFINE("ofi",
                      "libfabric RDM endpoints (FI_PROVIDER / SHMEM_OFI_PROVIDER picks the provider)",
                      ofi_query, ofi_init, ofi_fini, .max_priority = ofi_max_priority,
                      .settings = settings,
                      .nbe_completion = "a snapshot of the context's completion counter: "
                                        "everything issued on the request's context up to the "
                                        "test (on a private context, the thread's own operations)");
