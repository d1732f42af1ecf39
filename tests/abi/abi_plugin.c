/*
 * Working fake transports for the ABI tests (run by tests/bad/run_bad.sh),
 * one source built with -DKIND=<n> into transport-<name>.so.  They carry
 * real traffic, by load/store into the core's mappings of on-node peers
 * (PSHM_DESC_USES_PEER_MAPPINGS), so that with SHMEM_BYPASS=0 every put,
 * get and AMO of a program goes through them.
 */
#include <stdio.h>
#include <string.h>

#include "transport.h"

#define KIND_ABI20 1 /* transport-abi20.so: built for ABI 2.0, optional ops left out */
#define KIND_NOGET 2 /* transport-noget.so: its ops table lacks get */
#define KIND_FATAL 3 /* transport-fatal.so: PE 1's first put calls svc->fatal */

#if KIND == KIND_ABI20
#define NAME "abi20"
#elif KIND == KIND_NOGET
#define NAME "noget"
#elif KIND == KIND_FATAL
#define NAME "fatal"
#else
#error "build with -DKIND=<n>"
#endif

static const pshm_core_services *svc;
static unsigned long n_put, n_get, n_amo; /* shown by fini under ABI_PLUGIN_REPORT */

static char *at(int pe, int seg, size_t off)
{
    char *b = svc->peer_base[seg][pe];
    if (!b)
        svc->fatal(NAME " transport: PE %d's segment %d is not mapped here", pe, seg);
    return b + off;
}

static void p_put(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    (void)c;
#if KIND == KIND_FATAL
    if (svc->my_pe == 1)
        svc->fatal(NAME " transport: PE 1 gives up on purpose (put of %zu bytes to PE %d)", len,
                   pe);
#endif
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    memcpy(at(pe, seg, off), src, len);
}

__attribute__((unused)) static void p_get(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len)
{
    (void)c;
    __atomic_fetch_add(&n_get, 1, __ATOMIC_RELAXED);
    memcpy(dst, at(pe, seg, off), len);
}

#define AMO(T)                                                                                     \
    do {                                                                                           \
        T *w = (T *)at(pe, seg, off), v = 0, cmp = 0, old;                                         \
        if (operand)                                                                               \
            memcpy(&v, operand, sizeof v);                                                         \
        switch (op) {                                                                              \
        case PSHM_AMO_ADD: old = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;                \
        case PSHM_AMO_AND: old = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;                \
        case PSHM_AMO_OR: old = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;                  \
        case PSHM_AMO_XOR: old = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;                \
        case PSHM_AMO_CSWAP:                                                                       \
            memcpy(&cmp, compare, sizeof cmp);                                                     \
            old = cmp;                                                                             \
            __atomic_compare_exchange_n(w, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            break;                                                                                 \
        case PSHM_AMO_READ: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;                     \
        default: old = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break; /* SWAP, SET */         \
        }                                                                                          \
        if (fetch)                                                                                 \
            memcpy(fetch, &old, sizeof old);                                                       \
    } while (0)

static void p_amo(pshm_tctx c, int pe, int seg, size_t off, int op, int type, const void *operand,
                  const void *compare, void *fetch, int nbi)
{
    (void)c;
    (void)nbi;
    __atomic_fetch_add(&n_amo, 1, __ATOMIC_RELAXED);
    if (type == PSHM_T_U32 || type == PSHM_T_FLOAT)
        AMO(uint32_t);
    else
        AMO(uint64_t);
}

static void p_sync(pshm_tctx c)
{
    (void)c;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int p_ctx_create(long options, pshm_tctx *ctx)
{
    (void)options;
    *ctx = NULL;
    return 0;
}

static void p_ctx_destroy(pshm_tctx ctx) { (void)ctx; }

#if KIND == KIND_ABI20
/* Beyond a 2.0 table's size: the core must never read these. */
static void poison_put_signal(pshm_tctx c, int pe, int seg, size_t off, const void *src,
                              size_t len, int sig_seg, size_t sig_off, uint64_t signal, int sig_op,
                              int nbi)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)src, (void)len, (void)sig_seg, (void)sig_off,
        (void)signal, (void)sig_op, (void)nbi;
    svc->fatal(NAME " transport: the core called put_signal, which lies beyond this 2.0 table");
}
#endif

/* No put_nbi, get_nbi or progress; not PSHM_CAP_THREAD_SAFE. */
static const pshm_transport_ops ops = {
#if KIND == KIND_ABI20
    .hdr = {PSHM_TRANSPORT_ABI_MAJOR, 0, offsetof(pshm_transport_ops, put_signal)},
    .put_signal = poison_put_signal,
#else
    .hdr = PSHM_ABI_HEADER(pshm_transport_ops),
#endif
    .caps = PSHM_CAP_AMO_CPU_COHERENT,
    .ctx_create = p_ctx_create,
    .ctx_destroy = p_ctx_destroy,
    .put = p_put,
#if KIND != KIND_NOGET
    .get = p_get,
#endif
    .amo = p_amo,
    .fence = p_sync,
    .quiet = p_sync,
};

static int p_query(const pshm_core_services *s, char *why, size_t whylen)
{
    if (s->n_local != s->n_pes) {
        snprintf(why, whylen, "every PE must be on this node");
        return -1;
    }
    return 1;
}

static int p_init(const pshm_core_services *s, const pshm_transport_ops **out)
{
    svc = s;
    n_put = n_get = n_amo = 0;
    for (int pe = 0; pe < s->n_pes; pe++)
        for (int seg = 0; seg < PSHM_NSEGS; seg++)
            if (s->seg[seg].size && !s->peer_base[seg][pe]) {
                s->error(NAME " transport: PE %d's segment %d is not mapped here "
                              "(SHMEM_GLOBALS=cma?)",
                         pe, seg);
                return -1;
            }
    *out = &ops;
    return 0;
}

static void p_fini(void)
{
    const char *r = svc->getenv("ABI_PLUGIN_REPORT");
    if (r && *r == '1')
        printf(NAME " transport: PE %d: %lu puts, %lu gets, %lu AMOs\n", svc->my_pe, n_put, n_get,
               n_amo);
    fflush(stdout);
}

PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = {
#if KIND == KIND_ABI20
    .hdr = {PSHM_TRANSPORT_ABI_MAJOR, 0, offsetof(pshm_transport_desc, nbe_completion)},
#else
    .hdr = PSHM_ABI_HEADER(pshm_transport_desc),
#endif
    .name = NAME,
    .description = "fake transport over the core's peer mappings (ABI tests)",
    .flags = PSHM_DESC_USES_PEER_MAPPINGS,
    .query = p_query,
    .init = p_init,
    .fini = p_fini,
};
