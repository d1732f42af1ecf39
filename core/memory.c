/* shmem_malloc and friends: collective over the world team, deterministic
 * offsets (the same calls give the same offsets on every PE), a barrier
 * where the specification puts one. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "config.h"
#include "error.h"
#include "memory.h"
#include "segment.h"
#include "space.h"
#include "sync.h"

/* Every block is aligned for any type and kept off others' cache lines. */
#define MIN_ALIGN 64

static pshm_alloc *heap;
static size_t heap_user_size;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

void pshm_memory_init(size_t user_size)
{
    heap_user_size = user_size;
    heap = pshm_alloc_create(user_size, MIN_ALIGN);
    if (!heap)
        pshm_fatal("out of memory for the symmetric heap's allocator");
}

void pshm_memory_fini(void)
{
    pshm_alloc_destroy(heap);
    heap = NULL;
}

int pshm_memory_block_of(size_t off, size_t *start, size_t *len)
{
    pthread_mutex_lock(&heap_lock);
    int rc = heap ? pshm_alloc_block_at(heap, off, start, len) : -1;
    pthread_mutex_unlock(&heap_lock);
    return rc;
}

static void no_memory(const char *routine, size_t size)
{
    /* Every PE fails alike (the heap is symmetric): one report is enough. */
    if (pshm_cfg.debug && pshm_g.my_pe == 0)
        pshm_error("%s(%zu): out of symmetric memory: %zu bytes free, largest free block %zu; "
                   "raise SHMEM_SYMMETRIC_SIZE (now %zu)",
                   routine, size, pshm_alloc_free_bytes(heap), pshm_alloc_largest_free(heap),
                   heap_user_size);
}

static void *alloc(const char *routine, size_t size, size_t align, int zero)
{
    if (PSHM_UNLIKELY(!heap))
        pshm_not_init(routine);
    size_t off;
    pthread_mutex_lock(&heap_lock);
    int rc = pshm_alloc_alloc(heap, size, align, &off);
    pthread_mutex_unlock(&heap_lock);
    void *p = NULL;
    if (rc == 0) {
        p = pshm_user_heap() + off;
        if (zero)
            memset(p, 0, size);
    } else
        no_memory(routine, size);
    pshmem_barrier_all();
    return p;
}

static int block_of(const char *routine, void *ptr, size_t *off)
{
    uintptr_t o = (uintptr_t)ptr - (uintptr_t)pshm_user_heap();
    if ((uintptr_t)ptr < (uintptr_t)pshm_user_heap() || o >= heap_user_size ||
        !pshm_alloc_block_size(heap, o)) {
        pshm_error("%s(%p): not a pointer returned by shmem_malloc or already freed", routine,
                   ptr);
        return -1;
    }
    *off = o;
    return 0;
}

PSHM_API void *pshmem_malloc(size_t size)
{
    return size ? alloc("shmem_malloc", size, 0, 0) : NULL;
}
#pragma weak shmem_malloc = pshmem_malloc

PSHM_API void *pshmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every block is already fit for remote atomics and signals */
    return size ? alloc("shmem_malloc_with_hints", size, 0, 0) : NULL;
}
#pragma weak shmem_malloc_with_hints = pshmem_malloc_with_hints

PSHM_API void *pshmem_calloc(size_t count, size_t size)
{
    if (!count || !size)
        return NULL;
    if (count > SIZE_MAX / size) {
        if (pshm_cfg.debug && pshm_g.my_pe == 0)
            pshm_error("shmem_calloc(%zu, %zu): the product overflows size_t", count, size);
        pshmem_barrier_all();
        return NULL;
    }
    /* Zeroed before the barrier, so that no peer's put can precede it. */
    return alloc("shmem_calloc", count * size, 0, 1);
}
#pragma weak shmem_calloc = pshmem_calloc

PSHM_API void *pshmem_align(size_t alignment, size_t size)
{
    if (!size)
        return NULL;
    if (!alignment || (alignment & (alignment - 1)) || alignment > PSHM_HEAP_ALIGN) {
        if (pshm_cfg.debug && pshm_g.my_pe == 0)
            pshm_error("shmem_align(%zu, %zu): alignment must be a power of two of at most %zu",
                       alignment, size, PSHM_HEAP_ALIGN);
        pshmem_barrier_all();
        return NULL;
    }
    return alloc("shmem_align", size, alignment, 0);
}
#pragma weak shmem_align = pshmem_align

PSHM_API void pshmem_free(void *ptr)
{
    if (!ptr)
        return;
    if (PSHM_UNLIKELY(pshm_space_free(ptr)))
        return;
    pshmem_barrier_all();
    size_t off;
    pthread_mutex_lock(&heap_lock);
    if (block_of("shmem_free", ptr, &off) == 0)
        pshm_alloc_free(heap, off);
    pthread_mutex_unlock(&heap_lock);
}
#pragma weak shmem_free = pshmem_free

PSHM_API void *pshmem_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return pshmem_malloc(size);
    if (!size) {
        pshmem_free(ptr);
        return NULL;
    }
    /* Peers may still be reading the old block. */
    pshmem_barrier_all();
    size_t off, newoff;
    int moved = 0;
    void *res = NULL;
    pthread_mutex_lock(&heap_lock);
    if (block_of("shmem_realloc", ptr, &off) == 0) {
        size_t old = pshm_alloc_block_size(heap, off);
        int rc = pshm_alloc_realloc(heap, off, size, &newoff, &moved);
        if (rc == 0) {
            res = pshm_user_heap() + newoff;
            if (moved) {
                memcpy(res, ptr, old < size ? old : size);
                pshm_alloc_free(heap, off);
            }
        } else {
            no_memory("shmem_realloc", size);
        }
    }
    pthread_mutex_unlock(&heap_lock);
    pshmem_barrier_all();
    return res;
}
#pragma weak shmem_realloc = pshmem_realloc

PSHM_API void *pshmalloc(size_t size) { return pshmem_malloc(size); }
#pragma weak shmalloc = pshmalloc
PSHM_API void pshfree(void *ptr) { pshmem_free(ptr); }
#pragma weak shfree = pshfree
PSHM_API void *pshrealloc(void *ptr, size_t size) { return pshmem_realloc(ptr, size); }
#pragma weak shrealloc = pshrealloc
PSHM_API void *pshmemalign(size_t alignment, size_t size) { return pshmem_align(alignment, size); }
#pragma weak shmemalign = pshmemalign
