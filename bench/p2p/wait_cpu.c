/*
 * wait_cpu.c -- what a long wait costs the waiting PE's CPU.
 *
 *   oshrun -n 2 wait_cpu [ms] [rounds]      (default 500 ms, 3 rounds)
 *
 * PE 0 computes for ms milliseconds, then releases every other PE with a
 * shmem_long_p; they wait in shmem_long_wait_until meanwhile.  Each round
 * prints, for the slowest waiter, the CPU time its process used (all
 * threads, the transport's progress thread included) and its waiting
 * thread alone, as a share of the wait's wall time, and how late it saw
 * the release (its wait's end minus PE 0's store, on one machine's
 * clock).  A polling wait costs a whole core; a wait that sleeps in the
 * kernel costs what its wake-ups do.  Runs over any transport: over a
 * network set SHMEM_BYPASS=0 (one node) or SHMEM_EMULATE_NODES.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double rusage_s(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static long release;
static double stored_at;     /* PE 0's clock at the release, broadcast */
static double result[4];     /* a waiter's: process share, thread share, lateness us */
static double worst[4];
static double pwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    double ms = argc > 1 ? atof(argv[1]) : 500;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (np < 2 || ms <= 0 || rounds < 1) {
        if (me == 0)
            fprintf(stderr, "usage: oshrun -n 2+ wait_cpu [ms > 0] [rounds > 0]\n");
        shmem_finalize();
        return 1;
    }
    (void)pwork, (void)psync;
    if (me == 0)
        printf("# %d PEs, transport %s, wait %.0f ms; waiter's CPU use in %% of the wait "
               "(process / waiting thread), and how late it saw the release\n"
               "round  process %%  thread %%  late us  naps  woken\n",
               np, shmemx_transport_name(), ms);
    for (int r = 1; r <= rounds; r++) {
        release = 0;
        shmem_barrier_all();
        if (me == 0) {
            double end = now_s(CLOCK_MONOTONIC) + ms * 1e-3;
            while (now_s(CLOCK_MONOTONIC) < end)
                ;
            stored_at = now_s(CLOCK_MONOTONIC);
            for (int pe = 1; pe < np; pe++)
                shmem_long_p(&release, r, pe);
            shmem_quiet();
            result[0] = result[1] = result[2] = 0;
        } else {
            uint64_t naps = shmemx_wait_stat(SHMEMX_WAIT_NAPS);
            uint64_t woken = shmemx_wait_stat(SHMEMX_WAIT_NAPS_WOKEN);
            double w0 = now_s(CLOCK_MONOTONIC), p0 = rusage_s(RUSAGE_SELF),
                   t0 = rusage_s(RUSAGE_THREAD);
            shmem_long_wait_until(&release, SHMEM_CMP_EQ, r);
            double w1 = now_s(CLOCK_MONOTONIC);
            result[0] = 100 * (rusage_s(RUSAGE_SELF) - p0) / (w1 - w0);
            result[1] = 100 * (rusage_s(RUSAGE_THREAD) - t0) / (w1 - w0);
            result[2] = w1; /* made a lateness below, once stored_at is known */
            result[3] = (double)(shmemx_wait_stat(SHMEMX_WAIT_NAPS) - naps) +
                        1e-6 * (double)(shmemx_wait_stat(SHMEMX_WAIT_NAPS_WOKEN) - woken);
        }
        shmem_barrier_all();
        shmem_double_broadcast(SHMEM_TEAM_WORLD, &stored_at, &stored_at, 1, 0);
        if (me != 0)
            result[2] = 1e6 * (result[2] - stored_at);
        shmem_double_max_reduce(SHMEM_TEAM_WORLD, worst, result, 4);
        if (me == 0) {
            double naps = (double)(long)worst[3];
            printf("%5d  %9.1f  %8.1f  %7.1f  %4.0f  %5.0f\n", r, worst[0], worst[1], worst[2],
                   naps, (worst[3] - naps) * 1e6);
        }
    }
    shmem_finalize();
    return 0;
}
