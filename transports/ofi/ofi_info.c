/* Which provider and domain: the hints, fi_getinfo's answer (asked once
 * per load) and the pick among its entries. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofi.h"

/* Providers that only reach PEs on this node. */
static int node_local(const char *prov) { return !strcmp(prov, "shm") || !strcmp(prov, "sm2"); }

static struct fi_info *make_hints(const pshm_core_services *svc)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_ATOMIC;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    /* What we can handle; the provider keeps what it needs.  Not
     * FI_MR_LOCAL: user buffers are not registered. */
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT;
    /* FI_THREAD_SAFE although we serialize each endpoint ourselves: with
     * FI_THREAD_COMPLETION, udp;ofi_rxd crashed inside its progress when
     * the progress thread and the program took turns on the endpoint. */
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    h->tx_attr->msg_order = 0; /* on shm, asking for RMA ordering disables CMA writes */
    const char *p = svc->get_string("SHMEM_OFI_PROVIDER");
    if (p)
        h->fabric_attr->prov_name = strdup(p);
    /* SHMEM_OFI_DOMAIN is no hint: tcp;ofi_rxm answered a domain that does
     * not exist with eth0's.  ofi_pick() matches it against every domain. */
    return h;
}

/* ofi_rxd (libfabric 1.17) sends up to FI_OFI_RXD_MAX_UNACKED (default
 * 128) packets of up to ~1.3 KB to each peer before waiting for an ack,
 * and resends them all at each retry.  Two failures follow from a large
 * window, both ending in a hang (a counter short for good) or wrong data
 * after quiet (a read completed with nothing written, an older write's
 * bytes left in place of a newer one's):
 * - datagram loss: with 7 peers sending at once a receiving socket's
 *   default buffer (net.core.rmem_default 212992) overflows (~36000 drops
 *   in 40 s, 8 PEs), and rxd does not always recover;
 * - a full completion queue: rxd's UDP endpoint puts send and receive
 *   completions in one queue, refuses sends when it is full ("error
 *   sending packet: -11" in FI_LOG_LEVEL=warn) but writes a receive
 *   completion into it regardless, over an older entry ("could not find
 *   posted rx to release", then "Cannot process packet").  The queue fills
 *   when a PE that was descheduled comes back to a full socket: each
 *   packet it takes in makes it send (acks, read replies, the retries of
 *   its whole window).  With 3 PEs and 4 MiB gets, PEs paused 0.1-0.3 s
 *   at random: a window of 48 failed 2 runs of 6, 32 passed 14 of 14.
 * So at most 64 packets in flight from a PE in all and 32 to one peer, 8
 * at least.  Set before the first fi_getinfo, which is when rxd reads it;
 * a user's setting wins.  Only rxd reads it. */
static void rxd_window(const pshm_core_services *svc)
{
    if (getenv("FI_OFI_RXD_MAX_UNACKED"))
        return;
    int peers = svc->n_pes > 1 ? svc->n_pes - 1 : 1;
    int w = 64 / peers;
    w = w < 8 ? 8 : w > 32 ? 32 : w;
    char v[16];
    snprintf(v, sizeof v, "%d", w);
    setenv("FI_OFI_RXD_MAX_UNACKED", v, 0);
}

/* ---- fi_getinfo, asked once ---------------------------------------- */

/* Debian's libfabric links libpsm_infinipath and libpsm2, whose
 * constructors each calibrate a clock for 0.1 s pinned to CPU 0, and its
 * first fi_getinfo reads /proc/kallsyms twice (efa provider): about 0.3 s
 * each time a process loads libfabric.  The core unloads this plugin at
 * shmem_finalize, which unloaded libfabric too, so every later shmem_init
 * of the process (a suite driver runs one per family) paid it again.
 * Keeping libfabric loaded makes it once per process; libfabric then reads
 * its FI_ variables once per process, as in a program linked with it. */
static void keep_libfabric_loaded(void)
{
    static int done;
    Dl_info di;
    if (done)
        return;
    done = 1;
    if (dladdr((void *)fi_getinfo, &di) && di.dli_fname)
        (void)dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* fi_getinfo's answer, shared by query() and init() (and shmem_info's
 * queries of a running job): the first one of this plugin's load is kept
 * until fini, or until the plugin is unloaded without init, and reused
 * while the inputs of the hints and libfabric's FI_PROVIDER are unchanged.
 * Failures are not kept: a plugin whose query failed is not initialized. */
#define PROBES 8 /* entries whose atomics are remembered per answer */

static struct {
    struct fi_info *all;
    char *prov, *domain, *fi_provider; /* the inputs it answered (NULL: unset) */
    /* The entries whose atomics were probed (ofi_pick), and the verdicts:
     * "" when all are there, else the refusal. */
    struct fi_info *probed[PROBES];
    char refusal[PROBES][768];
} answer;

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

