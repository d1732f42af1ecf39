/*
 * What moving one cache line between the two cores costs on this machine,
 * the floor under every small on-node collective: two processes share a
 * page and ping-pong a word (half the round trip is one transfer), then
 * one streams words into a 4-line ring the other reads in order, with no
 * reply (what a pipelined broadcast can reach per call).  No OpenSHMEM.
 *
 *   line_latency [iterations]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_relax.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    /* ping, pong and the ring's four lines, each on its own cache line */
    volatile uint64_t *w =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED)
        return 1;
    volatile uint64_t *ping = w, *pong = w + 8, *ring = w + 16;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        for (long i = 1; i <= n; i++) {
            while (*ping < (uint64_t)i)
                pshm_cpu_relax();
            *pong = (uint64_t)i;
        }
        for (long i = 1; i <= n; i++)
            while (ring[(i & 3) * 8] < (uint64_t)i)
                pshm_cpu_relax();
        _exit(0);
    }
    double t0 = now();
    for (long i = 1; i <= n; i++) {
        *ping = (uint64_t)i;
        while (*pong < (uint64_t)i)
            pshm_cpu_relax();
    }
    double rt = (now() - t0) / (double)n * 1e6;
    /* The reader is at most 4 behind only because it keeps up; nothing
     * here waits for it, so this is the transfer rate, not a protocol. */
    t0 = now();
    for (long i = 1; i <= n; i++)
        ring[(i & 3) * 8] = (uint64_t)i;
    waitpid(child, NULL, 0);
    double st = (now() - t0) / (double)n * 1e6;
    printf("cache line: round trip %.3f us, one way %.3f us; streamed %.3f us per line\n", rt,
           rt / 2, st);
    return 0;
}
