/*
 * The progress thread the network plugins share (compiled into each plugin,
 * which stays self-contained): it serves peers while the program computes
 * without calling the library.  While the program keeps calling progress
 * itself the thread has nothing to do, and its wake-ups alone (two context
 * switches each, on cores the PEs may share) cost latency: it then sleeps
 * up to PSHM_PROGRESS_BACKOFF intervals, and returns to one interval as
 * soon as it finds the program away.
 */
#ifndef PSHM_PROGRESS_THREAD_H
#define PSHM_PROGRESS_THREAD_H

#include <pthread.h>

#define PSHM_PROGRESS_BACKOFF 16u

/* A C++ plugin compiles progress_thread.c as C beside its own files. */
#ifdef __cplusplus
extern "C" {
#endif

struct pshm_progress_thread {
    void (*serve)(void);  /* one round of serving peers, under the plugin's locks */
    unsigned interval_us; /* between wake-ups, before back-off */
    int poked;            /* the program called progress since the thread last looked */
    int stop;
    int on;
    pthread_t thread;
};

/* The program called progress: the thread may back off. */
static inline void pshm_progress_poke(struct pshm_progress_thread *p)
{
    __atomic_store_n(&p->poked, 1, __ATOMIC_RELAXED);
}

/* 0, or -1 if the thread could not be created. */
int pshm_progress_start(struct pshm_progress_thread *p);
void pshm_progress_stop(struct pshm_progress_thread *p);

#ifdef __cplusplus
}
#endif

#endif
