/* bad_exit_nofinalize WHO: PE WHO calls exit(0) without shmem_finalize
 * (so the library's implicit finalize at exit runs) while the others go on
 * to shmem_barrier_all; the job must end with one line naming PE WHO.
 * bad_exit_nofinalize return: every PE returns from main without
 * shmem_finalize after a put to its neighbour, as start_pes() programs do:
 * the implicit finalize completes it and the job exits 0. */
#include <shmem.h>
#include <string.h>

#include "bad_common.h"

static long word;

int main(int argc, char **argv)
{
    announce();
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "return") == 0) {
        shmem_long_p(&word, me + 1, (me + 1) % n);
        shmem_barrier_all();
        int ok = word == (me + n - 1) % n + 1;
        printf("PE %d: %s\n", me, ok ? "ok" : "wrong value");
        return ok ? 0 : 2;
    }
    int who = (int)arg_long(argc, argv, 1, 1);
    shmem_barrier_all();
    if (me == who) {
        fflush(stdout);
        exit(0);
    }
    shmem_barrier_all();
    printf("PE %d: not reached\n", me);
    shmem_finalize();
    return 0;
}
