/*
 * Memory management: shmem_malloc, calloc, align, realloc, free,
 * malloc_with_hints and the deprecated shmalloc, shfree, shrealloc,
 * shmemalign.  Every block returned is checked to be symmetric: the same
 * offset on every PE, and a put to the returned address from another PE
 * lands in the block.  Zero sizes return NULL with no barrier (called on
 * PE 0 only: a barrier there would hang the job).
 */
#include <stdalign.h>
#include <stddef.h>

#include "../common/check.h"

#define MAXPE 64

static char *anchor;     /* a block every offset is measured from */
static long *offs;       /* symmetric: PE 0 gathers everyone's offsets */

/* p must be the same symmetric object on every PE, at least 16 bytes. */
static void sym_check(void *p, size_t size, const char *what)
{
    int me = shmem_my_pe(), np = shmem_n_pes(), right = check_right(), left = check_left();
    REQUIRE_NE(p, NULL, "%s returned NULL", what);
    REQUIRE_GE(size, 16, "sym_check needs 16 bytes");
    shmem_barrier_all(); /* every PE is done reading its block */
    long off = (long)((char *)p - anchor);
    shmem_long_p(&offs[me], off, 0);
    uint64_t head = 0xA5A5000000000000ull | (uint64_t)me << 16 | 1, tail = head + 1;
    shmem_putmem(p, &head, 8, right);
    shmem_putmem((char *)p + size - 8, &tail, 8, right);
    shmem_barrier_all();
    if (me == 0)
        for (int q = 1; q < np; q++)
            REQUIRE_EQ(offs[q], offs[0], "%s: PE %d's block is at offset %ld, PE 0's at %ld", what,
                       q, offs[q], offs[0]);
    uint64_t h, t, want = 0xA5A5000000000000ull | (uint64_t)left << 16 | 1;
    memcpy(&h, p, 8);
    memcpy(&t, (char *)p + size - 8, 8);
    REQUIRE(h == want && t == want + 1,
            "%s: put by PE %d to both ends of a %zu-byte block: %#llx %#llx", what, left, size,
            (unsigned long long)h, (unsigned long long)t);
    shmem_barrier_all();
}

static void check_align(void *p, size_t a, const char *what)
{
    REQUIRE_EQ(((uintptr_t)p & (a - 1)), 0, "%s: %p is not %zu-byte aligned", what, p, a);
}

static void zero_sizes_no_barrier(void)
{
    /* PE 0 alone: these must neither allocate nor synchronize */
    if (shmem_my_pe() != 0)
        return;
    REQUIRE_EQ(shmem_malloc(0), NULL, "shmem_malloc(0)");
    REQUIRE_EQ(shmem_calloc(0, 8), NULL, "shmem_calloc(0, 8)");
    REQUIRE_EQ(shmem_calloc(8, 0), NULL, "shmem_calloc(8, 0)");
    REQUIRE_EQ(shmem_align(64, 0), NULL, "shmem_align(64, 0)");
    REQUIRE_EQ(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE), NULL,
               "shmem_malloc_with_hints(0)");
    REQUIRE_EQ(shmalloc(0), NULL, "shmalloc(0)");
    REQUIRE_EQ(shmemalign(16, 0), NULL, "shmemalign(16, 0)");
    shmem_free(NULL);
    shfree(NULL);
}

