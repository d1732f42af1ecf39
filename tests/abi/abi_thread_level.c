/* Prints the thread level shmem_init_thread grants for MULTIPLE, from PE 0:
 * "provided N". */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided))
        return 2;
    int queried = -1;
    shmem_query_thread(&queried);
    if (shmem_my_pe() == 0)
        printf("provided %d, queried %d\n", provided, queried);
    shmem_finalize();
    return provided == queried ? 0 : 3;
}
