/*
 * transport-loopbackcxx: the loopback example (loopback.c) written in C++,
 * to show what changes for a plugin in that language.  It does the same
 * thing, by the same means; read loopback.c first for why.
 *
 * What differs from C:
 *  - the descriptor is defined with PSHM_TRANSPORT_EXPORT, which in C++
 *    adds extern "C": without it the const descriptor has internal
 *    linkage and a mangled name, and the core refuses the file with
 *    "no symbol 'plugshmem_transport'";
 *  - nothing may throw into the core, which is C: every op is noexcept
 *    (an exception escaping one ends the process with std::terminate
 *    instead of unwinding through C frames);
 *  - the tables are filled field by field rather than with designated
 *    initializers, which C++ has only from C++20 and then only in
 *    declaration order.
 *
 * Build (C++11 or later):
 *
 *   c++ -O2 -Wall $(pkg-config --cflags plugshmem) -shared -fPIC \
 *      -o transport-loopbackcxx.so loopback.cpp
 *
 * and run it as the C one, with SHMEM_TRANSPORT=loopbackcxx.
 */
#include <cstdio>
#include <cstring>

#include <plugshmem/transport.h>

namespace {

const pshm_core_services *svc;

char *at(int pe, int seg, size_t off) noexcept
{
    char *base = static_cast<char *>(svc->peer_base[seg][pe]);
    if (!base)
        svc->fatal("loopbackcxx transport: PE %d's segment %d is not mapped here", pe, seg);
    return base + off;
}

void lb_put(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len) noexcept
{
    std::memcpy(at(pe, seg, off), src, len);
}

void lb_get(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len) noexcept
{
    std::memcpy(dst, at(pe, seg, off), len);
}

/* One template for both widths, where C needs a macro. */
template <typename T>
void amo(T *word, int op, const void *operand, const void *compare, void *fetch) noexcept
{
    T v = 0, old = 0;
    if (operand)
        std::memcpy(&v, operand, sizeof v);
    switch (op) {
    case PSHM_AMO_ADD: old = __atomic_fetch_add(word, v, __ATOMIC_SEQ_CST); break;
    case PSHM_AMO_AND: old = __atomic_fetch_and(word, v, __ATOMIC_SEQ_CST); break;
    case PSHM_AMO_OR: old = __atomic_fetch_or(word, v, __ATOMIC_SEQ_CST); break;
    case PSHM_AMO_XOR: old = __atomic_fetch_xor(word, v, __ATOMIC_SEQ_CST); break;
    case PSHM_AMO_READ: old = __atomic_load_n(word, __ATOMIC_SEQ_CST); break;
    case PSHM_AMO_CSWAP:
        std::memcpy(&old, compare, sizeof old);
        __atomic_compare_exchange_n(word, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        break;
    case PSHM_AMO_SWAP:
    case PSHM_AMO_SET: old = __atomic_exchange_n(word, v, __ATOMIC_SEQ_CST); break;
    default: svc->fatal("loopbackcxx transport: unknown atomic operation %d", op);
    }
    if (fetch)
        std::memcpy(fetch, &old, sizeof old);
}

void lb_amo(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
            const void *compare, void *fetch, int) noexcept
{
    if (type == PSHM_T_U32 || type == PSHM_T_FLOAT)
        amo(reinterpret_cast<uint32_t *>(at(pe, seg, off)), op, operand, compare, fetch);
    else
        amo(reinterpret_cast<uint64_t *>(at(pe, seg, off)), op, operand, compare, fetch);
}

void lb_put_signal(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len,
                   int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int) noexcept
{
    std::memcpy(at(pe, seg, off), src, len);
    uint64_t *sig = reinterpret_cast<uint64_t *>(at(pe, sig_seg, sig_off));
    if (sig_op == PSHM_AMO_ADD)
        __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
    else
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
}

int lb_ctx_create(long, pshm_tctx *ctx) noexcept
{
    *ctx = nullptr;
    return 0;
}

void lb_ctx_destroy(pshm_tctx) noexcept {}

const pshm_transport_ops ops = [] {
    pshm_transport_ops o{};
    o.hdr = PSHM_ABI_HEADER(pshm_transport_ops);
    o.caps = PSHM_CAP_AMO_CPU_COHERENT | PSHM_CAP_THREAD_SAFE | PSHM_CAP_COMPLETE_ON_RETURN;
    o.ctx_create = lb_ctx_create;
    o.ctx_destroy = lb_ctx_destroy;
    o.put = lb_put;
    o.get = lb_get;
    o.amo = lb_amo;
    o.put_signal = lb_put_signal;
    return o;
}();

int lb_query(const pshm_core_services *s, char *why, size_t whylen) noexcept
{
    if (s->n_local != s->n_pes) {
        std::snprintf(why, whylen, "the job spans several nodes (%d of %d PEs on this one); "
                      "loopbackcxx serves single-node jobs", s->n_local, s->n_pes);
        return -1;
    }
    return 1;
}

int lb_max_priority(const pshm_core_services *s) noexcept
{
    return s->n_local == s->n_pes ? 1 : -1;
}

int lb_init(const pshm_core_services *s, const pshm_transport_ops **out) noexcept
{
    svc = s;
    for (int pe = 0; pe < s->n_pes; pe++)
        for (int seg = 0; seg < PSHM_NSEGS; seg++)
            if (s->seg[seg].size && !s->peer_base[seg][pe]) {
                s->error("loopbackcxx transport: PE %d's %s segment is not mapped here; it "
                         "needs SHMEM_GLOBALS=map",
                         pe, seg == PSHM_SEG_HEAP ? "heap" : "data");
                return -1;
            }
    const char *v = s->getenv("SHMEM_LOOPBACKCXX_VERBOSE");
    if (v && *v == '1' && s->my_pe == 0)
        std::printf("loopbackcxx transport: %d PEs by load/store, from C++\n", s->n_pes);
    *out = &ops;
    return 0;
}

void lb_fini() noexcept { svc = nullptr; }

const pshm_setting settings[] = {
    {"SHMEM_LOOPBACKCXX_VERBOSE", PSHM_SETTING_BOOL, "0", nullptr,
     "loopbackcxx transport: PE 0 prints one line at initialization"},
    {nullptr, 0, nullptr, nullptr, nullptr},
};

/* A function, not a lambda, fills the descriptor: declarations inside a
 * lambda in the extern "C" definition would be taken as extern too. */
pshm_transport_desc make_desc() noexcept
{
    pshm_transport_desc d{};
    d.hdr = PSHM_ABI_HEADER(pshm_transport_desc);
    d.name = "loopbackcxx";
    d.description = "example in C++: one node, load/store into the core's mappings of peers";
    d.flags = PSHM_DESC_USES_PEER_MAPPINGS;
    d.query = lb_query;
    d.init = lb_init;
    d.fini = lb_fini;
    d.max_priority = lb_max_priority;
    d.settings = settings;
    return d;
}

} // namespace

PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = make_desc();
