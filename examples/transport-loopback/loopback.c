/*
 * transport-loopback: a minimal PlugSHMEM transport, written against the
 * installed SDK only, as a third party would write one.
 *
 * It serves jobs whose PEs all share one node, by load/store into the
 * core's own mappings of the peers' segments (svc->peer_base).  The core
 * does the same by itself unless SHMEM_BYPASS=0, so this plugin carries
 * traffic only then: run it as
 *
 *   SHMEM_TRANSPORT_PATH=DIR SHMEM_TRANSPORT=loopback SHMEM_BYPASS=0 oshrun -n 4 ./app
 *
 * Build (docs/writing-a-transport.md):
 *
 *   cc -O2 -Wall $(pkg-config --cflags plugshmem) -shared -fPIC \
 *      -o transport-loopback.so loopback.c
 *
 * and put transport-loopback.so in $(pkg-config --variable=pluginsdir
 * plugshmem) or in a folder named by SHMEM_TRANSPORT_PATH.
 */
#include <stdio.h>
#include <string.h>

#include <plugshmem/transport.h>

static const pshm_core_services *svc;

/* Where (pe, seg, off) is in this process.  init() checked that every
 * segment of every PE is mapped, so a NULL here is a core bug. */
static char *at(int pe, int seg, size_t off)
{
    char *base = svc->peer_base[seg][pe];
    if (!base)
        svc->fatal("loopback transport: PE %d's segment %d is not mapped here", pe, seg);
    return base + off;
}

/* A memcpy into the peer's memory is the whole put: it is complete when it
 * returns (PSHM_CAP_COMPLETE_ON_RETURN), so there is no put_nbi, fence or
 * quiet to write. */
static void lb_put(pshm_tctx ctx, int pe, int seg, size_t off, const void *src, size_t len)
{
    (void)ctx;
    memcpy(at(pe, seg, off), src, len);
}

static void lb_get(pshm_tctx ctx, int pe, int seg, size_t off, void *dst, size_t len)
{
    (void)ctx;
    memcpy(dst, at(pe, seg, off), len);
}

/* CPU atomics on the mapped word: atomic with the core's own on-node
 * atomics too (PSHM_CAP_AMO_CPU_COHERENT).  Floating-point types only
 * fetch, set and swap, which are bit copies of their width. */