void ofi_answer_drop(void)
{
    fi_freeinfo(answer.all);
    free(answer.prov);
    free(answer.domain);
    free(answer.fi_provider);
    memset(&answer, 0, sizeof answer);
}

__attribute__((destructor)) static void answer_unload(void) { ofi_answer_drop(); }

/* Every RDM entry with RMA and atomics (owned by the cache), or NULL with
 * the reason in why. */
static struct fi_info *getinfo(const pshm_core_services *svc, char *why, size_t whylen)
{
    const char *p = svc->get_string("SHMEM_OFI_PROVIDER");
    const char *d = svc->get_string("SHMEM_OFI_DOMAIN");
    const char *fp = getenv("FI_PROVIDER");
    if (answer.all && same(p, answer.prov) && same(d, answer.domain) &&
        same(fp, answer.fi_provider))
        return answer.all;
    ofi_answer_drop();
    keep_libfabric_loaded();
    struct fi_info *h = make_hints(svc);
    if (!h) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    rxd_window(svc);
    struct fi_info *all = NULL;
    /* Tagged messages for the collectives (ofi_msg.c) if the provider has
     * them; RMA and atomics are what it must have. */
    h->caps |= FI_TAGGED;
    int rc = fi_getinfo(OFI_API, NULL, NULL, 0, h, &all);
    if (rc == -FI_ENODATA) {
        h->caps &= ~FI_TAGGED;
        rc = fi_getinfo(OFI_API, NULL, NULL, 0, h, &all);
    }
    fi_freeinfo(h);
    if (rc) {
        snprintf(why, whylen,
                 "libfabric %s offers no RDM endpoint with RMA and atomics%s%s%s (fi_getinfo: %s)",
                 fi_tostr(&(uint32_t){fi_version()}, FI_TYPE_VERSION),
                 p || fp ? " from provider '" : "", p ? p : fp ? fp : "", p || fp ? "'" : "",
                 fi_strerror(-rc));
        return NULL;
    }
    answer.all = all;
    answer.prov = dup_or_null(p);
    answer.domain = dup_or_null(d);
    answer.fi_provider = dup_or_null(fp);
    if ((p && !answer.prov) || (d && !answer.domain) || (fp && !answer.fi_provider)) {
        ofi_answer_drop();
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    return all;
}

/* SHMEM_OFI_DOMAIN named none of the domains offered: say which are.  The
 * refusal starts with the setting, so the core ends the job with it. */
static void no_such_domain(const pshm_core_services *svc, struct fi_info *all, const char *d,
                           int multi, char *why, size_t whylen)
{
    const char *p = svc->get_string("SHMEM_OFI_PROVIDER");
    const char *fp = getenv("FI_PROVIDER");
    size_t u = (size_t)snprintf(why, whylen,
                                "SHMEM_OFI_DOMAIN='%s' is not a domain of %s%s%s; use ", d,
                                p || fp ? "provider '" : "the providers offered",
                                p ? p : fp ? fp : "", p || fp ? "'" : "");
    int n = 0;
    for (struct fi_info *i = all; i && u < whylen; i = i->next) {
        const char *name = i->domain_attr->name;
        int dup = 0;
        if (!name || (multi && node_local(i->fabric_attr->prov_name)))
            continue;
        for (struct fi_info *k = all; k != i && !dup; k = k->next)
            dup = k->domain_attr->name && !strcmp(k->domain_attr->name, name) &&
                  !(multi && node_local(k->fabric_attr->prov_name));
        if (!dup)
            u += (size_t)snprintf(why + u, whylen - u, "%s%s", n++ ? ", " : "one of ", name);
    }
    if (!n && u < whylen)
        snprintf(why + u, whylen - u, "another provider: this one offers no domain");
}

int ofi_atomics_refusal(struct fid_domain *dom, const char *prov, char *why, size_t len)
{
    static const struct {
        const char *name;
        uint64_t flags; /* 0, FI_FETCH_ATOMIC or FI_COMPARE_ATOMIC */
        enum fi_op op;
    } need[] = {
        {"add", 0, FI_SUM},
        {"and", 0, FI_BAND},
        {"or", 0, FI_BOR},
        {"xor", 0, FI_BXOR},
        {"set", 0, FI_ATOMIC_WRITE},
        {"fetch-add", FI_FETCH_ATOMIC, FI_SUM},
        {"fetch-and", FI_FETCH_ATOMIC, FI_BAND},
        {"fetch-or", FI_FETCH_ATOMIC, FI_BOR},
        {"fetch-xor", FI_FETCH_ATOMIC, FI_BXOR},
        {"swap", FI_FETCH_ATOMIC, FI_ATOMIC_WRITE},
        {"fetch", FI_FETCH_ATOMIC, FI_ATOMIC_READ},
        {"compare-swap", FI_COMPARE_ATOMIC, FI_CSWAP},
    };
    static const struct {
        const char *name;
        enum fi_datatype dt;
    } types[] = {{"32-bit", FI_UINT32}, {"64-bit", FI_UINT64}};
    char missing[512] = "";
    size_t used = 0;
    int n = 0;
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        for (size_t t = 0; t < 2; t++) {
            struct fi_atomic_attr attr = {0, 0};
            if (fi_query_atomic(dom, types[t].dt, need[i].op, &attr, need[i].flags) == 0 &&
                attr.count >= 1)
                continue;
            n++;
            if (used + 64 < sizeof missing)
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s %s",
                                         n > 1 ? ", " : "", need[i].name, types[t].name);
        }
    if (len)
        why[0] = 0;
    if (n)
        snprintf(why, len,
                 "libfabric provider '%s' lacks %d of the 24 atomic operations OpenSHMEM needs "
                 "(%s); choose another provider with FI_PROVIDER or SHMEM_OFI_PROVIDER (e.g. shm, "
                 "tcp;ofi_rxm, udp;ofi_rxd)",
                 prov, n, missing);
    return n;
}

