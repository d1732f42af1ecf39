/*
 * The symmetric segments: the heap (a POSIX shared-memory object, so that
 * on-node peers can map it) and the executable's data and bss.  The heap
 * starts with an internal area the library uses for its own symmetric
 * state (barrier flags, collective scratch); user allocations follow it.
 */
#ifndef PSHM_SEGMENT_H
#define PSHM_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"
#include "pshm.h"

#define PSHM_INTERNAL_SIZE ((size_t)1 << 20)

/* Symmetric state of the library, at offset 0 of every PE's heap. */
struct pshm_internal {
    uint64_t barrier_flags[64]; /* dissemination barrier of the world team */
};

/* Creates this PE's heap (internal area + user_size bytes), shares its data
 * segment when map_globals, exchanges names with every PE, maps on-node
 * peers when bypass, and unlinks every name once all peers hold a mapping.
 * Fills pshm_g.heap_*, data_*, and peer[].base.  Returns 0, or -1 having
 * reported the error. */
int pshm_segments_init(const struct pshm_boot *b, size_t user_size, int map_globals, int bypass);
void pshm_segments_fini(void);

static inline struct pshm_internal *pshm_internal(void)
{
    return (struct pshm_internal *)pshm_g.heap_lo;
}

/* Where user allocations start in the heap. */
static inline char *pshm_user_heap(void) { return (char *)pshm_g.heap_lo + PSHM_INTERNAL_SIZE; }

#endif
