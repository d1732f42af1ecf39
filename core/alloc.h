/*
 * Symmetric-heap allocator.
 *
 * Hands out offsets within [0, size) of a heap that lives in shared memory.
 * Every PE runs its own instance, and symmetric allocation works only if
 * all of them return the same offset for the same call, so the allocator is
 * fully deterministic: its result depends only on the sequence of calls and
 * their arguments, never on where its metadata happens to be, on time or on
 * randomness.  Metadata is kept in private memory (malloc), never inside the
 * managed range, so the whole range is usable: a single allocation of
 * exactly `size` bytes succeeds on an empty heap.
 *
 * Policy: address-ordered first fit with splitting and immediate
 * coalescing.  Every block starts at a multiple of min_align, and block
 * lengths are multiples of min_align, except that a block reaching the end
 * of a heap whose size is not a multiple of min_align ends at `size`.
 *
 * Not thread-safe: the caller serialises all calls on one instance.
 */
#ifndef PSHM_ALLOC_H
#define PSHM_ALLOC_H

#include <stddef.h>

typedef struct pshm_alloc pshm_alloc;

/* Manages offsets [0, size).  min_align (a power of two, >= 16) is the
 * alignment of every block and the granularity of sizes.  Returns NULL with
 * errno = EINVAL on a bad min_align, or NULL (ENOMEM) if the metadata cannot
 * be allocated. */
pshm_alloc *pshm_alloc_create(size_t size, size_t min_align);
void pshm_alloc_destroy(pshm_alloc *a);

/* Allocates a block of at least `size` bytes (0 is treated as 1) aligned to
 * `align` (0 means min_align; a power of two smaller than min_align is
 * raised to it).  Returns 0 and sets *off; ENOMEM if no free range fits (or
 * the metadata cannot be allocated); EINVAL if align is not a power of two
 * or size + align overflows.  On error nothing changes. */
int pshm_alloc_alloc(pshm_alloc *a, size_t size, size_t align, size_t *off);

/* off must be the start of a live block: returns 0, or EINVAL (not a live
 * block; nothing changes).  Never fails for lack of memory. */
int pshm_alloc_free(pshm_alloc *a, size_t off);

/* Resizes the live block at off to at least newsize bytes (0 is treated as
 * 1).  Shrinks in place always, and grows in place when the space right
 * after the block is free and large enough; then *newoff = off and
 * *moved = 0.  Otherwise allocates a new block (alignment min_align), sets
 * *newoff to it and *moved = 1, and KEEPS the old block allocated: the
 * caller copies the data and then calls pshm_alloc_free(old).  Returns 0,
 * ENOMEM (nothing changed), or EINVAL (off is not a live block). */
int pshm_alloc_realloc(pshm_alloc *a, size_t off, size_t newsize, size_t *newoff, int *moved);

/* Usable size of the live block starting at off, 0 if there is none. */
size_t pshm_alloc_block_size(const pshm_alloc *a, size_t off);
/* The live block holding offset off (not only starting there): 0 and
 * its start and usable length, or -1 if off is in no live block. */
int pshm_alloc_block_at(const pshm_alloc *a, size_t off, size_t *start, size_t *len);
/* Total free bytes. */
size_t pshm_alloc_free_bytes(const pshm_alloc *a);
/* Largest contiguous free range (an upper bound on what an allocation with
 * alignment min_align can get). */
size_t pshm_alloc_largest_free(const pshm_alloc *a);
/* Number of live blocks. */
size_t pshm_alloc_live_blocks(const pshm_alloc *a);

/* Consistency check for tests: 0 if every invariant holds (free ranges
 * sorted, disjoint and coalesced, live blocks and free ranges tile [0, size)
 * exactly, internal trees balanced with correct annotations and counters),
 * else a nonzero code identifying the first broken invariant. */
int pshm_alloc_check(const pshm_alloc *a);

#endif /* PSHM_ALLOC_H */
