/* Atomics through ucp_atomic_op_nbx, and the fetching-bitwise self-test.
 *
 * UCX 1.13's shared-memory transports (posix, sysv) apply a fetching AND,
 * OR or XOR with a wrong result (the fetched value is right; what is
 * stored is as if the operand were the old value) when they serve the
 * atomic with CPU instructions, which they do on memory UCX allocated.  The
 * core's segments are registered memory, which UCX serves by software
 * emulation, where the results are right; but which path a given UCX and
 * UCX_TLS take for which memory is UCX's business, so every PE tests at
 * init the path the segments take (a probe region registered like them)
 * and, for the record, the CPU path (a probe region UCX allocated).  If any
 * PE sees the bug on the segments' path, every PE sends fetching bitwise
 * operations through a compare-and-swap loop, which that path does right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucx.h"

static const ucp_atomic_op_t ucp_op[PSHM_AMO_NOPS] = {
    [PSHM_AMO_ADD] = UCP_ATOMIC_OP_ADD,   [PSHM_AMO_AND] = UCP_ATOMIC_OP_AND,
    [PSHM_AMO_OR] = UCP_ATOMIC_OP_OR,     [PSHM_AMO_XOR] = UCP_ATOMIC_OP_XOR,
    [PSHM_AMO_SWAP] = UCP_ATOMIC_OP_SWAP, [PSHM_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
    [PSHM_AMO_READ] = UCP_ATOMIC_OP_ADD,  [PSHM_AMO_SET] = UCP_ATOMIC_OP_SWAP,
};

static inline int width(int type) { return type == PSHM_T_U32 || type == PSHM_T_FLOAT ? 4 : 8; }

static void *issue(struct uctx *c, ucp_ep_h e, int pe, int r, size_t off, ucp_atomic_op_t op,
                   int w, const void *operand, void *reply)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                             .datatype = ucp_dt_make_contig((size_t)w)};
    if (reply) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = reply;
    }
    void *req = ucp_atomic_op_nbx(e, op, operand, 1, g.rbase[pe * NREGIONS + r] + off,
                                  c->rkey[pe * NREGIONS + r], &p);
    if (UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_fail("ucp_atomic_op_nbx", pe, UCS_PTR_STATUS(req));
    return req;
}

/* A fetching op whose answer we need now. */
static inline void fetch_now(struct uctx *c, ucp_ep_h e, int pe, int r, size_t off,
                             ucp_atomic_op_t op, int w, const void *operand, void *reply)
{
    void *req = issue(c, e, pe, r, off, op, w, operand, reply);
    if (req)
        ucx_wait(c, req, "ucp_atomic_op_nbx", pe);
}

static uint64_t bitwise(int op, uint64_t a, uint64_t b)
{
    return op == PSHM_AMO_AND ? a & b : op == PSHM_AMO_OR ? a | b : a ^ b;
}

/* Fetching AND/OR/XOR as read + compare-and-swap until no one came in
 * between: both are right on the path where the native ones are not. */
__attribute__((noinline)) static void fetch_bitwise_cas(struct uctx *c, ucp_ep_h e, int pe, int r,
                                                        size_t off, int op, int w,
                                                        const void *operand, void *fetch)
{
    uint64_t v = 0, old = 0, zero = 0, mask = w == 4 ? 0xffffffffull : ~0ull;
    memcpy(&v, operand, (size_t)w);
    fetch_now(c, e, pe, r, off, UCP_ATOMIC_OP_ADD, w, &zero, &old);
    for (;;) {
        old &= mask;
        uint64_t swap = bitwise(op, old, v) & mask;
        /* CSWAP: buffer is the compare value, reply the new one in and the
         * old one out (little-endian: the low bytes are the 32-bit word). */
        fetch_now(c, e, pe, r, off, UCP_ATOMIC_OP_CSWAP, w, &old, &swap);
        if ((swap & mask) == old)
            break;
        old = swap;
    }
    memcpy(fetch, &old, (size_t)w);
}

