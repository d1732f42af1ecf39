/*
 * Completion: after shmem_quiet, what PE 0 wrote to PE 1 (puts of every
 * size, non-blocking puts, every non-fetching AMO, on the heap and on
 * global data) must be visible to a third PE reading PE 1 through the
 * transport at once.  Thousands of rounds; a provider that completes
 * operations before the target applied them fails here.
 *
 *   ofi_complete [rounds]
 *
 * Roles: PE 0 writes, PE 1 is the target and checks its own memory with
 * plain loads, the checker is PE 2 (PE 0 itself with two PEs) and reads
 * through the transport.  Other PEs idle in the barrier.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "../common/check.h"

#define BIG 9000 /* above every provider's inject size here */

static uint64_t g_set;   /* global data: the DATA segment */
static uint32_t g_add32; /* global data */

struct area {
    uint64_t put8;
    uint64_t nbi8;
    uint64_t add64, and64, or64, xor64, set64, swapped;
    uint32_t add32, or32;
    float fset;
    double dset;
    unsigned char big[BIG];
    unsigned char bignbi[BIG];
};

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 3000;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        if (me == 0)
            printf("needs 2 PEs or more\n");
        shmem_finalize();
        return 77;
    }
    int target = 1, checker = n >= 3 ? 2 : 0;
    struct area *a = shmem_calloc(1, sizeof *a);
    uint64_t *go = shmem_calloc(1, sizeof *go);   /* on the checker: round to check */
    uint64_t *done = shmem_calloc(2, sizeof *done); /* on PE 0: round checked by target, checker */
    unsigned char *src = malloc(BIG), *src2 = malloc(BIG), *back = malloc(BIG);
    shmem_barrier_all();

    /* The model of PE 1's memory, kept by PE 0 and the checker alike. */
    uint64_t add64 = 0, and64 = 0, or64 = 0, xor64 = 0;
    uint32_t add32 = 0, or32 = 0, gadd = 0;
    char stage[32];
    for (long r = 1; r <= rounds; r++) {
        snprintf(stage, sizeof stage, "round %ld", r);
        check_stage(stage);
        uint64_t v = (uint64_t)r * 0x9E3779B97F4A7C15ull;
        unsigned char fill = (unsigned char)(r * 7 + 1);
        add64 += (uint64_t)r;
        and64 &= ~(1ull << (r % 64)) | (r % 3 ? ~0ull : 0);
        and64 = r % 64 == 0 ? ~0ull : and64;
        or64 |= 1ull << (r % 64);
        xor64 ^= v;
        add32 += 3;
        or32 |= 1u << (r % 32);
        gadd += 1;
        if (me == 0) {
            shmem_uint64_p(&a->put8, v, target);
            shmem_putmem_nbi(&a->nbi8, &v, 8, target);
            shmem_uint64_atomic_add(&a->add64, (uint64_t)r, target);
            if (r % 64 == 0)
                shmem_uint64_atomic_set(&a->and64, ~0ull, target);
            else
                shmem_uint64_atomic_and(&a->and64, ~(1ull << (r % 64)) | (r % 3 ? ~0ull : 0),
                                        target);
            shmem_uint64_atomic_or(&a->or64, 1ull << (r % 64), target);
            shmem_uint64_atomic_xor(&a->xor64, v, target);
            shmem_uint64_atomic_set(&a->set64, v, target);
            shmem_uint32_atomic_add(&a->add32, 3, target);
            shmem_uint32_atomic_or(&a->or32, 1u << (r % 32), target);
            shmem_float_atomic_set(&a->fset, (float)r, target);
            shmem_double_atomic_set(&a->dset, (double)r * 0.5, target);
            shmem_uint64_atomic_set(&g_set, v, target);
            shmem_uint32_atomic_inc(&g_add32, target);
            memset(src, fill, BIG);
            shmem_putmem(a->big, src, BIG, target);
            memset(src2, fill ^ 0xff, BIG);
            shmem_putmem_nbi(a->bignbi, src2, BIG, target);
            /* A fetching AMO waits for its data; check its answer here. */
            uint64_t old = shmem_uint64_atomic_swap(&a->swapped, v, target);
            uint64_t prev = (uint64_t)(r - 1) * 0x9E3779B97F4A7C15ull;
            CHECK_EQ(old, prev, "swap returned %" PRIx64 ", expected %" PRIx64, old, prev);
            shmem_quiet();
            /* The target checks its own memory with plain loads. */
            shmem_uint64_p(go, (uint64_t)r, target);
            shmem_uint64_wait_until(&done[0], SHMEM_CMP_GE, (uint64_t)r);
            if (checker != 0) {
                shmem_uint64_p(go, (uint64_t)r, checker);
                shmem_uint64_wait_until(&done[1], SHMEM_CMP_GE, (uint64_t)r);
            }
        }
        if (me == target && me != checker) {
            shmem_uint64_wait_until(go, SHMEM_CMP_GE, (uint64_t)r);
            volatile struct area *va = a;
            CHECK_EQ(va->put8, v, "target: put8");
            CHECK_EQ(va->add64, add64, "target: add64 %" PRIu64 " != %" PRIu64, va->add64, add64);
            CHECK_EQ(va->set64, v, "target: set64");
            CHECK_EQ(va->or32, or32, "target: or32");
            CHECK(*(volatile uint64_t *)&g_set == v, "target: global set");
            CHECK_EQ(va->big[BIG - 1], fill, "target: big put");
            shmem_uint64_p(&done[0], (uint64_t)r, 0);
        }
        if (me == checker) {
            if (checker != 0)
                shmem_uint64_wait_until(go, SHMEM_CMP_GE, (uint64_t)r);
            CHECK_EQ(shmem_uint64_g(&a->put8, target), v, "put8");
            CHECK_EQ(shmem_uint64_g(&a->nbi8, target), v, "put_nbi 8 B");
            uint64_t x;
            CHECK_EQ((x = shmem_uint64_atomic_fetch(&a->add64, target)), add64,
                     "add64 %" PRIu64 " != %" PRIu64, x, add64);
            CHECK_EQ((x = shmem_uint64_atomic_fetch(&a->and64, target)), and64,
                     "and64 %" PRIx64 " != %" PRIx64, x, and64);
            CHECK_EQ((x = shmem_uint64_atomic_fetch(&a->or64, target)), or64,
                     "or64 %" PRIx64 " != %" PRIx64, x, or64);
            CHECK_EQ((x = shmem_uint64_atomic_fetch(&a->xor64, target)), xor64, "xor64");
            CHECK_EQ((x = shmem_uint64_atomic_fetch(&a->set64, target)), v,
                     "set64 %" PRIx64 " != %" PRIx64, x, v);
            CHECK_EQ(shmem_uint64_atomic_fetch(&a->swapped, target), v, "swap target");
            uint32_t y;
            CHECK_EQ((y = shmem_uint32_atomic_fetch(&a->add32, target)), add32, "add32 %u != %u", y,
                     add32);
            CHECK_EQ((y = shmem_uint32_atomic_fetch(&a->or32, target)), or32, "or32 %x != %x", y,
                     or32);
            CHECK_EQ(shmem_float_atomic_fetch(&a->fset, target), (float)r, "float set");
            CHECK_EQ(shmem_double_atomic_fetch(&a->dset, target), (double)r * 0.5, "double set");
            CHECK_EQ(shmem_uint64_atomic_fetch(&g_set, target), v, "global set");
            CHECK_EQ(shmem_uint32_atomic_fetch(&g_add32, target), gadd, "global inc");
            shmem_getmem(back, a->big, BIG, target);
            CHECK(back[0] == fill && back[BIG - 1] == fill && back[BIG / 2] == fill, "big put");
            shmem_getmem(back, a->bignbi, BIG, target);
            CHECK(back[0] == (fill ^ 0xff) && back[BIG - 1] == (fill ^ 0xff), "big put_nbi");
            if (checker != 0)
                shmem_uint64_p(&done[1], (uint64_t)r, 0);
        }
    }
    /* Every PE's failures count: the checker's and the target's alike. */
    int rc = check_done("ofi_complete", "%ld rounds, writer PE 0, target PE %d, checker PE %d",
                        rounds, target, checker);
    shmem_free(a);
    shmem_free(go);
    shmem_free(done);
    free(src);
    free(src2);
    free(back);
    shmem_finalize();
    return rc;
}