static void basic(void)
{
    check_stage("malloc");
    static const size_t sizes[] = {1, 7, 8, 16, 100, 4096, 65536, 1u << 20, 10u << 20};
    enum { NS = sizeof sizes / sizeof *sizes };
    void *p[NS];
    for (int i = 0; i < NS; i++) {
        p[i] = shmem_malloc(sizes[i]);
        REQUIRE_NE(p[i], NULL, "shmem_malloc(%zu)", sizes[i]);
        check_align(p[i], alignof(max_align_t), "shmem_malloc");
        memset(p[i], 0x11 * (i + 1), sizes[i]);
    }
    for (int i = 0; i < NS; i++)
        for (size_t j = 0; j < sizes[i]; j += 1 + sizes[i] / 64)
            REQUIRE_EQ(((unsigned char *)p[i])[j], (unsigned char)(0x11 * (i + 1)),
                       "shmem_malloc(%zu) block overlaps another", sizes[i]);
    shmem_barrier_all(); /* before any peer writes into the blocks */
    for (int i = 0; i < NS; i++)
        if (sizes[i] >= 16)
            sym_check(p[i], sizes[i], "shmem_malloc");
    for (int i = 0; i < NS; i++)
        shmem_free(p[i]);
    zero_sizes_no_barrier();

    check_stage("calloc");
    unsigned char *d = shmem_malloc(8192);
    REQUIRE_NE(d, NULL, "shmem_malloc");
    memset(d, 0xAB, 8192);
    shmem_free(d);
    unsigned char *z = shmem_calloc(1024, 8);
    REQUIRE_NE(z, NULL, "shmem_calloc(1024, 8)");
    check_align(z, alignof(max_align_t), "shmem_calloc");
    for (size_t i = 0; i < 8192; i++)
        REQUIRE_EQ(z[i], 0, "shmem_calloc(1024, 8): byte %zu is %#x", i, z[i]);
    sym_check(z, 8192, "shmem_calloc");
    unsigned char *z2 = shmem_calloc(3, 1000);
    REQUIRE_NE(z2, NULL, "shmem_calloc(3, 1000)");
    for (size_t i = 0; i < 3000; i++)
        REQUIRE_EQ(z2[i], 0, "shmem_calloc(3, 1000): byte %zu is %#x", i, z2[i]);
    REQUIRE_EQ(shmem_calloc(SIZE_MAX / 2, 4), NULL, "shmem_calloc overflowing size_t");
    shmem_free(z2);
    shmem_free(z);

    check_stage("align");
    for (size_t a = 1; a <= (1u << 20); a <<= 1) {
        void *q = shmem_align(a, 200);
        REQUIRE_NE(q, NULL, "shmem_align(%zu, 200)", a);
        check_align(q, a, "shmem_align");
        void *r = shmem_malloc(24); /* the allocator is sane after it */
        REQUIRE_NE(r, NULL, "shmem_malloc after shmem_align(%zu)", a);
        sym_check(q, 200, "shmem_align");
        sym_check(r, 24, "shmem_malloc after shmem_align");
        shmem_free(q);
        shmem_free(r);
    }
    REQUIRE_EQ(shmem_align(0, 64), NULL, "shmem_align(0, 64) is not NULL");
    REQUIRE_EQ(shmem_align(3, 64), NULL, "shmem_align(3, 64) is not NULL");
    REQUIRE_EQ(shmem_align(24, 64), NULL, "shmem_align(24, 64) is not NULL");
    REQUIRE_EQ(shmemalign(3, 64), NULL, "shmemalign(3, 64) is not NULL");

    check_stage("realloc");
    unsigned char *r = shmem_malloc(64);
    REQUIRE_NE(r, NULL, "shmem_malloc(64)");
    for (int i = 0; i < 64; i++)
        r[i] = (unsigned char)(i + shmem_my_pe());
    unsigned char *fence = shmem_malloc(64); /* forces the growth to move */
    REQUIRE_NE(fence, NULL, "shmem_malloc(64)");
    memset(fence, 0x5F, 64);
    unsigned char *g = shmem_realloc(r, 1u << 20);
    REQUIRE_NE(g, NULL, "shmem_realloc(64 -> 1 MiB)");
    check_align(g, alignof(max_align_t), "shmem_realloc");
    for (int i = 0; i < 64; i++)
        REQUIRE_EQ(g[i], (unsigned char)(i + shmem_my_pe()), "shmem_realloc lost byte %d on growth",
                   i);
    for (int i = 0; i < 64; i++)
        REQUIRE_EQ(fence[i], 0x5F, "shmem_realloc growth overwrote the next block");
    sym_check(g, 1u << 20, "shmem_realloc (grow)");
    for (int i = 0; i < 64; i++)
        g[i] = (unsigned char)(3 * i + shmem_my_pe());
    unsigned char *s = shmem_realloc(g, 16);
    REQUIRE_NE(s, NULL, "shmem_realloc(1 MiB -> 16)");
    for (int i = 0; i < 16; i++)
        REQUIRE_EQ(s[i], (unsigned char)(3 * i + shmem_my_pe()),
                   "shmem_realloc lost byte %d on shrinking", i);
    sym_check(s, 16, "shmem_realloc (shrink)");
    unsigned char *n = shmem_realloc(NULL, 128);
    REQUIRE_NE(n, NULL, "shmem_realloc(NULL, 128) did not act as shmem_malloc");
    sym_check(n, 128, "shmem_realloc(NULL, 128)");
    REQUIRE_EQ(shmem_realloc(n, 0), NULL, "shmem_realloc(p, 0) is not NULL");
    REQUIRE_EQ(shmem_realloc(s, 0), NULL, "shmem_realloc(p, 0) is not NULL");
    shmem_free(fence);

    check_stage("malloc_with_hints");
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int i = 0; i < 4; i++) {
        long *w = shmem_malloc_with_hints(8 * sizeof(long), hints[i]);
        REQUIRE_NE(w, NULL, "shmem_malloc_with_hints(64, %ld)", hints[i]);
        check_align(w, alignof(max_align_t), "shmem_malloc_with_hints");
        sym_check(w, 8 * sizeof(long), "shmem_malloc_with_hints");
        w[7] = 0;
        shmem_barrier_all();
        shmem_long_atomic_add(&w[7], shmem_my_pe() + 1, 0);
        shmem_barrier_all();
        long np = shmem_n_pes();
        if (shmem_my_pe() == 0)
            REQUIRE_EQ(w[7], np * (np + 1) / 2, "AMOs on a hinted block: %ld", w[7]);
        /* realloc keeps the block usable (hints are kept) */
        w = shmem_realloc(w, 4096);
        REQUIRE_NE(w, NULL, "shmem_realloc of a hinted block");
        sym_check(w, 4096, "shmem_realloc of a hinted block");
        shmem_free(w);
    }

    check_stage("deprecated");
    long *a = shmalloc(256);
    REQUIRE_NE(a, NULL, "shmalloc");
    a[0] = 42;
    sym_check(&a[1], 200, "shmalloc");
    long *b = shrealloc(a, 8192);
    REQUIRE(b != NULL && b[0] == 42, "shrealloc lost the contents");
    sym_check(b, 8192, "shrealloc");
    void *c = shmemalign(4096, 100);
    REQUIRE_NE(c, NULL, "shmemalign");
    check_align(c, 4096, "shmemalign");
    sym_check(c, 100, "shmemalign");
    shfree(c);
    shfree(b);
}

