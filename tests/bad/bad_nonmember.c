/* PEs outside an active set call its collectives anyway (erroneous, but
 * programs do it): the calls must return without effect while the members
 * get their results.  Active set: the odd PEs.  Prints "nonmember PE n: ok"
 * or "nonmember PE n: wrong ..." on every PE. */
#include <shmem.h>
#include <stdio.h>

#include "bad_common.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long src[4], dst[16];

int main(void)
{
    announce();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), size = n / 2, member = me & 1;
    for (int i = 0; i < 4; i++)
        src[i] = me + 1;
    for (int i = 0; i < 16; i++)
        dst[i] = -1;
    shmem_barrier_all();
    for (int round = 0; round < 2; round++) {
        shmem_long_sum_to_all(dst, src, 4, 1, 1, size, pwrk, psync);
        shmem_barrier(1, 1, size, psync);
    }
    shmem_broadcast64(dst + 4, src, 4, 0, 1, 1, size, psync);
    shmem_barrier(1, 1, size, psync);
    shmem_fcollect64(dst + 8, src, 1, 1, 1, size, psync);
    shmem_barrier_all();
    long want = 0;
    for (int p = 1; p < n; p += 2)
        want += p + 1;
    int ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= dst[i] == (member ? want : -1);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        ok &= psync[i] == SHMEM_SYNC_VALUE;
    printf("nonmember PE %d: %s (dst[0] = %ld)\n", me, ok ? "ok" : "wrong", dst[0]);
    shmem_finalize();
    return ok ? 0 : 1;
}
