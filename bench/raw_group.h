/* What the raw N-process baselines (bench/ofi/raw_ofi_coll,
 * bench/ucx/raw_ucx_coll) share: N processes forked from one, a shared
 * page of address slots and a barrier counter (their out-of-band
 * exchange), and how their waits poll and yield. */
#ifndef PSHM_BENCH_RAW_GROUP_H
#define PSHM_BENCH_RAW_GROUP_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RAW_GROUP_MAX 64
#define RAW_GROUP_SLOT 2048

struct raw_group_shared {
    unsigned arrived; /* barrier: arrivals so far */
    double us[RAW_GROUP_MAX]; /* each process's result */
    size_t len[RAW_GROUP_MAX];
    char slot[RAW_GROUP_MAX][RAW_GROUP_SLOT];
};

struct raw_group {
    int me, n;
    unsigned barriers; /* this process's barriers so far */
    struct raw_group_shared *sh;
};

/* Waits poll; after spins idle polls they yield once in every polls
 * (RAW_SPINS, RAW_YIELD_EVERY: the library's own choices differ, and the
 * floor is the best of them). */
struct raw_wait_policy {
    unsigned spins, every;
};

static inline struct raw_wait_policy raw_wait_policy(void)
{
    const char *s = getenv("RAW_SPINS"), *e = getenv("RAW_YIELD_EVERY");
    struct raw_wait_policy p = {s ? (unsigned)atoi(s) : 200u, e ? (unsigned)atoi(e) : 1u};
    if (!p.every)
        p.every = 1;
    return p;
}

/* One idle poll of a wait: the count of idle polls so far in *spins. */
static inline void raw_idle(const struct raw_wait_policy *p, unsigned *spins)
{
    if (++*spins <= p->spins)
        __builtin_ia32_pause();
    else if ((*spins - p->spins) % p->every == 0)
        sched_yield();
}

/* Forks n - 1 children; me is 0 in the parent. */
static inline struct raw_group raw_group_fork(int n)
{
    if (n < 2 || n > RAW_GROUP_MAX) {
        fprintf(stderr, "raw group: 2 to %d processes, not %d\n", RAW_GROUP_MAX, n);
        exit(1);
    }
    struct raw_group g = {.me = 0, .n = n};
    g.sh = mmap(NULL, sizeof *g.sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g.sh == MAP_FAILED)
        exit(1);
    for (int i = 1; i < n; i++) {
        pid_t p = fork();
        if (p < 0)
            exit(1);
        if (p == 0) {
            g.me = i;
            break;
        }
    }
    return g;
}

static inline void raw_group_barrier(struct raw_group *g)
{
    unsigned want = ++g->barriers * (unsigned)g->n;
    __atomic_add_fetch(&g->sh->arrived, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&g->sh->arrived, __ATOMIC_ACQUIRE) < want)
        sched_yield();
}

/* Publishes this process's blob and waits for everyone's. */
static inline void raw_group_share(struct raw_group *g, const void *blob, size_t len)
{
    if (len > RAW_GROUP_SLOT) {
        fprintf(stderr, "raw group: an address of %zu bytes\n", len);
        exit(1);
    }
    memcpy(g->sh->slot[g->me], blob, len);
    g->sh->len[g->me] = len;
    raw_group_barrier(g);
}

/* What the N-process baselines take: [processes] [iterations] [bytes]
 * [shape], a power of two processes, and message buffers to send from and
 * receive into.  Shapes: "exchange" (every round bytes each way, at least
 * 8 and a multiple of 8, then folded as a reduction's round: barrier and
 * reductions), "doubling" (round k 2^k blocks of bytes each way, nothing
 * folded: the recursive-doubling fcollect), "bcast" (a binomial tree from
 * process 0, bytes down each edge, calls back to back: the broadcast). */
enum { RAW_EXCHANGE, RAW_DOUBLING, RAW_BCAST };
struct raw_group_run {
    int n;
    long iters;
    size_t bytes;
    int shape;
    size_t room; /* bytes of out and of in */
    uint64_t *out, *in;
    struct raw_wait_policy policy;
};

