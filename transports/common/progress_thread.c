#include <time.h>

#include "progress_thread.h"

static void *progress_main(void *arg)
{
    struct pshm_progress_thread *p = arg;
    unsigned mult = 1;
    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        unsigned long us = (unsigned long)p->interval_us * mult;
        struct timespec ts = {.tv_sec = (time_t)(us / 1000000u),
                              .tv_nsec = (long)(us % 1000000u) * 1000};
        nanosleep(&ts, NULL);
        if (__atomic_exchange_n(&p->poked, 0, __ATOMIC_RELAXED)) {
            if (mult < PSHM_PROGRESS_BACKOFF)
                mult *= 2;
            continue;
        }
        mult = 1;
        p->serve();
    }
    return NULL;
}

int pshm_progress_start(struct pshm_progress_thread *p)
{
    __atomic_store_n(&p->stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&p->thread, NULL, progress_main, p))
        return -1;
    p->on = 1;
    return 0;
}

void pshm_progress_stop(struct pshm_progress_thread *p)
{
    if (!p->on)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_join(p->thread, NULL);
    p->on = 0;
}
