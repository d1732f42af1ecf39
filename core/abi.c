/* Checks of plugin tables: versions and sizes (transport.h's rules), and the
 * mandatory ops. */
#include <stdio.h>
#include <string.h>

#include "abi.h"

/* Each table's size in every minor of this major, indexed by minor: what a
 * plugin built for that minor has at least. */
static const uint32_t desc_size[PSHM_TRANSPORT_ABI_MINOR + 1] = {
    offsetof(pshm_transport_desc, nbe_completion), /* 2.0 */
    offsetof(pshm_transport_desc, nbe_completion), /* 2.1 */
    sizeof(pshm_transport_desc),                   /* 2.2 */
    sizeof(pshm_transport_desc),                   /* 2.3: services only */
    sizeof(pshm_transport_desc),                   /* 2.4: ops only */
    sizeof(pshm_transport_desc),                   /* 2.5: ops only */
    sizeof(pshm_transport_desc),                   /* 2.6: ops only */
    sizeof(pshm_transport_desc),                   /* 2.7: ops only */
};
static const uint32_t ops_size[PSHM_TRANSPORT_ABI_MINOR + 1] = {
    offsetof(pshm_transport_ops, put_signal), /* 2.0: up to progress */
    offsetof(pshm_transport_ops, put_nbe),    /* 2.1: up to reserved */
    offsetof(pshm_transport_ops, p),          /* 2.2 */
    offsetof(pshm_transport_ops, p),          /* 2.3: services only */
    offsetof(pshm_transport_ops, msg_send),   /* 2.4: p */
    offsetof(pshm_transport_ops, block),      /* 2.5: msg_send, msg_recv */
    offsetof(pshm_transport_ops, poll),       /* 2.6: block */
    sizeof(pshm_transport_ops),               /* 2.7: poll */
};

static const struct pshm_abi_rule transport_rule = {
    "transport ABI", "plugin", "rebuild the plugin against this library's <plugshmem/transport.h>",
    PSHM_TRANSPORT_ABI_MAJOR, PSHM_TRANSPORT_ABI_MINOR};

int pshm_abi_check_header(const struct pshm_abi_rule *rule, const char *table,
                          const pshm_abi_header *h, const uint32_t *sizes, char *why, size_t len)
{
    if (h->major != rule->major) {
        snprintf(why, len, "built for %s %u.%u, this library speaks ABI %u.%u: %s", rule->abi,
                 h->major, h->minor, rule->major, rule->minor, rule->rebuild);
        return -1;
    }
    /* A newer minor only appends: its table holds all of ours. */
    uint32_t need = sizes[h->minor <= rule->minor ? h->minor : rule->minor];
    if (h->size < need) {
        snprintf(why, len,
                 "its %s is %u bytes, but ABI %u.%u's is at least %u (this library: ABI %u.%u): "
                 "the %s was built inconsistently",
                 table, h->size, h->major, h->minor, need, rule->major, rule->minor, rule->what);
        return -1;
    }
    return 0;
}

int pshm_abi_check_desc(const pshm_transport_desc *d, char *why, size_t len)
{
    if (pshm_abi_check_header(&transport_rule, "descriptor", &d->hdr, desc_size, why, len))
        return -1;
    if (!d->query || !d->init || !d->fini) {
        snprintf(why, len, "its descriptor lacks %s, which every transport must provide",
                 !d->query ? "query" : !d->init ? "init" : "fini");
        return -1;
    }
    return 0;
}

int pshm_abi_adopt_ops(const pshm_transport_ops *in, pshm_transport_ops *out, char *why,
                       size_t len)
{
    if (pshm_abi_check_header(&transport_rule, "ops table", &in->hdr, ops_size, why, len))
        return -1;
    memset(out, 0, sizeof *out);
    memcpy(out, in, in->hdr.size < sizeof *out ? in->hdr.size : sizeof *out);
    out->hdr.size = sizeof *out;
    static const struct {
        const char *name;
        size_t off;
    } mandatory[] = {
        {"ctx_create", offsetof(pshm_transport_ops, ctx_create)},
        {"ctx_destroy", offsetof(pshm_transport_ops, ctx_destroy)},
        {"put", offsetof(pshm_transport_ops, put)},
        {"get", offsetof(pshm_transport_ops, get)},
        {"amo", offsetof(pshm_transport_ops, amo)},
        {"fence", offsetof(pshm_transport_ops, fence)},
        {"quiet", offsetof(pshm_transport_ops, quiet)},
    };
    for (size_t i = 0; i < sizeof mandatory / sizeof *mandatory; i++) {
        void (*fn)(void);
        memcpy(&fn, (const char *)out + mandatory[i].off, sizeof fn);
        if (fn)
            continue;
        int sync_op = mandatory[i].off == offsetof(pshm_transport_ops, fence) ||
                      mandatory[i].off == offsetof(pshm_transport_ops, quiet);
        if (sync_op && (out->caps & PSHM_CAP_COMPLETE_ON_RETURN))
            continue;
        snprintf(why, len, "its ops table lacks %s, which every transport must provide%s",
                 mandatory[i].name,
                 sync_op ? " unless it declares PSHM_CAP_COMPLETE_ON_RETURN" : "");
        return -1;
    }
    /* The nbe ops work together: a partial set is none (the core's quiet
     * fallback), rather than a request that mixes two ways of completing. */
    if (!out->put_nbe || !out->get_nbe || !out->amo_nbe || !out->req_test)
        out->put_nbe = NULL, out->get_nbe = NULL, out->amo_nbe = NULL, out->req_test = NULL;
    /* Messages are waited for by polling progress. */
    if (!out->msg_send || !out->msg_recv || !out->progress)
        out->msg_send = NULL, out->msg_recv = NULL;
    /* A block that returns on traffic stands for progress's polls; poll
     * is progress with an answer. */
    if (!out->progress)
        out->block = NULL, out->poll = NULL;
    if (!out->put_nbi)
        out->put_nbi = out->put;
    if (!out->get_nbi)
        out->get_nbi = out->get;
    return 0;
}
