/* Memory: the core's segments mapped with ucp_mem_map (registration of
 * memory the core owns: UCX does not allocate it), two small regions for
 * the fetching-bitwise self-test, and the exchange of worker addresses,
 * bases and packed rkeys in one pair of bootstrap allgathers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ucx.h"

#define PROBE_BYTES 4096

static ucs_status_t map(void *base, size_t len, int allocate, ucp_mem_h *mh)
{
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = base,
        .length = len,
        .flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0,
    };
    return ucp_mem_map(g.ctx, &mp, mh);
}

int ucx_map_regions(void)
{
    for (int s = 0; s < PSHM_NSEGS; s++) {
        void *base = g.svc->seg[s].base;
        size_t size = g.svc->seg[s].size;
        if (!base || !size)
            continue;
        if (s == PSHM_SEG_HEAP && ucx_heap_wanted()) {
            int rc = ucx_heap_adopt(base, size, &g.seg_mh[s]);
            if (rc < 0)
                return -1;
            if (rc == 0)
                continue;
        }
        ucs_status_t st = map(base, size, 0, &g.seg_mh[s]);
        if (st != UCS_OK) {
            g.seg_mh[s] = NULL;
            g.svc->error("ucx transport (UCX_TLS=%s): cannot map the %s segment (%zu bytes at %p): "
                         "%s",
                         g.tls, s == PSHM_SEG_HEAP ? "heap" : "data", size, base,
                         ucs_status_string(st));
            return -1;
        }
    }
    /* The registered probe is memory of the same kind as the heap (a
     * shared mapping we own); the other is memory UCX allocates, which
     * shared-memory transports serve with CPU atomics. */
    void *own = mmap(NULL, PROBE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (own == MAP_FAILED) {
        g.svc->error("ucx transport: cannot map %d bytes for the atomics self-test", PROBE_BYTES);
        return -1;
    }
    g.probe_buf[PROBE_REGISTERED] = own;
    ucs_status_t st = map(own, PROBE_BYTES, 0, &g.probe_mh[PROBE_REGISTERED]);
    if (st == UCS_OK)
        st = map(NULL, PROBE_BYTES, 1, &g.probe_mh[PROBE_UCX_ALLOCATED]);
    if (st != UCS_OK) {
        g.svc->error("ucx transport (UCX_TLS=%s): cannot map memory for the atomics self-test: %s",
                     g.tls, ucs_status_string(st));
        return -1;
    }
    ucp_mem_attr_t ma = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS};
    if ((st = ucp_mem_query(g.probe_mh[PROBE_UCX_ALLOCATED], &ma)) != UCS_OK) {
        g.svc->error("ucx transport: ucp_mem_query: %s", ucs_status_string(st));
        return -1;
    }
    g.probe_buf[PROBE_UCX_ALLOCATED] = ma.address;
    return 0;
}

void ucx_unmap_regions(void)
{
    for (int s = PSHM_NSEGS; s < PSHM_MAX_SEGS; s++) { /* spaces still attached at fini */
        if (g.space_mh[s])
            ucp_mem_unmap(g.ctx, g.space_mh[s]);
        g.space_mh[s] = NULL;
        free(g.space_keys[s]);
        g.space_keys[s] = NULL;
    }
    for (int s = 0; s < PSHM_NSEGS; s++)
        if (g.seg_mh[s]) {
            if (s == PSHM_SEG_HEAP && g.heap_adopted)
                ucx_heap_return(g.svc->seg[s].base, g.svc->seg[s].size, g.seg_mh[s]);
            else
                ucp_mem_unmap(g.ctx, g.seg_mh[s]);
            g.seg_mh[s] = NULL;
        }
    for (int k = 0; k < PROBE_NKINDS; k++)
        if (g.probe_mh[k]) {
            ucp_mem_unmap(g.ctx, g.probe_mh[k]);
            g.probe_mh[k] = NULL;
        }
    if (g.probe_buf[PROBE_REGISTERED])
        munmap(g.probe_buf[PROBE_REGISTERED], PROBE_BYTES);
    memset(g.probe_buf, 0, sizeof g.probe_buf);
}

/* At init: memory spaces come later (ucx_space.c). */
static ucp_mem_h region_mh(int r)
{
    return r < PSHM_NSEGS ? g.seg_mh[r] : r < PSHM_MAX_SEGS ? NULL : g.probe_mh[r - PSHM_MAX_SEGS];
}

static uint64_t region_base(int r)
{
    if (r < PSHM_NSEGS)
        return (uint64_t)(uintptr_t)g.svc->seg[r].base;
    return r < PSHM_MAX_SEGS ? 0 : (uint64_t)(uintptr_t)g.probe_buf[r - PSHM_MAX_SEGS];
}

/* The regions exchanged at init: the built-in segments and the probes;
 * spaces' rkeys travel when a space is attached (ucx_space.c). */