#define AMO(T)                                                                                     \
    do {                                                                                           \
        T *word = (T *)at(pe, seg, off), v = 0, cmp = 0, old;                                      \
        if (operand)                                                                               \
            memcpy(&v, operand, sizeof v);                                                         \
        switch (op) {                                                                              \
        case PSHM_AMO_ADD: old = __atomic_fetch_add(word, v, __ATOMIC_SEQ_CST); break;             \
        case PSHM_AMO_AND: old = __atomic_fetch_and(word, v, __ATOMIC_SEQ_CST); break;             \
        case PSHM_AMO_OR: old = __atomic_fetch_or(word, v, __ATOMIC_SEQ_CST); break;               \
        case PSHM_AMO_XOR: old = __atomic_fetch_xor(word, v, __ATOMIC_SEQ_CST); break;             \
        case PSHM_AMO_READ: old = __atomic_load_n(word, __ATOMIC_SEQ_CST); break;                  \
        case PSHM_AMO_CSWAP:                                                                       \
            memcpy(&cmp, compare, sizeof cmp);                                                     \
            old = cmp;                                                                             \
            __atomic_compare_exchange_n(word, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
            break;                                                                                 \
        case PSHM_AMO_SWAP:                                                                        \
        case PSHM_AMO_SET: old = __atomic_exchange_n(word, v, __ATOMIC_SEQ_CST); break;            \
        default: svc->fatal("loopback transport: unknown atomic operation %d", op);                \
        }                                                                                          \
        if (fetch)                                                                                 \
            memcpy(fetch, &old, sizeof old);                                                       \
    } while (0)

static void lb_amo(pshm_tctx ctx, int pe, int seg, size_t off, int op, int type,
                   const void *operand, const void *compare, void *fetch, int nbi)
{
    (void)ctx;
    (void)nbi; /* everything completes at once */
    if (type == PSHM_T_U32 || type == PSHM_T_FLOAT)
        AMO(uint32_t);
    else
        AMO(uint64_t);
}

/* The data, then the signal with release order: a PE that sees the signal
 * sees the data.  Cheaper than the core's put + fence + AMO only in that
 * it is one call; a network plugin gains a round trip. */
static void lb_put_signal(pshm_tctx ctx, int pe, int seg, size_t off, const void *src,
                          size_t len, int sig_seg, size_t sig_off, uint64_t signal, int sig_op,
                          int nbi)
{
    (void)ctx;
    (void)nbi;
    memcpy(at(pe, seg, off), src, len);
    uint64_t *sig = (uint64_t *)at(pe, sig_seg, sig_off);
    if (sig_op == PSHM_AMO_ADD)
        __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
    else
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
}

/* Contexts hold nothing here: every one is the default one. */
static int lb_ctx_create(long options, pshm_tctx *ctx)
{
    (void)options;
    *ctx = NULL;
    return 0;
}

static void lb_ctx_destroy(pshm_tctx ctx) { (void)ctx; }

static const pshm_transport_ops ops = {
    .hdr = PSHM_ABI_HEADER(pshm_transport_ops),
    .caps = PSHM_CAP_AMO_CPU_COHERENT | PSHM_CAP_THREAD_SAFE | PSHM_CAP_COMPLETE_ON_RETURN,
    .ctx_create = lb_ctx_create,
    .ctx_destroy = lb_ctx_destroy,
    .put = lb_put,
    .get = lb_get,
    .amo = lb_amo,
    .put_signal = lb_put_signal,
};

/* Cheap and side-effect free: shmem_info calls it too. */
static int lb_query(const pshm_core_services *s, char *why, size_t whylen)
{
    if (s->n_local != s->n_pes) {
        snprintf(why, whylen, "the job spans several nodes (%d of %d PEs on this one); loopback "
                 "serves single-node jobs", s->n_local, s->n_pes);
        return -1;
    }
    return 1; /* below shm (10): used only when asked for */
}

static int lb_max_priority(const pshm_core_services *s)
{
    return s->n_local == s->n_pes ? 1 : -1;
}

static int lb_init(const pshm_core_services *s, const pshm_transport_ops **out)
{
    svc = s;
    /* Global data is not mapped under SHMEM_GLOBALS=cma: say so now rather
     * than at the first access. */
    for (int pe = 0; pe < s->n_pes; pe++)
        for (int seg = 0; seg < PSHM_NSEGS; seg++)
            if (s->seg[seg].size && !s->peer_base[seg][pe]) {
                s->error("loopback transport: PE %d's %s segment is not mapped here; it needs "
                         "SHMEM_GLOBALS=map",
                         pe, seg == PSHM_SEG_HEAP ? "heap" : "data");
                return -1;
            }
    const char *v = s->getenv("SHMEM_LOOPBACK_VERBOSE");
    if (v && *v == '1' && s->my_pe == 0)
        printf("loopback transport: %d PEs by load/store\n", s->n_pes);
    *out = &ops;
    return 0;
}

/* Nothing to release: the core unmaps the segments after this returns. */
static void lb_fini(void) { svc = NULL; }

static const pshm_setting settings[] = {
    {"SHMEM_LOOPBACK_VERBOSE", PSHM_SETTING_BOOL, "0", NULL,
     "loopback transport: PE 0 prints one line at initialization"},
    {NULL, 0, NULL, NULL, NULL},
};

/* The exported descriptor: the same as spelling out
 *   PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = {
 *       .hdr = PSHM_ABI_HEADER(pshm_transport_desc), .name = "loopback", ...};
 * (loopback.cpp does that, field by field). */
PSHM_TRANSPORT_DEFINE("loopback", "example: one node, load/store into the core's mappings of peers",
                      lb_query, lb_init, lb_fini, .flags = PSHM_DESC_USES_PEER_MAPPINGS,
                      .max_priority = lb_max_priority, .settings = settings);
