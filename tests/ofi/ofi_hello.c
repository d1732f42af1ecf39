/* The smallest ofi job: init, a put and an AMO to the next PE, a barrier. */
#include <stdio.h>

#include <shmem.h>

#include "../common/check.h"

static long x;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&x, me, (me + 1) % n);
    shmem_long_atomic_add(&x, 1, (me + 1) % n);
    shmem_barrier_all();
    int rc = !CHECK_EQ(x, (long)((me + n - 1) % n) + 1, "the left neighbour's put and add");
    printf("PE %d of %d: %s\n", me, n, rc ? "FAIL" : "ok");
    shmem_finalize();
    return rc;
}
