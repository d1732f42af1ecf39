/*
 * Unit test of the symmetric-heap allocator (core/alloc.c).
 *
 * Build: gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Icore \
 *            core/alloc.c tests/unit/test_alloc.c -o /tmp/test_alloc
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"

#define CHECK_WITHOUT_SHMEM /* this test calls core/alloc.c directly */
#include "../common/check.h"

/* Deterministic PRNG (splitmix64) so every run and every allocator sees the
 * same sequence. */
typedef struct {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t rng_below(rng *r, size_t n) { return (size_t)(rng_next(r) % n); }

static size_t round_up(size_t x, size_t g) { return (x + g - 1) / g * g; }

/* Snapshot of the observable state, to assert that failed calls change
 * nothing. */
typedef struct {
    size_t free_bytes, largest, live;
} snap;

static snap take_snap(const pshm_alloc *a) {
    snap s = {pshm_alloc_free_bytes(a), pshm_alloc_largest_free(a), pshm_alloc_live_blocks(a)};
    return s;
}

static int same_snap(snap x, snap y) {
    return x.free_bytes == y.free_bytes && x.largest == y.largest && x.live == y.live;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_create_args(void) {
    CHECK_EQ(pshm_alloc_create(4096, 8), NULL);
    CHECK_EQ(pshm_alloc_create(4096, 24), NULL);
    CHECK_EQ(pshm_alloc_create(4096, 0), NULL);

    /* An empty heap is legal and simply never has room. */
    pshm_alloc *a = pshm_alloc_create(0, 16);
    CHECK_NE(a, NULL);
    if (!a) return;
    size_t off;
    CHECK_EQ(pshm_alloc_alloc(a, 1, 0, &off), ENOMEM);
    CHECK_EQ(pshm_alloc_free_bytes(a), 0);
    CHECK_EQ(pshm_alloc_largest_free(a), 0);
    CHECK_EQ(pshm_alloc_check(a), 0);
    pshm_alloc_destroy(a);
    pshm_alloc_destroy(NULL);
}

static void test_whole_heap(void) {
    const size_t sizes[] = {1u << 20, 1000, 16, 4096 + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t sz = sizes[i];
        pshm_alloc *a = pshm_alloc_create(sz, 16);
        CHECK_NE(a, NULL);
        if (!a) continue;
        CHECK_EQ(pshm_alloc_free_bytes(a), sz);
        CHECK_EQ(pshm_alloc_largest_free(a), sz);
        size_t off = 12345;
        CHECK_EQ(pshm_alloc_alloc(a, sz, 0, &off), 0);
        CHECK_EQ(off, 0);
        CHECK_EQ(pshm_alloc_block_size(a, 0), sz); /* the partial granule too */
        CHECK_EQ(pshm_alloc_free_bytes(a), 0);
        CHECK_EQ(pshm_alloc_largest_free(a), 0);
        CHECK_EQ(pshm_alloc_live_blocks(a), 1);
        CHECK_EQ(pshm_alloc_check(a), 0);
        CHECK_EQ(pshm_alloc_alloc(a, 1, 0, &off), ENOMEM);
        CHECK_EQ(pshm_alloc_free(a, 0), 0);
        CHECK_EQ(pshm_alloc_free_bytes(a), sz);
        CHECK_EQ(pshm_alloc_largest_free(a), sz);
        CHECK_EQ(pshm_alloc_live_blocks(a), 0);
        CHECK_EQ(pshm_alloc_check(a), 0);
        /* One byte more than the heap never fits. */
        CHECK_EQ(pshm_alloc_alloc(a, sz + 1, 0, &off), ENOMEM);
        pshm_alloc_destroy(a);
    }
}

static void test_exhaustion(void) {
    pshm_alloc *a = pshm_alloc_create(4096, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    size_t off[4];
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(pshm_alloc_alloc(a, 1000, 0, &off[i]), 0);
        CHECK_EQ(off[i], (size_t)i * 1008);
    }
    CHECK_EQ(pshm_alloc_free_bytes(a), 64);

    snap before = take_snap(a);
    size_t x = 777;
    CHECK_EQ(pshm_alloc_alloc(a, 100, 0, &x), ENOMEM);
    CHECK_EQ(x, 777);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_check(a), 0);

    /* Fragmentation: enough free bytes in total but no single range. */
    CHECK_EQ(pshm_alloc_free(a, off[0]), 0);
    CHECK_EQ(pshm_alloc_free(a, off[2]), 0);
    CHECK_EQ(pshm_alloc_free_bytes(a), 64 + 2 * 1008);
    before = take_snap(a);
    CHECK_EQ(pshm_alloc_alloc(a, 1500, 0, &x), ENOMEM);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_check(a), 0);

    /* The exact remainder at the end still fits, then nothing does. */
    CHECK(pshm_alloc_alloc(a, 1008, 0, &x) == 0 && x == 0);
    CHECK(pshm_alloc_alloc(a, 1008, 0, &x) == 0 && x == 2016);
    CHECK(pshm_alloc_alloc(a, 64, 0, &x) == 0 && x == 4032);
    before = take_snap(a);
    CHECK_EQ(pshm_alloc_alloc(a, 1, 0, &x), ENOMEM);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_largest_free(a), 0);
    CHECK_EQ(pshm_alloc_check(a), 0);
    pshm_alloc_destroy(a);
}

