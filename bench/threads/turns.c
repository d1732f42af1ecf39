/*
 * Threads of one PE taking turns through a local word: the cost of a
 * hand-off between threads that share the default context.
 *
 *   turns [turns_per_thread] [threads]
 *
 * Thread t waits with shmem_int_wait_until for turn == t (mod threads),
 * does one shmem_int_atomic_add on its own PE, and passes the turn on with
 * shmem_int_atomic_set.  A turn is one local hand-off and one loopback
 * AMO, so its time should be near the transport's AMO latency; a lock
 * that lets the waiting threads' progress polls starve the thread whose
 * turn it is shows up here as milliseconds per turn.  Prints microseconds
 * per turn (slowest PE); checks the count of AMOs, never the time.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXT 8

static int turn;    /* whose turn: the thread number, counting on past nt */
static int counter; /* one AMO per turn */
static int nt, per_thread, me;

static void *player(void *arg)
{
    int t = (int)(long)arg;
    for (int k = 0; k < per_thread; k++) {
        int mine = k * nt + t;
        shmem_int_wait_until(&turn, SHMEM_CMP_EQ, mine);
        shmem_int_atomic_add(&counter, 1, me);
        shmem_quiet();
        shmem_int_atomic_set(&turn, mine + 1, me);
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    per_thread = argc > 1 ? atoi(argv[1]) : 2000;
    nt = argc > 2 ? atoi(argv[2]) : 2;
    if (per_thread < 1 || nt < 1 || nt > MAXT) {
        fprintf(stderr, "usage: turns [turns_per_thread >= 1] [threads 1..%d]\n", MAXT);
        return 2;
    }
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "turns: SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    me = shmem_my_pe();
    static double t_mine, t_max;
    pthread_t th[MAXT];
    shmem_barrier_all();
    double t0 = now();
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, player, (void *)(long)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    t_mine = now() - t0;
    shmem_barrier_all();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_mine, 1);
    int rc = 0;
    if (counter != nt * per_thread) {
        printf("FAIL PE %d: %d AMOs counted, %d expected\n", me, counter, nt * per_thread);
        rc = 1;
    }
    if (me == 0)
        printf("turns: %d PEs, %d threads x %d turns: %.1f us per turn (slowest PE, %.2f s)\n",
               shmem_n_pes(), nt, per_thread, 1e6 * t_max / (nt * per_thread), t_max);
    shmem_finalize();
    return rc;
}
