/* Memory spaces (ABI 2.1 seg_register): a space is mapped with
 * ucp_mem_map like the heap, and its packed rkeys are exchanged; region
 * seg of every context's rkey table then names it, so the ops serve it as
 * they serve the heap.  Endpoints already connected get the new rkey at
 * once, later ones when they connect (ucx_unpack_rkeys).  Collective, and
 * called by the core after a quiet and a barrier. */
#include <stdlib.h>
#include <string.h>

#include "ucx.h"

struct space_head {
    uint64_t base;
    uint64_t len; /* of the packed rkey; 0: this PE could not map it */
};

static void for_each_ctx(void (*fn)(struct uctx *c, int seg), int seg)
{
    fn(&dflt, seg);
    for (struct uctx *c = g.ctxs; c; c = c->next)
        fn(c, seg);
}

static void unpack_connected(struct uctx *c, int seg)
{
    (void)seg;
    ENTER(c);
    for (int pe = 0; pe < g.svc->n_pes; pe++) {
        ucs_status_t st;
        if (c->ep[pe] && (st = ucx_unpack_rkeys(c, pe)) != UCS_OK)
            ucx_fail("ucp_ep_rkey_unpack", pe, st);
    }
    LEAVE(c);
}

static void drop_rkeys(struct uctx *c, int seg)
{
    ENTER(c);
    for (int pe = 0; pe < g.svc->n_pes; pe++)
        if (c->rkey[pe * NREGIONS + seg]) {
            ucp_rkey_destroy(c->rkey[pe * NREGIONS + seg]);
            c->rkey[pe * NREGIONS + seg] = NULL;
        }
    LEAVE(c);
}

int ucx_seg_register(int seg, void *base, size_t size)
{
    const pshm_core_services *svc = g.svc;
    int n = svc->n_pes, rc = -1;
    void *packed = NULL;
    size_t len = 0;
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = base,
                               .length = size};
    ucs_status_t st = ucp_mem_map(g.ctx, &mp, &g.space_mh[seg]);
    if (st != UCS_OK)
        g.space_mh[seg] = NULL;
    else if ((st = ucp_rkey_pack(g.ctx, g.space_mh[seg], &packed, &len)) != UCS_OK)
        packed = NULL;
    if (st != UCS_OK)
        svc->error("ucx transport (UCX_TLS=%s): cannot register a memory space (%zu bytes at "
                   "%p): %s",
                   g.tls, size, base, ucs_status_string(st));
    struct space_head mine = {(uint64_t)(uintptr_t)base, packed ? len : 0};
    struct space_head *heads = calloc((size_t)n, sizeof *heads);
    unsigned char *blob = NULL;
    /* The peers are in the exchange already: a PE that skipped it would
     * leave them waiting, so running out of memory here ends the job. */
    if (!heads)
        svc->fatal("ucx transport: out of memory registering a memory space (%d peers)", n);
    if (svc->allgather(&mine, heads, sizeof mine))
        goto out;
    size_t stride = 0;
    for (int pe = 0; pe < n; pe++) {
        if (!heads[pe].len)
            goto out; /* some PE failed (and said so): every PE gives up */
        if (heads[pe].len > stride)
            stride = heads[pe].len;
    }
    stride = (stride + 7) & ~(size_t)7;
    blob = calloc(1, stride);
    g.space_keys[seg] = calloc((size_t)n, stride);
    if (!blob || !g.space_keys[seg])
        svc->fatal("ucx transport: out of memory for a memory space's keys (%d x %zu bytes)", n,
                   stride);
    memcpy(blob, packed, len);
    if (svc->allgather(blob, g.space_keys[seg], stride))
        goto out;
    g.space_stride[seg] = stride;
    for (int pe = 0; pe < n; pe++)
        g.rbase[pe * NREGIONS + seg] = heads[pe].base;
    for_each_ctx(unpack_connected, seg);
    rc = 0;
out:
    if (rc && st == UCS_OK)
        svc->error("ucx transport: a memory space's rkey exchange failed");
    if (packed)
        ucp_rkey_buffer_release(packed);
    free(heads);
    free(blob);
    if (rc)
        ucx_seg_deregister(seg);
    return rc;
}

void ucx_seg_deregister(int seg)
{
    if (g.rbase)
        for (int pe = 0; pe < g.svc->n_pes; pe++)
            g.rbase[pe * NREGIONS + seg] = 0;
    for_each_ctx(drop_rkeys, seg);
    free(g.space_keys[seg]);
    g.space_keys[seg] = NULL;
    g.space_stride[seg] = 0;
    if (g.space_mh[seg]) {
        ucp_mem_unmap(g.ctx, g.space_mh[seg]);
        g.space_mh[seg] = NULL;
    }
}