static void amo_region(struct uctx *c, int pe, int r, size_t off, int op, int type,
                       const void *operand, const void *compare, void *fetch, int nbi)
{
    static const uint64_t zero;
    int w = width(type);
    ucp_ep_h e = ucx_ep(c, pe);
    ucp_atomic_op_t uop = ucp_op[op];
    void *req;

    switch (op) {
    case PSHM_AMO_READ:
        if (!fetch)
            return;
        operand = &zero;
        break;
    case PSHM_AMO_SET:
        /* A swap whose answer nobody reads: UCP's swap always replies. */
        ucx_release(issue(c, e, pe, r, off, uop, w, operand, &c->scratch), "ucp_atomic_op_nbx",
                    pe);
        ucx_mark(c, pe);
        return;
    case PSHM_AMO_CSWAP: {
        uint64_t tmp;
        void *reply = fetch ? fetch : &tmp;
        memcpy(reply, operand, (size_t)w);
        if (nbi && fetch) {
            void *req = issue(c, e, pe, r, off, uop, w, compare, reply);
            if (req)
                ucx_keep(c, req, "ucp_atomic_op_nbx", pe);
            ucx_mark(c, pe);
        } else {
            fetch_now(c, e, pe, r, off, uop, w, compare, reply);
        }
        return;
    }
    case PSHM_AMO_AND:
    case PSHM_AMO_OR:
    case PSHM_AMO_XOR:
        if (fetch && UNLIKELY(g.fetch_bitwise_cas)) {
            fetch_bitwise_cas(c, e, pe, r, off, op, w, operand, fetch);
            return;
        }
        break;
    default:
        break;
    }
    req = issue(c, e, pe, r, off, uop, w, operand, fetch);
    if (!fetch) {
        ucx_release(req, "ucp_atomic_op_nbx", pe);
        ucx_mark(c, pe);
    } else if (nbi) {
        /* Done at the next quiet; the fetch lands in the caller's buffer,
         * which the specification keeps valid until then. */
        if (req)
            ucx_keep(c, req, "ucp_atomic_op_nbx", pe);
        ucx_mark(c, pe);
    } else if (req) {
        ucx_wait(c, req, "ucp_atomic_op_nbx", pe);
    }
}

void ucx_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, int nbi)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    amo_region(c, pe, seg, off, op, type, operand, compare, fetch, nbi);
    LEAVE(c);
}

/* ---- the self-test -------------------------------------------------- */

/* Whom this PE probes: the next PE of its node (a ring, so every PE is
 * probed by exactly one), itself when alone on its node.  Every PE also
 * probes itself, on words of its own (PROBE_SELF): UCX reaches a PE's own
 * memory by another transport (self), and UCX 1.13's self stores the same
 * wrong results on registered memory, where posix/sysv get them right
 * (with the bypass off, amo_types failed under UCX_TLS=sm,self and all). */
static int probe_target(void)
{
    const pshm_core_services *svc = g.svc;
    for (int i = 1; i < svc->n_pes; i++) {
        int pe = (svc->my_pe + i) % svc->n_pes;
        if (svc->local_of[pe] >= 0)
            return pe;
    }
    return svc->my_pe;
}

#define PROBE_INIT64 0xf0f0f0f0f0f0f0f0ull
#define PROBE_OPND64 0xff00ff00ff00ff00ull

/* Where in a probe region the words a probe uses lie: a peer's probe, and
 * this PE's probe of itself. */
#define PROBE_PEER 0u
#define PROBE_SELF 128u

/* Fills this PE's probe words before anyone can reach them. */
static void probe_fill(void)
{
    for (int k = 0; k < PROBE_NKINDS; k++)
        for (size_t base = PROBE_PEER; base <= PROBE_SELF; base += PROBE_SELF - PROBE_PEER) {
            uint64_t *w64 = (uint64_t *)((char *)g.probe_buf[k] + base);
            uint32_t *w32 = (uint32_t *)(w64 + 8);
            for (int i = 0; i < 3; i++) {
                w64[i] = PROBE_INIT64;
                w32[i] = (uint32_t)PROBE_INIT64;
            }
        }
}

