/* The job tests/packaging/run.sh compiles with the installed oshcc and runs
 * with the installed oshrun: a put around the ring, a fetch-add on PE 0
 * and a sum reduction, each checked against the value it must have.  Each
 * PE also prints its pid and the job tag, so that the script can look for
 * /dev/shm objects of exactly this job (other jobs may run beside it). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long ring;
static int ticket;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *tag = getenv("PLUGSHMEM_JOB_TAG");

    shmem_long_p(&ring, 1000 + me, (me + 1) % n);
    int got = shmem_int_atomic_fetch_add(&ticket, 1, 0);
    shmem_barrier_all();

    long *src = shmem_malloc(sizeof *src), *sum = shmem_malloc(sizeof *sum);
    *src = me + 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, src, 1);

    int ok = ring == 1000 + (me + n - 1) % n && got >= 0 && got < n &&
             *sum == (long)n * (n + 1) / 2 && (me != 0 || ticket == n);
    printf("PE %d of %d transport %s pid %ld tag %s: %s\n", me, n, shmemx_transport_name(),
           (long)getpid(), tag ? tag : "-", ok ? "ok" : "WRONG");

    shmem_free(sum);
    shmem_free(src);
    shmem_finalize();
    return ok ? 0 : 1;
}
