/* A first OpenSHMEM program: every PE writes its number into a symmetric
 * array on every other PE, adds to a counter on PE 0, and checks both. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static long counter; /* global data is symmetric too */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();

    int *slots = shmem_calloc((size_t)n, sizeof(int));
    for (int pe = 0; pe < n; pe++)
        shmem_int_p(&slots[me], me + 1, pe);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();

    int ok = 1;
    for (int pe = 0; pe < n; pe++)
        ok &= slots[pe] == pe + 1;
    if (me == 0)
        ok &= counter == (long)n * (n + 1) / 2;
    printf("Hello from PE %d of %d on transport %s: %s\n", me, n, shmemx_transport_name(),
           ok ? "ok" : "WRONG");

    shmem_free(slots);
    shmem_finalize();
    return ok ? 0 : 1;
}
