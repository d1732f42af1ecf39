/* A well-behaved program: init, allocate, put around a ring, barrier,
 * free, finalize.  Exit 0 on success, 3 if the data is wrong. */
#include <shmem.h>

#include "bad_common.h"

int main(void)
{
    announce();
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *x = shmem_malloc(sizeof(long));
    if (!x) {
        fprintf(stderr, "bad_hello: shmem_malloc(%zu) failed on PE %d\n", sizeof(long), me);
        shmem_global_exit(3);
    }
    *x = -1;
    shmem_barrier_all();
    shmem_long_p(x, me, (me + 1) % n);
    shmem_barrier_all();
    int ok = *x == (me + n - 1) % n;
    shmem_free(x);
    printf("hello from PE %d of %d: %s\n", me, n, ok ? "ok" : "WRONG DATA");
    fflush(stdout);
    shmem_finalize();
    return ok ? 0 : 3;
}