static void test_alignment(void) {
    const size_t heap = 8u << 20;
    pshm_alloc *a = pshm_alloc_create(heap, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    size_t off, first;
    CHECK(pshm_alloc_alloc(a, 16, 0, &first) == 0 && first == 0);
    for (size_t al = 16; al <= (1u << 20); al <<= 1) {
        /* A small block first so the next start is misaligned for al. */
        CHECK_EQ(pshm_alloc_alloc(a, 16, 16, &off), 0);
        CHECK_EQ(pshm_alloc_alloc(a, 1 + al / 2, al, &off), 0);
        CHECK_EQ(off % al, 0);
        CHECK_GE(pshm_alloc_block_size(a, off), 1 + al / 2);
        CHECK_EQ(pshm_alloc_check(a), 0);
    }

    /* Leading alignment gaps go back to the free set and are reused. */
    pshm_alloc *b = pshm_alloc_create(heap, 16);
    if (b) {
        size_t x, y, z;
        CHECK(pshm_alloc_alloc(b, 16, 0, &x) == 0 && x == 0);
        CHECK(pshm_alloc_alloc(b, 64, 1u << 20, &y) == 0 && y == (1u << 20));
        CHECK(pshm_alloc_alloc(b, 32, 0, &z) == 0 && z == 16);
        CHECK(pshm_alloc_alloc(b, 16, 4096, &z) == 0 && z == 4096);
        CHECK_EQ(pshm_alloc_free_bytes(b), heap - 16 - 64 - 32 - 16);
        CHECK_EQ(pshm_alloc_check(b), 0);
        pshm_alloc_destroy(b);
    } else {
        CHECK(0);
    }

    /* Argument handling. */
    pshm_alloc *c = pshm_alloc_create(4096, 64);
    if (c) {
        size_t x;
        CHECK(pshm_alloc_alloc(c, 1, 0, &x) == 0 && x == 0);
        CHECK_EQ(pshm_alloc_block_size(c, 0), 64);            /* min_align is the granularity */
        CHECK(pshm_alloc_alloc(c, 0, 0, &x) == 0 && x == 64); /* size 0 acts as 1 */
        CHECK(pshm_alloc_alloc(c, 1, 8, &x) == 0 && x == 128); /* raised to min_align */
        CHECK(pshm_alloc_alloc(c, 1, 256, &x) == 0 && x == 256);
        snap before = take_snap(c);
        CHECK_EQ(pshm_alloc_alloc(c, 1, 3, &x), EINVAL);
        CHECK_EQ(pshm_alloc_alloc(c, 1, 96, &x), EINVAL);
        CHECK_EQ(pshm_alloc_alloc(c, SIZE_MAX, 0, &x), EINVAL);
        CHECK_EQ(pshm_alloc_alloc(c, SIZE_MAX - 63, 64, &x), EINVAL);
        CHECK_EQ(pshm_alloc_alloc(c, SIZE_MAX / 2, 0, &x), ENOMEM);
        CHECK_EQ(pshm_alloc_alloc(c, 1, (size_t)1 << (sizeof(size_t) * 8 - 1), &x), ENOMEM);
        CHECK(same_snap(before, take_snap(c)));
        CHECK_EQ(pshm_alloc_check(c), 0);
        pshm_alloc_destroy(c);
    } else {
        CHECK(0);
    }
    pshm_alloc_destroy(a);
}

static void test_bad_free(void) {
    pshm_alloc *a = pshm_alloc_create(4096, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    CHECK_EQ(pshm_alloc_free(a, 0), EINVAL); /* nothing allocated yet */
    size_t x, y;
    CHECK_EQ(pshm_alloc_alloc(a, 100, 0, &x), 0);
    CHECK_EQ(pshm_alloc_alloc(a, 100, 0, &y), 0);
    snap before = take_snap(a);
    CHECK_EQ(pshm_alloc_free(a, x + 16), EINVAL); /* inside a block */
    CHECK_EQ(pshm_alloc_free(a, x + 1), EINVAL);
    CHECK_EQ(pshm_alloc_free(a, 2048), EINVAL);     /* in a free range */
    CHECK_EQ(pshm_alloc_free(a, 1u << 20), EINVAL); /* beyond the heap */
    CHECK_EQ(pshm_alloc_free(a, SIZE_MAX), EINVAL);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_block_size(a, x + 16), 0);
    CHECK_EQ(pshm_alloc_block_size(a, 2048), 0);

    CHECK_EQ(pshm_alloc_free(a, x), 0);
    before = take_snap(a);
    CHECK_EQ(pshm_alloc_free(a, x), EINVAL); /* double free */
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_block_size(a, y), 112);

    size_t no;
    int moved;
    CHECK_EQ(pshm_alloc_realloc(a, x, 10, &no, &moved), EINVAL);
    CHECK_EQ(pshm_alloc_realloc(a, y + 16, 10, &no, &moved), EINVAL);
    CHECK_EQ(pshm_alloc_check(a), 0);
    pshm_alloc_destroy(a);
}

