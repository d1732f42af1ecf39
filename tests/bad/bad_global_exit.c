/* bad_global_exit PE STATUS: PE calls shmem_global_exit(STATUS) while the
 * others wait in shmem_barrier_all. */
#include <shmem.h>

#include "bad_common.h"

int main(int argc, char **argv)
{
    announce();
    int who = (int)arg_long(argc, argv, 1, 1);
    int status = (int)arg_long(argc, argv, 2, 7);
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == who) {
        usleep(200000);
        shmem_global_exit(status);
        printf("PE %d: returned from shmem_global_exit\n", me);
        return 99;
    }
    shmem_barrier_all();
    printf("PE %d: not reached\n", me);
    shmem_finalize();
    return 0;
}
