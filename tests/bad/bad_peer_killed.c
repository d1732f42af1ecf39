/* bad_peer_killed [SECONDS]: every PE puts to every other PE in a loop
 * (64 KiB puts and a quiet per round) until SECONDS (default 30) have
 * passed. peer_killed.sh kills one PE with SIGKILL once every PE is in
 * the loop, to see what the survivors' transports make of it. */
#include <shmem.h>
#include <time.h>

#include "bad_common.h"

#define CHUNK 65536

int main(int argc, char **argv)
{
    long seconds = arg_long(argc, argv, 1, 30);

    announce();
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *buf = shmem_malloc(CHUNK);
    static char src[CHUNK];
    shmem_barrier_all();
    printf("PE %d pid %d in the put loop\n", me, (int)getpid());
    fflush(stdout);
    time_t end = time(NULL) + seconds;
    while (time(NULL) < end) {
        for (int i = 1; i < n; i++)
            shmem_putmem(buf, src, CHUNK, (me + i) % n);
        shmem_quiet();
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
