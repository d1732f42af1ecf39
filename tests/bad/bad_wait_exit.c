/* bad_wait_exit STATUS: PE 0 calls shmem_global_exit(STATUS) while the
 * others sleep in shmem_int_wait_until on a flag nobody sets. */
#include <shmem.h>

#include "bad_common.h"

static int flag;

int main(int argc, char **argv)
{
    announce();
    int status = (int)arg_long(argc, argv, 1, 5);
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 0) {
        usleep(300000); /* let the others start waiting */
        shmem_global_exit(status);
        printf("PE 0: returned from shmem_global_exit\n");
        return 99;
    }
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    printf("PE %d: not reached\n", me);
    shmem_finalize();
    return 0;
}
