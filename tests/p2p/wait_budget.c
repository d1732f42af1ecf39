/*
 * wait_budget.c -- the polls a wait makes before it lets the core go
 * (SHMEM_WAIT_SPINS=auto) count the threads that wait, not only the PEs.
 *
 * Two threads per PE taking turns over ofi tcp on 2 cores took 1-2 ms a
 * turn while each waiter polled 16 384 times: the thread whose turn it was
 * had no core (bench/threads/turns).  Now each thread that waits at
 * SHMEM_THREAD_MULTIPLE is counted until it exits, and once PEs x waiting
 * threads outnumber the cores a wait polls only a few times.
 *
 * Each PE starts cores + 1 threads that wait for a release word, so that
 * the node is busy whatever the machine: the budget
 * (shmemx_wait_stat(SHMEMX_WAIT_SPINS)) must fall to the busy value (2
 * over a transport the wait polls, 64 with load/store only) while they
 * wait, and return to what it was once they have exited.  With
 * SHMEM_WAIT_SPINS set, the budget is the user's throughout.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "p2p_test.h"
#include <shmemx.h>

#define BUSY_POLLED 2u
#define BUSY_LOCAL 64u

static int release; /* symmetric: the waits' word */
static int started;

static void *waiter(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
    shmem_int_wait_until(&release, SHMEM_CMP_EQ, 1);
    return NULL;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    REQUIRE_EQ(rc, 0, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d", rc);
    check_watchdog(60);
    REQUIRE_EQ(provided, SHMEM_THREAD_MULTIPLE, "shmem_init_thread provided %d, not MULTIPLE (%d)",
               provided, SHMEM_THREAD_MULTIPLE);
    const char *set = getenv("SHMEM_WAIT_SPINS");
    int user_set = set && *set && strcmp(set, "auto") != 0;
    release = started = 0;
    shmem_barrier_all();

    check_stage("before");
    uint64_t before = shmemx_wait_stat(SHMEMX_WAIT_SPINS);
    CHECK(before != UINT64_MAX, "shmemx_wait_stat(SHMEMX_WAIT_SPINS) is not known");
    if (user_set)
        CHECK_EQ(before, (uint64_t)strtoull(set, NULL, 10), "SHMEM_WAIT_SPINS=%s", set);

    check_stage("waiting");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = (int)(cores > 0 ? cores : 1) + 1;
    pthread_t *th = malloc(sizeof *th * (size_t)nt);
    REQUIRE(th != NULL, "out of memory");
    for (int t = 0; t < nt; t++)
        REQUIRE_EQ(pthread_create(&th[t], NULL, waiter, NULL), 0, "pthread_create failed");
    while (__atomic_load_n(&started, __ATOMIC_RELAXED) < nt)
        nap_ms(1);
    /* A thread is counted at its wait's first poll: give them time. */
    uint64_t during = before;
    for (int ms = 0; ms < 20000; ms++) {
        during = shmemx_wait_stat(SHMEMX_WAIT_SPINS);
        if (user_set || during == BUSY_POLLED || during == BUSY_LOCAL)
            break;
        nap_ms(1);
    }
    if (user_set)
        CHECK_EQ(during, before, "with SHMEM_WAIT_SPINS=%s, %d threads waiting", set, nt);
    else
        CHECK(during == BUSY_POLLED || during == BUSY_LOCAL,
              "%d threads waiting on %ld cores: the wait budget is %llu, expected %u or %u", nt,
              cores, (unsigned long long)during, BUSY_POLLED, BUSY_LOCAL);
    __atomic_store_n(&release, 1, __ATOMIC_SEQ_CST);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    free(th);

    check_stage("after");
    /* The exited threads are no longer counted. */
    uint64_t after = shmemx_wait_stat(SHMEMX_WAIT_SPINS);
    CHECK_EQ(after, before, "the wait budget once the %d waiting threads have exited", nt);
    shmem_barrier_all();
    int status = check_done("wait_budget", "%d waiting threads: wait budget %llu -> %llu -> %llu",
                            nt, (unsigned long long)before, (unsigned long long)during,
                            (unsigned long long)after);
    shmem_finalize();
    return status;
}
