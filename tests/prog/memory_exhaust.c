/*
 * Symmetric heap exhaustion, run with a small SHMEM_SYMMETRIC_SIZE (the
 * test sets 1M): allocations beyond the heap return NULL on every PE, a
 * failed realloc leaves the block intact, and the heap is whole again once
 * the blocks are freed.
 */
#include <ctype.h>

#include "../common/check.h"

static size_t heap_size(void)
{
    const char *s = getenv("SHMEM_SYMMETRIC_SIZE");
    REQUIRE_NE(s, NULL, "run with SHMEM_SYMMETRIC_SIZE set (e.g. 1M)");
    char *end;
    size_t v = strtoull(s, &end, 10);
    switch (toupper((unsigned char)*end)) {
    case 'K': v <<= 10; break;
    case 'M': v <<= 20; break;
    case 'G': v <<= 30; break;
    default: break;
    }
    REQUIRE(v >= (64u << 10) && v <= (64u << 20), "SHMEM_SYMMETRIC_SIZE=%s: use 64K to 64M", s);
    return v;
}

static void put_check(unsigned char *p, size_t size, const char *what)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    shmem_barrier_all();
    unsigned char v[2] = {(unsigned char)(me + 1), (unsigned char)(me + 101)};
    shmem_putmem(p, &v[0], 1, right);
    shmem_putmem(p + size - 1, &v[1], 1, right);
    shmem_barrier_all();
    REQUIRE(p[0] == left + 1 && p[size - 1] == left + 101,
            "%s: puts from PE %d to both ends: %u %u", what, left, p[0], p[size - 1]);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(120);
    size_t H = heap_size();
    int me = shmem_my_pe();

    check_stage("whole heap");
    unsigned char *all = shmem_malloc(H);
    REQUIRE_NE(all, NULL, "shmem_malloc of the whole %zu-byte heap", H);
    put_check(all, H, "the whole heap");
    REQUIRE_EQ(shmem_malloc(64), NULL, "shmem_malloc(64) with the heap full");
    REQUIRE_EQ(shmem_calloc(1, 64), NULL, "shmem_calloc(1, 64) with the heap full");
    shmem_free(all);

    check_stage("too big");
    REQUIRE_EQ(shmem_malloc(H + 1), NULL, "shmem_malloc(heap + 1)");
    REQUIRE_EQ(shmem_malloc(2 * H), NULL, "shmem_malloc(2 x heap)");
    REQUIRE_EQ(shmem_malloc(SIZE_MAX), NULL, "shmem_malloc(SIZE_MAX)");
    REQUIRE_EQ(shmem_calloc(H + 1, 1), NULL, "shmem_calloc(heap + 1, 1)");
    REQUIRE_EQ(shmem_align(64, H + 64), NULL, "shmem_align(64, heap + 64)");
    REQUIRE_EQ(shmem_align(1u << 20, 2 * H), NULL, "shmem_align(1 MiB, 2 x heap)");
    REQUIRE_EQ(shmem_malloc_with_hints(2 * H, SHMEM_MALLOC_ATOMICS_REMOTE), NULL,
               "shmem_malloc_with_hints(2 x heap)");
    REQUIRE_EQ(shmalloc(2 * H), NULL, "shmalloc(2 x heap)");

    check_stage("fill");
    enum { MAXB = 4096 };
    static unsigned char *blk[MAXB];
    size_t bs = H / 16, n = 0;
    while (n < MAXB && (blk[n] = shmem_malloc(bs)) != NULL) {
        memset(blk[n], (int)(n + 1), bs);
        n++;
    }
    REQUIRE(n >= 15 && n <= 16, "%zu blocks of %zu bytes fit in a %zu-byte heap", n, bs, H);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < bs; j += 997)
            REQUIRE_EQ(blk[i][j], (unsigned char)(i + 1), "block %zu byte %zu overwritten", i, j);
    /* every PE ran out at the same block */
    long *cnt = (long *)blk[0];
    shmem_barrier_all();
    if (me == 0)
        cnt[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&cnt[0], (long)n, 0);
    shmem_barrier_all();
    if (me == 0)
        REQUIRE_EQ(cnt[0], (long)n * shmem_n_pes(), "the PEs got different block counts: total %ld",
                   cnt[0]);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        shmem_free(blk[i]);

    check_stage("usable again");
    all = shmem_malloc(H);
    REQUIRE_NE(all, NULL, "shmem_malloc of the whole heap after freeing %zu blocks", n);
    put_check(all, H, "the whole heap again");
    shmem_free(all);

    check_stage("realloc");
    unsigned char *half = shmem_malloc(H / 2);
    REQUIRE_NE(half, NULL, "shmem_malloc(heap / 2)");
    for (size_t i = 0; i < H / 2; i++)
        half[i] = (unsigned char)(i * 7 + me);
    REQUIRE_EQ(shmem_realloc(half, 2 * H), NULL, "shmem_realloc beyond the heap is not NULL");
    for (size_t i = 0; i < H / 2; i++)
        REQUIRE_EQ(half[i], (unsigned char)(i * 7 + me), "a failed shmem_realloc changed byte %zu",
                   i);
    put_check(half, H / 2, "the block a realloc failed on");
    unsigned char *more = shmem_realloc(half, H - H / 8);
    REQUIRE_NE(more, NULL, "shmem_realloc(heap / 2 -> 7/8 heap)");
    for (size_t i = 1; i < H / 2 - 1; i++)
        REQUIRE_EQ(more[i], (unsigned char)(i * 7 + me), "shmem_realloc growth lost byte %zu", i);
    REQUIRE_EQ(shmem_realloc(more, 0), NULL, "shmem_realloc(p, 0) is not NULL");
    all = shmem_malloc(H); /* the realloc to 0 freed it */
    REQUIRE_NE(all, NULL, "shmem_malloc of the whole heap after shmem_realloc(p, 0)");
    shmem_free(all);

    int status = check_done("memory_exhaust");
    shmem_finalize();
    return status;
}
