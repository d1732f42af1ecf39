/* What the raw two-process baselines (bench/ofi/raw_ofi_*, bench/ucx/raw_ucx_*)
 * share: a clock, sending a blob to the forked peer over a pipe (their
 * out-of-band exchange of addresses and keys), and the message timings. */
#ifndef PSHM_BENCH_RAW_PAIR_H
#define PSHM_BENCH_RAW_PAIR_H

#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Its length, then the bytes. */
static inline int put_all(int fd, const void *p, size_t n)
{
    return write(fd, &n, sizeof n) == sizeof n && write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

/* What put_all sent, in memory of its own (exits if the peer is gone). */
static inline void *get_all(int fd)
{
    size_t n;
    if (read(fd, &n, sizeof n) != sizeof n)
        exit(1);
    char *p = malloc(n ? n : 1);
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, p + got, n - got);
        if (r <= 0)
            exit(1);
        got += (size_t)r;
    }
    return p;
}

/* The two processes: this one forks the other; me is 0 in the parent and 1
 * in the child, wr and rd the pipe ends towards and from the other. */
struct raw_pair {
    int me, wr, rd;
    pid_t child;
};

static inline struct raw_pair raw_pair_fork(void)
{
    int a2b[2], b2a[2];
    if (pipe(a2b) || pipe(b2a))
        exit(1);
    struct raw_pair p = {.child = fork()};
    p.me = p.child == 0;
    p.wr = p.me ? b2a[1] : a2b[1];
    p.rd = p.me ? a2b[0] : b2a[0];
    return p;
}

/* The message baselines' two timings, in us: an 8-byte exchange (both send,
 * both receive) per iteration, and half a ping-pong's round trip; each
 * loop runs a tenth of iters first to warm up (connections). */
static inline void raw_pair_time_msgs(void (*exchange)(long), void (*pingpong)(long, int),
                                      long iters, int me, double *ex, double *pp)
{
    exchange(iters / 10);
    double t0 = now();
    exchange(iters);
    *ex = (now() - t0) / (double)iters * 1e6;
    pingpong(iters / 10, me);
    t0 = now();
    pingpong(iters, me);
    *pp = (now() - t0) / (double)iters * 1e6 / 2;
}

#endif