/* Why entry i's domain will not do ("" if it has the atomics): opens its
 * fabric and domain once per entry and answer (nothing of the network: no
 * endpoint, no address).  A provider such as libfabric 1.17's net lists FI_ATOMIC and
 * then supports none; found here, it is refused by query() and passed
 * over by the pick instead of failing in every PE's init. */
static const char *lacks_atomics(struct fi_info *i)
{
    size_t k = 0;
    while (k < PROBES && answer.probed[k] && answer.probed[k] != i)
        k++;
    if (k < PROBES && answer.probed[k] == i)
        return answer.refusal[k];
    static char spare[sizeof answer.refusal[0]]; /* more entries than remembered */
    char *why = k < PROBES ? answer.refusal[k] : spare;
    struct fid_fabric *fab = NULL;
    struct fid_domain *dom = NULL;
    why[0] = 0;
    /* A fabric or domain that will not open here is init's to report. */
    if (fi_fabric(i->fabric_attr, &fab, NULL) == 0 && fi_domain(fab, i, &dom, NULL) == 0)
        ofi_atomics_refusal(dom, i->fabric_attr->prov_name, why, sizeof answer.refusal[0]);
    if (dom)
        fi_close(&dom->fid);
    if (fab)
        fi_close(&fab->fid);
    if (k < PROBES)
        answer.probed[k] = i;
    return why;
}

/* Picks the first usable entry (owned by the cache) or NULL. */
struct fi_info *ofi_pick(const pshm_core_services *svc, char *why, size_t whylen)
{
    if (pshm_kit_ready(svc, why, whylen))
        return NULL;
    struct fi_info *all = getinfo(svc, why, whylen);
    if (!all)
        return NULL;
    int multi = svc->n_local != svc->n_pes;
    const char *d = svc->get_string("SHMEM_OFI_DOMAIN");
    /* A provider named exactly (SHMEM_OFI_PROVIDER=net) is that provider,
     * not a layered one libfabric also answers (net;ofi_rxm); a name that
     * only layered entries carry (tcp: tcp;ofi_rxm) takes those. */
    const char *named = svc->get_string("SHMEM_OFI_PROVIDER");
    if (!named)
        named = getenv("FI_PROVIDER");
    int exact = 0;
    for (struct fi_info *i = all; named && i && !exact; i = i->next)
        exact = !strcmp(i->fabric_attr->prov_name, named);
    int refused = 0; /* why holds the first entry's passed over for its atomics */
    for (struct fi_info *i = all; i; i = i->next) {
        if (exact && strcmp(i->fabric_attr->prov_name, named) != 0)
            continue;
        if (multi && node_local(i->fabric_attr->prov_name))
            continue;
        if (d && (!i->domain_attr->name || strcmp(i->domain_attr->name, d) != 0))
            continue;
        const char *r = lacks_atomics(i);
        if (!*r)
            return i;
        if (!refused++)
            snprintf(why, whylen, "%s", r);
    }
    if (refused)
        return NULL;
    if (d) {
        no_such_domain(svc, all, d, multi, why, whylen);
        return NULL;
    }
    snprintf(why, whylen, "the job spans nodes and the only providers offered (%s) serve one node",
             all->fabric_attr->prov_name);
    return NULL;
}

/* On one node the shm plugin (10) is the better default. */
int ofi_max_priority(const pshm_core_services *svc)
{
    return svc->n_local == svc->n_pes ? 5 : 20;
}

int ofi_query(const pshm_core_services *svc, char *why, size_t whylen)
{
    return ofi_pick(svc, why, whylen) ? ofi_max_priority(svc) : -1;
}