/* Frees four adjacent blocks in all 24 orders; after every step the free set
 * must be coalesced, and at the end one range must span the heap. */
static void test_coalesce(void) {
    const size_t heap = 256; /* exactly four 64-byte blocks */
    int perm[4] = {0, 1, 2, 3};
    int n_orders = 0;
    for (;;) {
        pshm_alloc *a = pshm_alloc_create(heap, 16);
        if (!a) {
            CHECK(0);
            return;
        }
        size_t off[4];
        for (int i = 0; i < 4; i++) CHECK(pshm_alloc_alloc(a, 64, 0, &off[i]) == 0 && off[i] == (size_t)i * 64);
        CHECK_EQ(pshm_alloc_free_bytes(a), 0);
        int freed[4] = {0};
        for (int k = 0; k < 4; k++) {
            int i = perm[k];
            CHECK_EQ(pshm_alloc_free(a, off[i]), 0);
            freed[i] = 1;
            CHECK_EQ(pshm_alloc_check(a), 0);
            /* The largest free range is the longest run of freed blocks. */
            size_t run = 0, best = 0;
            for (int j = 0; j < 4; j++) {
                run = freed[j] ? run + 64 : 0;
                if (run > best) best = run;
            }
            CHECK_EQ(pshm_alloc_largest_free(a), best);
        }
        CHECK_EQ(pshm_alloc_largest_free(a), heap);
        CHECK_EQ(pshm_alloc_free_bytes(a), heap);
        CHECK_EQ(pshm_alloc_live_blocks(a), 0);
        /* Coalesced into one range: the whole heap is allocatable again. */
        size_t x;
        CHECK(pshm_alloc_alloc(a, heap, 0, &x) == 0 && x == 0);
        pshm_alloc_destroy(a);
        n_orders++;

        /* Next permutation in lexicographic order. */
        int i = 2;
        while (i >= 0 && perm[i] > perm[i + 1]) i--;
        if (i < 0) break;
        int j = 3;
        while (perm[j] < perm[i]) j--;
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        for (int lo = i + 1, hi = 3; lo < hi; lo++, hi--) {
            t = perm[lo];
            perm[lo] = perm[hi];
            perm[hi] = t;
        }
    }
    CHECK_EQ(n_orders, 24);

    /* Coalescing with a larger free tail and a free head. */
    pshm_alloc *a = pshm_alloc_create(4096, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    size_t b0, b1, b2;
    CHECK_EQ(pshm_alloc_alloc(a, 64, 0, &b0), 0);
    CHECK_EQ(pshm_alloc_alloc(a, 64, 0, &b1), 0);
    CHECK_EQ(pshm_alloc_alloc(a, 64, 0, &b2), 0);
    CHECK_EQ(pshm_alloc_free(a, b2), 0); /* merges into the tail */
    CHECK_EQ(pshm_alloc_largest_free(a), 4096 - 128);
    CHECK_EQ(pshm_alloc_free(a, b0), 0); /* stays separate: b1 is live */
    CHECK_EQ(pshm_alloc_largest_free(a), 4096 - 128);
    CHECK_EQ(pshm_alloc_free_bytes(a), 4096 - 64);
    CHECK_EQ(pshm_alloc_check(a), 0);
    CHECK_EQ(pshm_alloc_free(a, b1), 0); /* joins both sides */
    CHECK_EQ(pshm_alloc_largest_free(a), 4096);
    CHECK_EQ(pshm_alloc_check(a), 0);
    pshm_alloc_destroy(a);
}

static void test_realloc(void) {
    pshm_alloc *a = pshm_alloc_create(4096, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    size_t p, q, r, no;
    int moved;

    /* Grow in place into the free space that follows. */
    CHECK(pshm_alloc_alloc(a, 100, 0, &p) == 0 && p == 0);
    CHECK_EQ(pshm_alloc_block_size(a, p), 112);
    moved = -1;
    CHECK_EQ(pshm_alloc_realloc(a, p, 300, &no, &moved), 0);
    CHECK(moved == 0 && no == p);
    CHECK_EQ(pshm_alloc_block_size(a, p), 304);
    CHECK_EQ(pshm_alloc_free_bytes(a), 4096 - 304);
    CHECK_EQ(pshm_alloc_check(a), 0);

    /* Same size and a size within the block: in place, nothing changes. */
    CHECK(pshm_alloc_realloc(a, p, 304, &no, &moved) == 0 && moved == 0 && no == p);
    CHECK(pshm_alloc_realloc(a, p, 290, &no, &moved) == 0 && moved == 0 && no == p);
    CHECK_EQ(pshm_alloc_block_size(a, p), 304);

    /* Shrink in place: the tail is released and reused by first fit. */
    CHECK(pshm_alloc_alloc(a, 64, 0, &q) == 0 && q == 304);
    CHECK_EQ(pshm_alloc_realloc(a, p, 100, &no, &moved), 0);
    CHECK(moved == 0 && no == p);
    CHECK_EQ(pshm_alloc_block_size(a, p), 112);
    CHECK_EQ(pshm_alloc_free_bytes(a), 4096 - 112 - 64);
    CHECK_EQ(pshm_alloc_check(a), 0);
    CHECK(pshm_alloc_alloc(a, 150, 0, &r) == 0 && r == 112);
    CHECK_EQ(pshm_alloc_free(a, r), 0);

    /* Grow that exactly consumes the following free range. */
    CHECK(pshm_alloc_realloc(a, p, 304, &no, &moved) == 0 && moved == 0 && no == p);
    CHECK_EQ(pshm_alloc_block_size(a, p), 304);
    CHECK_EQ(pshm_alloc_free_bytes(a), 4096 - 304 - 64);
    CHECK_EQ(pshm_alloc_check(a), 0);

    /* Shrink whose released tail merges with a free range after it. */
    CHECK(pshm_alloc_realloc(a, q, 16, &no, &moved) == 0 && moved == 0 && no == q);
    CHECK_EQ(pshm_alloc_block_size(a, q), 16);
    CHECK_EQ(pshm_alloc_largest_free(a), 4096 - 304 - 16);
    CHECK_EQ(pshm_alloc_check(a), 0);

    /* Blocked by q: must move, and the old block stays live until freed. */
    size_t live_before = pshm_alloc_live_blocks(a);
    moved = -1;
    CHECK_EQ(pshm_alloc_realloc(a, p, 1000, &no, &moved), 0);
    CHECK_EQ(moved, 1);
    CHECK_EQ(no, 320); /* first fit after q */
    CHECK_EQ(pshm_alloc_block_size(a, no), 1008);
    CHECK_EQ(pshm_alloc_block_size(a, p), 304);
    CHECK_EQ(pshm_alloc_live_blocks(a), live_before + 1);
    CHECK(no >= p + 304 || no + 1008 <= p);
    CHECK_EQ(pshm_alloc_check(a), 0);
    CHECK_EQ(pshm_alloc_free(a, p), 0);
    CHECK_EQ(pshm_alloc_block_size(a, p), 0);
    CHECK_EQ(pshm_alloc_check(a), 0);
    p = no;

    /* No room anywhere: ENOMEM and nothing changes. */
    snap before = take_snap(a);
    no = 4242;
    moved = 7;
    CHECK_EQ(pshm_alloc_realloc(a, p, 4000, &no, &moved), ENOMEM);
    CHECK(no == 4242 && moved == 7);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_block_size(a, p), 1008);
    CHECK_EQ(pshm_alloc_realloc(a, p, SIZE_MAX, &no, &moved), ENOMEM);
    CHECK(same_snap(before, take_snap(a)));
    CHECK_EQ(pshm_alloc_check(a), 0);
    CHECK_EQ(pshm_alloc_realloc(a, p + 16, 10, &no, &moved), EINVAL);
    pshm_alloc_destroy(a);

    /* Growing into a heap whose size is not a multiple of min_align takes
     * the partial granule, and shrinking away from it gives it back. */
    a = pshm_alloc_create(1000, 16);
    if (!a) {
        CHECK(0);
        return;
    }
    CHECK(pshm_alloc_alloc(a, 10, 0, &p) == 0 && p == 0);
    CHECK(pshm_alloc_realloc(a, p, 1000, &no, &moved) == 0 && moved == 0 && no == 0);
    CHECK_EQ(pshm_alloc_block_size(a, p), 1000);
    CHECK_EQ(pshm_alloc_free_bytes(a), 0);
    CHECK(pshm_alloc_realloc(a, p, 999, &no, &moved) == 0 && moved == 0);
    CHECK_EQ(pshm_alloc_block_size(a, p), 1000);
    CHECK(pshm_alloc_realloc(a, p, 500, &no, &moved) == 0 && moved == 0);
    CHECK_EQ(pshm_alloc_block_size(a, p), 512);
    CHECK_EQ(pshm_alloc_free_bytes(a), 488);
    CHECK_EQ(pshm_alloc_check(a), 0);
    pshm_alloc_destroy(a);
}

/* Applies the same pseudo-random operation stream to two allocators whose
 * metadata lives at unrelated addresses; every result must match. */
static void test_determinism(void) {
    const size_t heap = 1u << 20;
    pshm_alloc *a = pshm_alloc_create(heap, 16);
    /* Shift the second allocator's heap metadata somewhere else. */
    void *noise[64];
    for (int i = 0; i < 64; i++) noise[i] = malloc(24 + 40 * (size_t)i);
    pshm_alloc *b = pshm_alloc_create(heap, 16);
    size_t *live = malloc(sizeof *live * 8192);
    size_t nlive = 0;
    rng r = {42};
    if (!a || !b || !live) {
        CHECK(0);
        goto out;
    }
    for (int op = 0; op < 50000; op++) {
        size_t k = rng_below(&r, 100);
        if (k < 45 || nlive == 0) {
            size_t sz = 1 + rng_below(&r, rng_below(&r, 4) ? 256 : 8192);
            size_t al = rng_below(&r, 8) ? 0 : (size_t)16 << rng_below(&r, 8);
            size_t oa = 1, ob = 2;
            int ra = pshm_alloc_alloc(a, sz, al, &oa);
            int rb = pshm_alloc_alloc(b, sz, al, &ob);
            if (!CHECK_EQ(ra, rb))
                goto out;
            if (ra == 0) {
                if (!CHECK_EQ(oa, ob))
                    goto out;
                if (nlive < 8192) live[nlive++] = oa;
            }
        } else if (k < 80) {
            size_t i = rng_below(&r, nlive);
            if (!CHECK_EQ(pshm_alloc_free(a, live[i]), 0))
                goto out;
            if (!CHECK_EQ(pshm_alloc_free(b, live[i]), 0))
                goto out;
            live[i] = live[--nlive];
        } else {
            size_t i = rng_below(&r, nlive);
            size_t sz = 1 + rng_below(&r, 2048);
            size_t na = 1, nb = 2;
            int ma = -1, mb = -2;
            int ra = pshm_alloc_realloc(a, live[i], sz, &na, &ma);
            int rb = pshm_alloc_realloc(b, live[i], sz, &nb, &mb);
            if (!CHECK_EQ(ra, rb))
                goto out;
            if (ra == 0) {
                if (!CHECK(na == nb && ma == mb))
                    goto out;
                if (ma) {
                    if (!CHECK_EQ(pshm_alloc_free(a, live[i]), 0))
                        goto out;
                    if (!CHECK_EQ(pshm_alloc_free(b, live[i]), 0))
                        goto out;
                }
                live[i] = na;
            }
        }
    }
    CHECK_EQ(pshm_alloc_free_bytes(a), pshm_alloc_free_bytes(b));
    CHECK_EQ(pshm_alloc_largest_free(a), pshm_alloc_largest_free(b));
    CHECK_EQ(pshm_alloc_live_blocks(a), nlive);
    CHECK_EQ(pshm_alloc_check(a), 0);
    CHECK_EQ(pshm_alloc_check(b), 0);
out:
    for (int i = 0; i < 64; i++) free(noise[i]);
    free(live);
    pshm_alloc_destroy(a);
    pshm_alloc_destroy(b);
}

/* ---- randomized stress against an independent shadow model ---------------
 *
 * The model is a bitmap of granules (one bit per min_align bytes) that knows
 * nothing about the allocator's trees.  From it the test derives what
 * address-ordered first fit must return, so every allocation is checked for
 * the exact offset and length, not just for the absence of overlap. */

#define ST_HEAP ((size_t)(256u << 10) - 40) /* not a multiple of the granule */
#define ST_G 16u
#define ST_NGRAN ((ST_HEAP + ST_G - 1) / ST_G)
#define ST_WORDS ((ST_NGRAN + 63) / 64)

typedef struct {
    uint64_t bits[ST_WORDS];
} shadow;

static int sh_get(const shadow *s, size_t g) { return (int)(s->bits[g / 64] >> (g % 64)) & 1; }

static void sh_fill(shadow *s, size_t off, size_t len, int v) {
    for (size_t g = off / ST_G; g < (off + len + ST_G - 1) / ST_G; g++) {
        if (v)
            s->bits[g / 64] |= (uint64_t)1 << (g % 64);
        else
            s->bits[g / 64] &= ~((uint64_t)1 << (g % 64));
    }
}

static int sh_is_clear(const shadow *s, size_t off, size_t len) {
    for (size_t g = off / ST_G; g < (off + len + ST_G - 1) / ST_G; g++)
        if (sh_get(s, g)) return 0;
    return 1;
}

/* First granule >= g whose bit equals v, or ST_NGRAN. */
static size_t sh_next(const shadow *s, size_t g, int v) {
    if (g >= ST_NGRAN) return ST_NGRAN;
    size_t w = g / 64;
    uint64_t x = (v ? s->bits[w] : ~s->bits[w]) & (~(uint64_t)0 << (g % 64));
    while (!x) {
        if (++w >= ST_WORDS) return ST_NGRAN;
        x = v ? s->bits[w] : ~s->bits[w];
    }
    size_t r = w * 64 + (size_t)__builtin_ctzll(x);
    return r < ST_NGRAN ? r : ST_NGRAN;
}

/* Expected first fit: lowest aligned start in a free run with room for want
 * bytes.  Returns 1 and the start and the run's end in bytes, or 0. */
static int sh_first_fit(const shadow *s, size_t want, size_t align, size_t *at, size_t *run_end) {
    for (size_t g = sh_next(s, 0, 0); g < ST_NGRAN;) {
        size_t e = sh_next(s, g, 1);
        size_t start = round_up(g * ST_G, align);
        size_t end = e * ST_G < ST_HEAP ? e * ST_G : ST_HEAP;
        if (start < end && end - start >= want) {
            *at = start;
            *run_end = end;
            return 1;
        }
        g = sh_next(s, e, 0);
    }
    return 0;
}

static size_t sh_largest(const shadow *s, size_t *total) {
    size_t best = 0;
    *total = 0;
    for (size_t g = sh_next(s, 0, 0); g < ST_NGRAN;) {
        size_t e = sh_next(s, g, 1);
        size_t end = e * ST_G < ST_HEAP ? e * ST_G : ST_HEAP;
        size_t len = end - g * ST_G;
        *total += len;
        if (len > best) best = len;
        g = sh_next(s, e, 0);
    }
    return best;
}

/* What the allocator must give for want bytes in a free run ending at end. */
static size_t expect_len(size_t start, size_t want, size_t end) {
    size_t r = round_up(want, ST_G);
    return r <= end - start ? r : end - start;
}

typedef struct {
    size_t off, len;
} blk;

static size_t stress_size(rng *r) {
    size_t k = rng_below(r, 100);
    if (k < 70) return 1 + rng_below(r, 256);
    if (k < 95) return 1 + rng_below(r, 4096);
    return 1 + rng_below(r, 32768);
}

static void test_stress(void) {
    pshm_alloc *a = pshm_alloc_create(ST_HEAP, ST_G);
    shadow *s = calloc(1, sizeof *s);
    blk *live = malloc(sizeof *live * ST_NGRAN);
    size_t nlive = 0, used = 0;
    size_t n_alloc = 0, n_enomem = 0, n_free = 0, n_grow = 0, n_shrink = 0, n_move = 0;
    rng r = {2024};
    if (!a || !s || !live) {
        CHECK(0);
        goto out;
    }
    for (long op = 0; op < 200000; op++) {
        /* Whole-state comparison with the model every 1000 operations
         * (at the top, so the branches below may `continue`). */
        if (op % 1000 == 0) {
            size_t total;
            size_t largest = sh_largest(s, &total);
            if (!CHECK_EQ(pshm_alloc_check(a), 0))
                goto out;
            if (!CHECK_EQ(pshm_alloc_live_blocks(a), nlive))
                goto out;
            if (!CHECK_EQ(pshm_alloc_free_bytes(a), ST_HEAP - used))
                goto out;
            if (!CHECK_EQ(total, ST_HEAP - used))
                goto out;
            if (!CHECK_EQ(pshm_alloc_largest_free(a), largest))
                goto out;
        }
        /* Bias towards freeing when the heap is fairly full, so the run
         * visits both the roomy and the crowded regime. */
        size_t k = rng_below(&r, 100);
        int full = used > ST_HEAP / 10 * 7;
        size_t p_alloc = full ? 30 : 55, p_free = full ? 85 : 80;
        if (k < p_alloc || nlive == 0) {
            size_t want = stress_size(&r);
            size_t al = rng_below(&r, 10) ? 0 : (size_t)16 << rng_below(&r, 10);
            size_t eff = al ? al : ST_G;
            size_t exp_at = 0, exp_end = 0;
            int fits = sh_first_fit(s, want, eff, &exp_at, &exp_end);
            size_t off = SIZE_MAX;
            int rc = pshm_alloc_alloc(a, want, al, &off);
            if (!fits) {
                if (!CHECK_EQ(rc, ENOMEM))
                    goto out;
                n_enomem++;
                continue;
            }
            if (!CHECK_EQ(rc, 0))
                goto out;
            if (!CHECK_EQ(off, exp_at))
                goto out;
            size_t len = pshm_alloc_block_size(a, off);
            if (!CHECK_EQ(len, expect_len(off, want, exp_end)))
                goto out;
            if (!CHECK(off % eff == 0 && off + len <= ST_HEAP))
                goto out;
            if (!CHECK(sh_is_clear(s, off, len)))
                goto out;
            sh_fill(s, off, len, 1);
            live[nlive++] = (blk){off, len};
            used += len;
            n_alloc++;
        } else if (k < p_free) {
            size_t i = rng_below(&r, nlive);
            if (!CHECK_EQ(pshm_alloc_free(a, live[i].off), 0))
                goto out;
            if (!CHECK_EQ(pshm_alloc_free(a, live[i].off), EINVAL))
                goto out;
            sh_fill(s, live[i].off, live[i].len, 0);
            used -= live[i].len;
            live[i] = live[--nlive];
            n_free++;
        } else {
            size_t i = rng_below(&r, nlive);
            blk b = live[i];
            size_t want = stress_size(&r);
            size_t noff = SIZE_MAX;
            int moved = -1;
            int rc = pshm_alloc_realloc(a, b.off, want, &noff, &moved);
            if (want <= b.len) {
                /* Shrinking (or same size) is always in place. */
                if (!CHECK(rc == 0 && moved == 0 && noff == b.off))
                    goto out;
                size_t len = pshm_alloc_block_size(a, b.off);
                if (!CHECK_EQ(len, expect_len(b.off, want, b.off + b.len)))
                    goto out;
                sh_fill(s, b.off, b.len, 0);
                sh_fill(s, b.off, len, 1);
                used -= b.len - len;
                live[i].len = len;
                n_shrink++;
                continue;
            }
            /* Room right after the block in the model means in place. */
            size_t after = b.off + b.len;
            size_t g = (after + ST_G - 1) / ST_G;
            size_t e = sh_next(s, g, 1);
            size_t end = e * ST_G < ST_HEAP ? e * ST_G : ST_HEAP;
            if (after < ST_HEAP && !sh_get(s, g) && end - b.off >= want) {
                if (!CHECK(rc == 0 && moved == 0 && noff == b.off))
                    goto out;
                size_t len = pshm_alloc_block_size(a, b.off);
                if (!CHECK_EQ(len, expect_len(b.off, want, end)))
                    goto out;
                sh_fill(s, b.off, len, 1);
                used += len - b.len;
                live[i].len = len;
                n_grow++;
                continue;
            }
            size_t exp_at = 0, exp_end = 0;
            if (!sh_first_fit(s, want, ST_G, &exp_at, &exp_end)) {
                if (!CHECK_EQ(rc, ENOMEM))
                    goto out;
                if (!CHECK_EQ(pshm_alloc_block_size(a, b.off), b.len))
                    goto out;
                n_enomem++;
                continue;
            }
            if (!CHECK(rc == 0 && moved == 1 && noff == exp_at))
                goto out;
            size_t len = pshm_alloc_block_size(a, noff);
            if (!CHECK_EQ(len, expect_len(noff, want, exp_end)))
                goto out;
            if (!CHECK(sh_is_clear(s, noff, len)))
                goto out; /* never overlaps the old block */
            if (!CHECK_EQ(pshm_alloc_block_size(a, b.off), b.len))
                goto out; /* old kept */
            if (!CHECK_EQ(pshm_alloc_free(a, b.off), 0))
                goto out;
            sh_fill(s, b.off, b.len, 0);
            sh_fill(s, noff, len, 1);
            used += len - b.len;
            live[i] = (blk){noff, len};
            n_move++;
        }
    }
    CHECK_EQ(pshm_alloc_check(a), 0);
    /* Drain: everything coalesces back into one range. */
    while (nlive) {
        size_t i = rng_below(&r, nlive);
        if (!CHECK_EQ(pshm_alloc_free(a, live[i].off), 0))
            goto out;
        live[i] = live[--nlive];
    }
    CHECK_EQ(pshm_alloc_largest_free(a), ST_HEAP);
    CHECK_EQ(pshm_alloc_free_bytes(a), ST_HEAP);
    CHECK_EQ(pshm_alloc_check(a), 0);
    printf("    stress: %zu allocs, %zu frees, %zu grows, %zu shrinks, %zu moves, %zu ENOMEM\n", n_alloc,
           n_free, n_grow, n_shrink, n_move, n_enomem);
    /* The mix must have exercised every path, or the test proves little. */
    CHECK(n_alloc > 10000 && n_free > 10000 && n_grow > 100 && n_shrink > 100 && n_move > 100 &&
          n_enomem > 10);
out:
    free(live);
    free(s);
    pshm_alloc_destroy(a);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 100k live blocks, then the heaviest common patterns: a heap riddled with
 * small holes (requests too big for any hole must skip them all cheaply),
 * hole reuse, reallocs, and freeing everything in random order. */
static void test_perf(void) {
    enum { N = 100000 };
    const size_t heap = (size_t)N * 64 * 2;
    pshm_alloc *a = pshm_alloc_create(heap, 16);
    size_t *off = malloc(sizeof *off * N);
    size_t *big = malloc(sizeof *big * N);
    size_t nbig = 0;
    rng r = {7};
    if (!a || !off || !big) {
        CHECK(0);
        goto out;
    }
    double t0 = now();
    for (size_t i = 0; i < N; i++)
        if (!CHECK_EQ(pshm_alloc_alloc(a, 16 + rng_below(&r, 49), 0, &off[i]), 0))
            goto out;
    if (!CHECK_EQ(pshm_alloc_live_blocks(a), N))
        goto out;
    double t1 = now();

    /* Every other block freed: 50k holes of at most 64 bytes. */
    for (size_t i = 0; i < N; i += 2)
        if (!CHECK_EQ(pshm_alloc_free(a, off[i]), 0))
            goto out;
    /* Requests no hole can hold go past all of them. */
    for (size_t i = 0; i < N / 10; i++)
        if (!CHECK_EQ(pshm_alloc_alloc(a, 128, 0, &big[nbig++]), 0))
            goto out;
    /* Requests that fit the holes fill them. */
    for (size_t i = 0; i < N; i += 2)
        if (!CHECK_EQ(pshm_alloc_alloc(a, 16, 0, &off[i]), 0))
            goto out;
    /* Reallocs: grows into holes, shrinks, and moves. */
    for (size_t i = 1; i < N; i += 5) {
        size_t no;
        int moved;
        if (!CHECK_EQ(pshm_alloc_realloc(a, off[i], 1 + rng_below(&r, 128), &no, &moved), 0))
            goto out;
        if (moved) {
            if (!CHECK_EQ(pshm_alloc_free(a, off[i]), 0))
                goto out;
            off[i] = no;
        }
    }
    if (!CHECK_EQ(pshm_alloc_check(a), 0))
        goto out;
    double t2 = now();

    /* Free everything in random order. */
    for (size_t i = N - 1; i > 0; i--) {
        size_t j = rng_below(&r, i + 1);
        size_t t = off[i];
        off[i] = off[j];
        off[j] = t;
    }
    for (size_t i = 0; i < N; i++)
        if (!CHECK_EQ(pshm_alloc_free(a, off[i]), 0))
            goto out;
    for (size_t i = 0; i < nbig; i++)
        if (!CHECK_EQ(pshm_alloc_free(a, big[i]), 0))
            goto out;
    double t3 = now();
    CHECK_EQ(pshm_alloc_live_blocks(a), 0);
    CHECK_EQ(pshm_alloc_largest_free(a), heap);
    CHECK_EQ(pshm_alloc_check(a), 0);
    printf("    perf: 100k allocs %.3f s, holes/realloc phase %.3f s, 110k random frees %.3f s, total %.3f s\n",
           t1 - t0, t2 - t1, t3 - t2, t3 - t0);
out:
    free(off);
    free(big);
    pshm_alloc_destroy(a);
}

/* ---- driver ---------------------------------------------------------------- */

int main(void) {
    static const struct unit_test tests[] = {
        {"create_args", test_create_args}, {"whole_heap", test_whole_heap},
        {"exhaustion", test_exhaustion},   {"alignment", test_alignment},
        {"bad_free", test_bad_free},       {"coalesce", test_coalesce},
        {"realloc", test_realloc},         {"determinism", test_determinism},
        {"stress", test_stress},           {"perf", test_perf},
    };
    return RUN_TESTS(tests);
}
