/* bad_nofinalize: PE 1 leaves with _exit(0) after shmem_init, without
 * shmem_finalize (and without the library's atexit handler), while the
 * others wait in shmem_barrier_all. */
#include <shmem.h>

#include "bad_common.h"

int main(void)
{
    announce();
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 1) {
        usleep(200000);
        _exit(0);
    }
    shmem_barrier_all();
    printf("PE %d: not reached\n", me);
    shmem_finalize();
    return 0;
}
