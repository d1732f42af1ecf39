/* Ordering, completion, waiting, and the world barrier. */
#include <sched.h>

#include "api.h"
#include "config.h"
#include "segment.h"
#include "sync.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void pshm_wait_step(unsigned *spins)
{
    if (pshm_g.tp_progress)
        pshm_g.tp->progress();
    if (*spins < pshm_cfg.wait_spins) {
        ++*spins;
        cpu_relax();
        return;
    }
    /* PEs may outnumber cores: let the PE we wait for run. */
    sched_yield();
}

void pshm_flag_put(uint64_t *addr, uint64_t value, int pe)
{
    char *b = pshm_mapped(addr, pe);
    if (b) {
        __atomic_store_n((uint64_t *)b, value, __ATOMIC_RELEASE);
        return;
    }
    size_t off = 0;
    int s = pshm_seg_of(addr, &off);
    pshm_g.tp->put(NULL, pe, s, off, &value, sizeof value);
}

/* The world barrier and barrier_all/sync_all run the collectives table's
 * barrier (collectives/coll_api.c); barrier_all completes this PE's
 * communication first. */
PSHM_API void pshmem_barrier_all(void)
{
    pshm_quiet(&pshm_ctx_default);
    pshm_barrier_world();
}
#pragma weak shmem_barrier_all = pshmem_barrier_all

PSHM_API void pshmem_sync_all(void)
{
    pshm_barrier_world();
}
#pragma weak shmem_sync_all = pshmem_sync_all

PSHM_API void pshmem_quiet(void) { pshm_quiet(&pshm_ctx_default); }
#pragma weak shmem_quiet = pshmem_quiet

PSHM_API void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx)
        pshm_quiet(ctx);
}
#pragma weak shmem_ctx_quiet = pshmem_ctx_quiet

static inline void fence(struct pshm_ctx *c)
{
    atomic_thread_fence(memory_order_release);
    if (pshm_g.tp->fence)
        pshm_g.tp->fence(c->t);
}

PSHM_API void pshmem_fence(void) { fence(&pshm_ctx_default); }
#pragma weak shmem_fence = pshmem_fence

PSHM_API void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx)
        fence(ctx);
}
#pragma weak shmem_ctx_fence = pshmem_ctx_fence

/* Completing everything also completes what went to the named PEs. */
PSHM_API void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    (void)target_pes;
    (void)npes;
    pshm_quiet(&pshm_ctx_default);
}
#pragma weak shmem_pe_quiet = pshmem_pe_quiet

PSHM_API void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    (void)target_pes;
    (void)npes;
    if (ctx)
        pshm_quiet(ctx);
}
#pragma weak shmem_ctx_pe_quiet = pshmem_ctx_pe_quiet
