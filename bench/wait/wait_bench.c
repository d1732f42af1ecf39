/*
 * Waiting, measured where it matters most: PEs that outnumber cores.
 * Plain OpenSHMEM calls only, so the same source builds against any
 * implementation.  Run it under /usr/bin/time to see the CPU it burns:
 *
 *   wait_bench barrier [iterations] [work_us]
 *       shmem_barrier_all in a loop; microseconds per barrier of the
 *       slowest PE.  With work_us, one PE (PE i mod n before barrier i)
 *       computes that long while the others wait: the time shown
 *       includes it, and how late the waiters see the release.
 *   wait_bench pingpong p|atomic|signal [seconds]
 *       PEs in pairs (0,1), (2,3), ... ping-pong through shmem_wait_until
 *       (signal: shmem_signal_wait_until), the writer storing with
 *       shmem_long_p, shmem_long_atomic_set or shmem_putmem_signal, all
 *       pairs for the same time (default 1 s); microseconds per round
 *       trip of a pair (the pairs' rates summed, divided by the pairs).
 *
 * It prints numbers and never asserts on them.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double t_mine, t_out;
static volatile double sink;

/* Computes for about us microseconds of this PE's CPU time: the PEs
 * waiting meanwhile decide how much of the CPU it gets. */
static void work(double us)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    double end = (double)ts.tv_sec * 1e6 + 1e-3 * (double)ts.tv_nsec + us;
    double x = sink;
    for (;;) {
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        if ((double)ts.tv_sec * 1e6 + 1e-3 * (double)ts.tv_nsec >= end)
            break;
    }
    sink = x;
}

static void barrier_loop(int iters, double work_us)
{
    int me = shmem_my_pe();
    for (int i = 0; i < iters / 10 + 1; i++)
        shmem_barrier_all();
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        if (work_us > 0 && me == i % shmem_n_pes())
            work(work_us);
        shmem_barrier_all();
    }
    t_mine = (now() - t0) / iters * 1e6;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_out, &t_mine, 1);
    if (me == 0)
        printf("barrier_all, %d PEs, one computing %.0f us before each: %.2f us per barrier "
               "(slowest PE, %d iterations)\n",
               shmem_n_pes(), work_us, t_out, iters);
}

enum { BY_P, BY_ATOMIC, BY_SIGNAL };

/* Stores r into the partner's word, the way kind says. */
static void send(int kind, long *word, uint64_t *sig, long r, int pe)
{
    static long payload;
    payload = r;
    if (kind == BY_P)
        shmem_long_p(word, r, pe);
    else if (kind == BY_ATOMIC)
        shmem_long_atomic_set(word, r, pe);
    else
        shmem_putmem_signal(word, &payload, sizeof payload, sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                            pe);
}

/* Waits until the partner has sent r. */
static void receive(int kind, long *word, uint64_t *sig, long r)
{
    if (kind == BY_SIGNAL)
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)r);
    else
        shmem_long_wait_until(word, SHMEM_CMP_EQ, r);
}

/* Every pair runs for the same wall time, so that pairs sharing cores are
 * measured while they share them (a count of round trips per pair would
 * let one pair finish while another waits for a core). */
static void pingpong(int kind, const char *name, double seconds)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    int partner = me ^ 1, pairs = np / 2;
    long *word = shmem_calloc(1, sizeof *word);
    uint64_t *sig = shmem_calloc(1, sizeof *sig);
    shmem_barrier_all();
    t_mine = 0;
    long r = 0;
    if (partner < np && !(me & 1)) {
        double t0 = now(), t = t0;
        for (;;) {
            int stop = (++r & 63) == 0 && (t = now()) - t0 >= seconds;
            send(kind, word, sig, stop ? -r : r, partner);
            if (stop)
                break;
            receive(kind, word, sig, r);
        }
        t_mine = (double)r / (t - t0); /* round trips per second */
    } else if (partner < np) {
        /* The even PE sends r, or -r to stop. */
        for (;;) {
            ++r;
            if (kind == BY_SIGNAL)
                shmem_signal_wait_until(sig, SHMEM_CMP_NE, (uint64_t)(r - 1));
            else
                shmem_long_wait_until(word, SHMEM_CMP_NE, r - 1);
            long v = kind == BY_SIGNAL ? (long)shmem_signal_fetch(sig) : *word;
            if (v < 0)
                break;
            send(kind, word, sig, r, partner);
        }
    }
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &t_out, &t_mine, 1);
    if (me == 0)
        printf("wait_until ping-pong by %s, %d PEs (%d pairs, %.1f s): %.2f us per round trip "
               "(%.0f round trips/s in all)\n",
               name, np, pairs, seconds, pairs / t_out * 1e6, t_out);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(word);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "barrier";
    shmem_init();
    int me = shmem_my_pe();
    if (!strcmp(mode, "barrier")) {
        barrier_loop(argc > 2 ? atoi(argv[2]) : 10000, argc > 3 ? atof(argv[3]) : 0);
    } else if (!strcmp(mode, "pingpong") && shmem_n_pes() >= 2) {
        const char *k = argc > 2 ? argv[2] : "p";
        double seconds = argc > 3 ? atof(argv[3]) : 1.0;
        int kind = !strcmp(k, "atomic") ? BY_ATOMIC : !strcmp(k, "signal") ? BY_SIGNAL : BY_P;
        pingpong(kind, kind == BY_ATOMIC ? "atomic_set" : kind == BY_SIGNAL ? "put_signal" : "p",
                 seconds);
    } else if (me == 0) {
        fprintf(stderr, "wait_bench: use barrier [N [work_us]] or pingpong p|atomic|signal "
                        "[seconds] (2+ PEs)\n");
    }
    shmem_finalize();
    return 0;
}