#define NBLK 300

static void many(void)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    unsigned char *blk[NBLK];
    size_t sz[NBLK];
    for (int round = 0; round < 3; round++) {
        char stage[32];
        snprintf(stage, sizeof stage, "many allocations %d", round);
        check_stage(stage);
        for (int i = 0; i < NBLK; i++) {
            sz[i] = (size_t)((i * 37 + round * 101) % 997) + 8;
            switch ((i + round) % 3) {
            case 0: blk[i] = shmem_malloc(sz[i]); break;
            case 1: blk[i] = shmem_calloc(1, sz[i]); break;
            default: blk[i] = shmem_align(32, sz[i]); break;
            }
            REQUIRE_NE(blk[i], NULL, "allocation %d of %zu bytes", i, sz[i]);
            memset(blk[i], (me * 31 + i) & 0xFF, sz[i]);
        }
        shmem_barrier_all(); /* everyone's pattern is in place */
        for (int i = 0; i < NBLK; i++) {
            uint32_t tag = (uint32_t)me << 16 | (uint32_t)i;
            shmem_putmem(blk[i], &tag, 4, right);
        }
        shmem_barrier_all();
        for (int i = 0; i < NBLK; i++) {
            uint32_t tag;
            memcpy(&tag, blk[i], 4);
            REQUIRE_EQ(tag, ((uint32_t)left << 16 | (uint32_t)i), "block %d: tag from PE %d is %#x",
                       i, left, tag);
            for (size_t j = 4; j < sz[i]; j++)
                REQUIRE_EQ(blk[i][j], ((me * 31 + i) & 0xFF),
                           "block %d of %zu bytes: byte %zu was overwritten", i, sz[i], j);
        }
        /* free in an order unlike the allocation's */
        for (int i = 1; i < NBLK; i += 2)
            shmem_free(blk[i]);
        for (int i = NBLK - 2; i >= 0; i -= 2)
            shmem_free(blk[i]);
    }
    /* everything came back: one big block fits again */
    check_stage("big block after frees");
    size_t big = 64u << 20;
    unsigned char *p = shmem_malloc(big);
    REQUIRE_NE(p, NULL, "shmem_malloc(64 MiB) after freeing everything");
    sym_check(p, big, "shmem_malloc(64 MiB)");
    shmem_free(p);
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    REQUIRE_LE(shmem_n_pes(), MAXPE, "up to %d PEs", MAXPE);
    offs = shmem_malloc(MAXPE * sizeof(long));
    anchor = (char *)offs;
    REQUIRE_NE(offs, NULL, "shmem_malloc");
    basic();
    many();
    shmem_free(offs);
    int status = check_done("memory");
    shmem_finalize();
    return status;
}