/* Fetching AND, OR, XOR at both widths on the target's probe words of one
 * kind at base; returns the number of wrong fetched or stored values. */
static int probe_kind(int target, int kind, size_t base, char *detail, size_t dlen)
{
    static const int ops[3] = {PSHM_AMO_AND, PSHM_AMO_OR, PSHM_AMO_XOR};
    static const char *names[3] = {"and", "or", "xor"};
    int r = REGION_PROBE(kind), wrong = 0;
    struct uctx *c = &dflt;
    ENTER(c);
    ucp_ep_h e = ucx_ep(c, target);
    for (int w = 4; w <= 8; w += 4)
        for (int i = 0; i < 3; i++) {
            size_t off = base + (w == 8 ? (size_t)i * 8 : 64 + (size_t)i * 4);
            uint64_t mask = w == 4 ? 0xffffffffull : ~0ull;
            uint64_t v = PROBE_OPND64 & mask, got = 0, now = 0, zero = 0;
            fetch_now(c, e, target, r, off, ucp_op[ops[i]], w, &v, &got);
            fetch_now(c, e, target, r, off, UCP_ATOMIC_OP_ADD, w, &zero, &now);
            uint64_t want = bitwise(ops[i], PROBE_INIT64, v) & mask;
            if ((got & mask) != (PROBE_INIT64 & mask) || (now & mask) != want) {
                if (!wrong++)
                    snprintf(detail, dlen,
                             "PE %d: fetch-%s %d-bit: fetched %#llx, stored %#llx (expected %#llx, "
                             "%#llx)",
                             target, names[i], w * 8, (unsigned long long)(got & mask),
                             (unsigned long long)(now & mask),
                             (unsigned long long)(PROBE_INIT64 & mask), (unsigned long long)want);
            }
        }
    LEAVE(c);
    return wrong;
}

/* Runs after the exchange, with a progress thread serving this PE's probe
 * words (peers may still be probing them while this PE is in the
 * allgather).  Decides g.fetch_bitwise_cas. */
int ucx_bitwise_selftest(void)
{
    int target = probe_target();
    char detail[PROBE_NKINDS][200] = {"", ""};
    int mine[PROBE_NKINDS];
    for (int k = 0; k < PROBE_NKINDS; k++) {
        mine[k] = probe_kind(target, k, PROBE_PEER, detail[k], sizeof detail[k]) != 0;
        if (!mine[k] && target != g.svc->my_pe)
            mine[k] = probe_kind(g.svc->my_pe, k, PROBE_SELF, detail[k], sizeof detail[k]) != 0;
    }
    int *all = calloc((size_t)g.svc->n_pes * PROBE_NKINDS, sizeof *all);
    if (!all || g.svc->allgather(mine, all, sizeof mine)) {
        free(all);
        g.svc->error("ucx transport: bootstrap exchange of the atomics self-test failed");
        return -1;
    }
    for (int pe = 0; pe < g.svc->n_pes; pe++)
        for (int k = 0; k < PROBE_NKINDS; k++)
            g.bug_seen[k] |= all[pe * PROBE_NKINDS + k];
    free(all);
    /* the heap is memory of one kind or the other (ucx_heap.c), the data
     * segment always registered */
    int bug = g.bug_seen[PROBE_REGISTERED] || (g.heap_adopted && g.bug_seen[PROBE_UCX_ALLOCATED]);
    g.fetch_bitwise_cas = g.bitwise_mode >= 0 ? g.bitwise_mode : bug;
    if (g.verbose)
        for (int k = 0; k < PROBE_NKINDS; k++)
            if (mine[k])
                fprintf(stderr, "ucx transport: PE %d: fetching bitwise atomics wrong on %s "
                                "memory of %s\n",
                        g.svc->my_pe, k == PROBE_REGISTERED ? "registered" : "UCX-allocated",
                        detail[k]);
    return 0;
}

void ucx_probe_fill(void) { probe_fill(); }
