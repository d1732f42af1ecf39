/* Signal words: fetch, add, set and wait on a symmetric uint64_t. */
#include "api.h"

PSHM_API uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
#pragma weak shmem_signal_fetch = pshmem_signal_fetch

PSHM_API void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    pshm_amo_n64("shmem_signal_add", &pshm_ctx_default, sig_addr, pe, PSHM_AMO_ADD, signal);
}
#pragma weak shmem_signal_add = pshmem_signal_add

PSHM_API void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    pe = PSHM_CTX_PE(ctx, "shmem_ctx_signal_add", pe);
    pshm_amo_n64("shmem_ctx_signal_add", ctx, sig_addr, pe, PSHM_AMO_ADD, signal);
}
#pragma weak shmem_ctx_signal_add = pshmem_ctx_signal_add

PSHM_API void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    pshm_amo_n64("shmem_signal_set", &pshm_ctx_default, sig_addr, pe, PSHM_AMO_SET, signal);
}
#pragma weak shmem_signal_set = pshmem_signal_set

PSHM_API void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    pe = PSHM_CTX_PE(ctx, "shmem_ctx_signal_set", pe);
    pshm_amo_n64("shmem_ctx_signal_set", ctx, sig_addr, pe, PSHM_AMO_SET, signal);
}
#pragma weak shmem_ctx_signal_set = pshmem_ctx_signal_set

PSHM_API uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    PSHM_CHECK_INIT("shmem_signal_wait_until");
    struct pshm_wait w = {0};
    uint64_t v;
    while (!PSHM_CMP("shmem_signal_wait_until", (v = PSHM_LOAD(sig_addr)), cmp, cmp_value))
        pshm_wait_step(&w, sig_addr, 1);
    pshm_wait_end(&w);
    return v;
}
#pragma weak shmem_signal_wait_until = pshmem_signal_wait_until
