/*
 * Distributed locks: an MCS queue lock, so waiters are served in arrival
 * order and each spins on its own memory.
 *
 * The user's lock is one symmetric long, zero when free.  Its low 32 bits
 * on the lock's home PE hold the queue's tail (PE + 1, 0 if none).  Its high
 * 32 bits on every PE are that PE's queue node: bit 31 says "still
 * waiting", bits 0-30 hold the next waiter (PE + 1, 0 if none).  Each half
 * is only ever updated with 32-bit atomics.
 */
#include "api.h"
#include "error.h"

#define WAITING 0x80000000u
#define NEXT_MASK 0x7fffffffu

struct halves {
    uint32_t *tail; /* low half (little-endian) */
    uint32_t *node; /* high half */
};

static struct halves halves(long *lock)
{
    uint32_t *w = (uint32_t *)lock;
    return (struct halves){w, w + 1};
}

/* Spreads locks over PEs so that no PE serves every lock. */
static int home_of(long *lock)
{
    size_t off = 0;
    if (pshm_seg_of(lock, &off) < 0)
        pshm_fatal("shmem lock routine: lock %p is not symmetric", (void *)lock);
    return (int)((off / sizeof(long)) % (size_t)pshm_g.n_pes);
}

#define AMO32(name, addr, pe, op, v, c)                                                            \
    pshm_amo_f32(name, &pshm_ctx_default, (addr), (pe), (op), (v), (c))

static void enqueue_wait(const char *name, struct halves h, uint32_t prev)
{
    int me = pshm_g.my_pe;
    AMO32(name, h.node, (int)prev - 1, PSHM_AMO_OR, (uint32_t)me + 1, 0);
    /* The predecessor may sleep in clear_lock until we are linked. */
    pshm_wake_check((int)prev - 1, h.node);
    struct pshm_wait w = {0};
    while (__atomic_load_n(h.node, __ATOMIC_ACQUIRE) & WAITING)
        pshm_wait_step(&w, h.node, 1);
    pshm_wait_end(&w);
}

PSHM_API void pshmem_set_lock(long *lock)
{
    PSHM_CHECK_INIT("shmem_set_lock");
    struct halves h = halves(lock);
    int me = pshm_g.my_pe, home = home_of(lock);
    __atomic_store_n(h.node, WAITING, __ATOMIC_RELEASE);
    uint32_t prev = AMO32("shmem_set_lock", h.tail, home, PSHM_AMO_SWAP, (uint32_t)me + 1, 0);
    if (prev)
        enqueue_wait("shmem_set_lock", h, prev);
    atomic_thread_fence(memory_order_acquire);
}
#pragma weak shmem_set_lock = pshmem_set_lock

PSHM_API int pshmem_test_lock(long *lock)
{
    PSHM_CHECK_INIT("shmem_test_lock");
    struct halves h = halves(lock);
    int me = pshm_g.my_pe, home = home_of(lock);
    __atomic_store_n(h.node, 0u, __ATOMIC_RELEASE);
    uint32_t prev = AMO32("shmem_test_lock", h.tail, home, PSHM_AMO_CSWAP, (uint32_t)me + 1, 0);
    atomic_thread_fence(memory_order_acquire);
    return prev != 0;
}
#pragma weak shmem_test_lock = pshmem_test_lock

PSHM_API void pshmem_clear_lock(long *lock)
{
    PSHM_CHECK_INIT("shmem_clear_lock");
    struct halves h = halves(lock);
    int me = pshm_g.my_pe, home = home_of(lock);
    /* What was written under the lock is complete before the next owner. */
    pshm_quiet(&pshm_ctx_default);
    uint32_t next = __atomic_load_n(h.node, __ATOMIC_ACQUIRE) & NEXT_MASK;
    if (!next) {
        uint32_t t = AMO32("shmem_clear_lock", h.tail, home, PSHM_AMO_CSWAP, 0, (uint32_t)me + 1);
        if (t == (uint32_t)me + 1)
            return;
        /* A successor swapped itself in and is about to link behind us. */
        struct pshm_wait w = {0};
        while (!(next = __atomic_load_n(h.node, __ATOMIC_ACQUIRE) & NEXT_MASK))
            pshm_wait_step(&w, h.node, 1);
        pshm_wait_end(&w);
    }
    AMO32("shmem_clear_lock", h.node, (int)next - 1, PSHM_AMO_AND, ~WAITING, 0);
    /* The successor may sleep in enqueue_wait until this. */
    pshm_wake_check((int)next - 1, h.node);
}
#pragma weak shmem_clear_lock = pshmem_clear_lock
