/* bad_segv [PE]: PE (default 1) dies of SIGSEGV after shmem_init while the
 * others wait in shmem_barrier_all. */
#include <shmem.h>

#include "bad_common.h"

int main(int argc, char **argv)
{
    announce();
    int victim = (int)arg_long(argc, argv, 1, 1);
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == victim) {
        usleep(200000); /* let the others enter the barrier */
        volatile int *volatile p = NULL;
        *p = 42;
    }
    shmem_barrier_all();
    printf("PE %d: not reached\n", me);
    shmem_finalize();
    return 0;
}