/* Bytes each way in round k. */
static inline size_t raw_group_len(const struct raw_group_run *a, int k)
{
    return a->shape == RAW_DOUBLING ? a->bytes << k : a->bytes;
}

static inline struct raw_group_run raw_group_args(int argc, char **argv, const char *prog)
{
    static const char *const shapes[] = {"exchange", "doubling", "bcast"};
    const char *shape = argc > 4 ? argv[4] : shapes[0];
    struct raw_group_run a = {argc > 1 ? atoi(argv[1]) : 4, argc > 2 ? atol(argv[2]) : 20000,
                              argc > 3 ? (size_t)atol(argv[3]) : 8,
                              -1, 0, NULL, NULL, raw_wait_policy()};
    for (int i = 0; i < 3; i++)
        if (!strcmp(shape, shapes[i]))
            a.shape = i;
    if (a.n < 2 || a.n > RAW_GROUP_MAX || (a.n & (a.n - 1))) {
        fprintf(stderr, "%s: a power of two processes, 2 to %d\n", prog, RAW_GROUP_MAX);
        exit(1);
    }
    if (a.shape < 0) {
        fprintf(stderr, "%s: shape 'exchange', 'doubling' or 'bcast', not '%s'\n", prog, shape);
        exit(1);
    }
    a.bytes = a.bytes < 8 ? 8 : a.bytes / 8 * 8;
    /* Doubling: the last round carries half the n blocks. */
    a.room = a.shape == RAW_DOUBLING ? a.bytes * (size_t)a.n / 2 : a.bytes;
    a.out = calloc(a.room / 8, 8);
    a.in = calloc(a.room / 8, 8);
    if (!a.out || !a.in)
        exit(1);
    return a;
}

/* Folds what came into what goes next, as a reduction's round does. */
static inline void raw_group_fold(const struct raw_group_run *a)
{
    if (a->shape != RAW_EXCHANGE)
        return;
    for (size_t w = 0; w < a->bytes / 8; w++)
        a->out[w] += a->in[w];
}

/* A binomial broadcast's edges at process me (root 0) of n, a power of
 * two: the parent it receives from (-1 at the root), and its children
 * me + m for each power of two m below the lowest bit of me (below n at
 * the root), largest first, as the plugins' broadcast sends. */
static inline int raw_group_parent(int me) { return me ? me & (me - 1) : -1; }

/* The largest m, or 0 for a leaf. */
static inline int raw_group_first_child_step(int me, int n) { return (me ? me & -me : n) / 2; }

/* Times iterations of loop after a tenth of them (connections), and
 * prints the slowest process's time per call from the parent. */
static inline void raw_group_time(struct raw_group *g, const struct raw_group_run *a,
                                  void (*loop)(long, int, int), const char *what)
{
    loop(a->iters / 10, g->me, g->n);
    /* All start together: a broadcast's root would otherwise be timing
     * its sends while the others still drain the warm-up. */
    raw_group_barrier(g);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    loop(a->iters, g->me, g->n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    g->sh->us[g->me] = ((double)(t1.tv_sec - t0.tv_sec) * 1e6 +
                        (double)(t1.tv_nsec - t0.tv_nsec) * 1e-3) /
                       (double)a->iters;
    raw_group_barrier(g);
    if (g->me)
        return;
    double worst = 0;
    for (int i = 0; i < g->n; i++)
        worst = g->sh->us[i] > worst ? g->sh->us[i] : worst;
    static const char *const what_shape[] = {"exchanges", "blocks, doubling exchanges",
                                             "broadcasts, tree exchanges"};
    printf("raw %-14s %d processes: %d rounds of %zu-byte %s %8.3f us "
           "(spins %u, a yield in %u)\n",
           what, g->n, __builtin_ctz((unsigned)g->n), a->bytes, what_shape[a->shape], worst,
           a->policy.spins, a->policy.every);
}

/* The parent reaps its children. */
static inline void raw_group_join(struct raw_group *g)
{
    raw_group_barrier(g);
    if (g->me == 0)
        while (wait(NULL) > 0) {
        }
}

#endif
