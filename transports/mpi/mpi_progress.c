/*
 * Progress.  MPICH (ch4, measured with UCX here) completes a put, a get or
 * an atomic only when the target process is inside MPI: the core's waits
 * call mpi_progress(), and a thread does the same for a PE that computes
 * without calling the library.  The thread needs MPI_THREAD_MULTIPLE.
 */
#include <pthread.h>
#include <time.h>

#include "mpi_plugin.h"

/* While the program itself keeps entering MPI the thread has nothing to
 * do, and its wake-ups (and MPI's lock, which it takes) only cost the
 * program: it then sleeps up to BACKOFF intervals. */
#define BACKOFF 16u

static struct {
    pthread_t thread;
    int on;
    int stop;
    unsigned interval_us;
} pg;

static inline void poke(void)
{
    int flag;
    (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mg.comm, &flag, MPI_STATUS_IGNORE);
}

void mpi_progress(void)
{
    __atomic_store_n(&mg.poked, 1, __ATOMIC_RELAXED);
    poke();
}

static void *progress_main(void *arg)
{
    (void)arg;
    unsigned mult = 1;
    while (!__atomic_load_n(&pg.stop, __ATOMIC_ACQUIRE)) {
        unsigned long us = (unsigned long)pg.interval_us * mult;
        struct timespec ts = {.tv_sec = (time_t)(us / 1000000u),
                              .tv_nsec = (long)(us % 1000000u) * 1000};
        nanosleep(&ts, NULL);
        if (__atomic_exchange_n(&mg.poked, 0, __ATOMIC_RELAXED)) {
            if (mult < BACKOFF)
                mult *= 2;
            continue;
        }
        mult = 1;
        poke();
    }
    return NULL;
}

int progress_start(unsigned interval_us)
{
    pg.interval_us = interval_us;
    __atomic_store_n(&pg.stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&pg.thread, NULL, progress_main, NULL))
        return -1;
    pg.on = 1;
    return 0;
}

void progress_stop(void)
{
    if (!pg.on)
        return;
    __atomic_store_n(&pg.stop, 1, __ATOMIC_RELEASE);
    pthread_join(pg.thread, NULL);
    pg.on = 0;
}

int progress_running(void) { return pg.on; }