#define NEXCH (PSHM_NSEGS + PROBE_NKINDS)
static int exch_region(int e) { return e < PSHM_NSEGS ? e : REGION_PROBE(e - PSHM_NSEGS); }

/* Sizes go first so that every PE pads its blob to the same stride. */
struct card_head {
    uint64_t addr_len;
    uint64_t rkey_len[NEXCH];
    uint64_t base[NEXCH];
};

int ucx_exchange_cards(void)
{
    const pshm_core_services *svc = g.svc;
    int n = svc->n_pes;
    void *packed[NEXCH] = {0};
    struct card_head mine = {.addr_len = g.my_addr_len};
    struct card_head *heads = calloc((size_t)n, sizeof *heads);
    unsigned char *blob = NULL, *all = NULL;
    int rc = -1;
    if (!heads)
        goto oom;
    for (int e = 0; e < NEXCH; e++) {
        int r = exch_region(e);
        mine.base[e] = region_base(r);
        if (!region_mh(r))
            continue;
        size_t len;
        ucs_status_t st = ucp_rkey_pack(g.ctx, region_mh(r), &packed[e], &len);
        if (st != UCS_OK) {
            svc->error("ucx transport: ucp_rkey_pack: %s", ucs_status_string(st));
            goto out;
        }
        mine.rkey_len[e] = len;
    }
    if (svc->allgather(&mine, heads, sizeof mine)) {
        svc->error("ucx transport: bootstrap exchange of address sizes failed");
        goto out;
    }
    size_t amax = 0, kmax = 0;
    for (int pe = 0; pe < n; pe++) {
        if (heads[pe].addr_len > amax)
            amax = heads[pe].addr_len;
        for (int e = 0; e < NEXCH; e++)
            if (heads[pe].rkey_len[e] > kmax)
                kmax = heads[pe].rkey_len[e];
    }
    g.addr_stride = (amax + 7) & ~(size_t)7;
    g.rkey_stride = (kmax + 7) & ~(size_t)7;
    size_t one = g.addr_stride + NEXCH * g.rkey_stride;
    blob = calloc(1, one);
    all = calloc((size_t)n, one);
    g.addrs = calloc((size_t)n, g.addr_stride);
    g.rkeys = calloc((size_t)n * NEXCH, g.rkey_stride ? g.rkey_stride : 1);
    g.rbase = calloc((size_t)n * NREGIONS, sizeof *g.rbase);
    if (!blob || !all || !g.addrs || !g.rkeys || !g.rbase)
        goto oom;
    memcpy(blob, g.my_addr, g.my_addr_len);
    for (int e = 0; e < NEXCH; e++)
        if (packed[e])
            memcpy(blob + g.addr_stride + (size_t)e * g.rkey_stride, packed[e], mine.rkey_len[e]);
    if (svc->allgather(blob, all, one)) {
        svc->error("ucx transport: bootstrap exchange of addresses and rkeys failed");
        goto out;
    }
    for (int pe = 0; pe < n; pe++) {
        unsigned char *b = all + (size_t)pe * one;
        memcpy(g.addrs + (size_t)pe * g.addr_stride, b, g.addr_stride);
        memcpy(g.rkeys + (size_t)pe * NEXCH * g.rkey_stride, b + g.addr_stride,
               NEXCH * g.rkey_stride);
        for (int e = 0; e < NEXCH; e++)
            /* A region a PE did not map has no rkey: mark it by base 0. */
            g.rbase[pe * NREGIONS + exch_region(e)] = heads[pe].rkey_len[e] ? heads[pe].base[e] : 0;
    }
    rc = 0;
    goto out;
oom:
    svc->error("ucx transport: out of memory for the address exchange of %d PEs", n);
out:
    for (int e = 0; e < NEXCH; e++)
        if (packed[e])
            ucp_rkey_buffer_release(packed[e]);
    free(heads);
    free(blob);
    free(all);
    return rc;
}

ucs_status_t ucx_unpack_rkeys(struct uctx *c, int pe)
{
    for (int r = 0; r < NREGIONS; r++) {
        if (!g.rbase[pe * NREGIONS + r] || c->rkey[pe * NREGIONS + r])
            continue;
        int e = r < PSHM_NSEGS ? r : r - PSHM_MAX_SEGS + PSHM_NSEGS; /* if exchanged at init */
        const void *k = r >= PSHM_NSEGS && r < PSHM_MAX_SEGS
                            ? g.space_keys[r] + (size_t)pe * g.space_stride[r]
                            : g.rkeys + ((size_t)pe * NEXCH + e) * g.rkey_stride;
        ucs_status_t st = ucp_ep_rkey_unpack(c->ep[pe], k, &c->rkey[pe * NREGIONS + r]);
        if (st != UCS_OK)
            return st;
    }
    return UCS_OK;
}
