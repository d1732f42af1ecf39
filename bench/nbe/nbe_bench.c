/*
 * Message rate of 8-byte puts from PE 0 to PE 1 by 1, 2 and 4 threads,
 * each on its own private context, completed two ways:
 *   nbe   batches of shmemx_ctx_putmem_nbe joined to one request each,
 *         then shmemx_request_wait on it;
 *   nbi   batches of shmem_ctx_putmem_nbi, then shmem_ctx_quiet.
 *
 *   oshrun -n 2 nbe_bench [messages per thread] [batch] [nbe|nbi] [max threads]
 *
 * Prints one line per (mode, threads): millions of messages per second
 * over all threads (from the first thread's start to the last one's
 * end).  It never asserts on time.  docs/extensions.md has the table.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 4

static long msgs = 200000, batch = 64;
static int use_nbe;
static uint64_t *dst;
static pthread_barrier_t start;
static double t_start[MAXT], t_end[MAXT];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *sender(void *arg)
{
    long t = (long)arg;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx))
        ctx = SHMEM_CTX_DEFAULT;
    uint64_t v = (uint64_t)t;
    uint64_t *slot = &dst[t * 64]; /* a cache line per thread */
    pthread_barrier_wait(&start);
    t_start[t] = now();
    for (long done = 0; done < msgs; done += batch) {
        if (use_nbe) {
            shmemx_request_h r = SHMEMX_REQUEST_NULL;
            for (long i = 0; i < batch; i++)
                shmemx_ctx_putmem_nbe(ctx, slot, &v, 8, 1, &r);
            shmemx_request_wait(&r);
        } else {
            for (long i = 0; i < batch; i++)
                shmem_ctx_putmem_nbi(ctx, slot, &v, 8, 1);
            shmem_ctx_quiet(ctx);
        }
    }
    t_end[t] = now();
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static double run(int nthreads)
{
    pthread_t th[MAXT];
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    for (long t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, sender, (void *)t);
    pthread_barrier_wait(&start);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    double t0 = t_start[0], t1 = t_end[0];
    for (int t = 1; t < nthreads; t++) {
        t0 = t_start[t] < t0 ? t_start[t] : t0;
        t1 = t_end[t] > t1 ? t_end[t] : t1;
    }
    double dt = t1 - t0;
    pthread_barrier_destroy(&start);
    return (double)msgs * nthreads / dt / 1e6;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        msgs = atol(argv[1]);
    if (argc > 2)
        batch = atol(argv[2]);
    const char *only = argc > 3 ? argv[3] : NULL;
    int maxt = argc > 4 ? atoi(argv[4]) : MAXT;
    if (maxt < 1 || maxt > MAXT)
        maxt = MAXT;
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    dst = shmem_calloc(MAXT * 64, sizeof *dst);
    if (shmem_n_pes() < 2) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "nbe_bench: run on 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    if (provided < SHMEM_THREAD_MULTIPLE && shmem_my_pe() == 0)
        fprintf(stderr, "nbe_bench: only thread level %d: one thread\n", provided);
    if (shmem_my_pe() == 0)
        printf("%s, %ld messages of 8 bytes per thread, batches of %ld (rate: all threads' "
               "messages over the first start to the last end)\n",
               shmemx_transport_name(), msgs, batch);
    for (use_nbe = 1; use_nbe >= 0; use_nbe--)
        for (int n = 1; n <= maxt; n *= 2) {
            if (only && strcmp(only, use_nbe ? "nbe" : "nbi"))
                break;
            if (n > 1 && provided < SHMEM_THREAD_MULTIPLE)
                break;
            shmem_barrier_all();
            double rate = shmem_my_pe() == 0 ? run(n) : 0;
            shmem_barrier_all();
            if (shmem_my_pe() == 0)
                printf("%-4s threads %d  %8.2f Mmsg/s\n", use_nbe ? "nbe" : "nbi", n, rate);
            fflush(stdout);
        }
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
