/*
 * The symmetric segments: the heap (a POSIX shared-memory object, so that
 * on-node peers can map it) and the executable's data and bss.  User
 * allocations start at the heap's base, which is aligned to PSHM_HEAP_ALIGN
 * on every PE, so that shmem_align's alignments hold for addresses, not
 * just offsets; the library's own symmetric state (the internal area)
 * follows the user's part.
 */
#ifndef PSHM_SEGMENT_H
#define PSHM_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"
#include "pshm.h"

#define PSHM_INTERNAL_SIZE ((size_t)2 << 20) /* the collectives' part: 64 team slots of 32 KiB */
#define PSHM_HEAP_ALIGN ((size_t)1 << 30)

/* Symmetric state of the library, at the end of every PE's heap. */
struct pshm_internal {
    /* Per-team collective state: flags and scratch of PSHM_COLL_SLOTS team
     * slots (collectives/coll_state.h gives it its layout). */
    _Alignas(4096) unsigned char coll[PSHM_INTERNAL_SIZE];
    /* Sleeping waiters (core/pshm.h); a line of its own, since every
     * signalling store on the node reads it. */
    _Alignas(64) struct pshm_sleep sleep;
    /* The finalize barrier (core/init.c), apart from every collective's
     * flags so that it never matches a shmem_barrier_all: how many other
     * PEs reached shmem_finalize or exit, the first of them to tell this
     * PE (PE + 1, bit 32 set if at exit), and, on a PE that left, the
     * first PE that found it waited for in vain (PE + 1). */
    _Alignas(64) uint64_t fin_count;
    uint64_t fin_who;
    uint64_t fin_verdict;
};

/* Creates this PE's heap (internal area + user_size bytes), shares its data
 * segment when map_globals, exchanges names with every PE, maps on-node
 * peers when map_peers, and unlinks every name once all peers hold a
 * mapping.  Fills pshm_g.heap_*, data_*, and peer[].base.  Returns 0, or
 * -1 having reported the error. */
int pshm_segments_init(const struct pshm_boot *b, size_t user_size, int map_globals,
                       int map_peers);
void pshm_segments_fini(void);
/* Where segment s of PE pe is mapped here (this PE's own included), or
 * NULL: whatever routes the core then chose. */
char *pshm_segment_mapping(int pe, int s);

/* Memory spaces (core/space.c): a new shared-memory object of size bytes
 * mapped here, named in name (unlink it once peers mapped it), or NULL
 * having reported why; and a peer's object by its name. */
#define PSHM_SEG_NAME_LEN 64
char *pshm_segment_new_shared(size_t size, char name[PSHM_SEG_NAME_LEN], int rank);
char *pshm_segment_map_named(const char *name, size_t size, int pe);

static inline struct pshm_internal *pshm_internal(void)
{
    return (struct pshm_internal *)(pshm_g.heap_lo + pshm_g.heap_len - sizeof(struct pshm_internal));
}

/* Where user allocations start in the heap. */
static inline char *pshm_user_heap(void) { return (char *)pshm_g.heap_lo; }

#endif
