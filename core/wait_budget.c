/*
 * How long a wait polls before it lets the core go (SHMEM_WAIT_SPINS=auto).
 *
 * Polling pays when whoever we wait for has a core of its own, and costs
 * when it needs ours: then every poll is time taken from it.  PEs per core
 * is known at init; threads are not.  At SHMEM_THREAD_MULTIPLE each thread
 * that waits is counted (once, until it exits), and the node counts as
 * busy once PEs x waiting threads outnumber its cores.
 *
 * Why threads count: bench/threads/turns, 2 PEs of two threads taking
 * turns over ofi tcp on 2 cores, took 1-2 ms a turn while each waiter
 * polled its 16 384 turns (a poll over a network transport is a trip
 * through the sockets, about 1.5 us): the thread whose turn it was waited
 * for a core.  With the waiter polling twice, 80-100 us a turn.
 *
 * Over a transport whose waits poll it (ofi, ucx, mpi), a busy node's
 * budget is 2 polls: measured in that benchmark, each further poll cost a
 * turn 2.5 us (64 polls: 240 us a turn).  With load/store only, 64 short
 * pauses (a few microseconds) before the wait yields, then sleeps.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "config.h"
#include "pshm.h"

#define SPINS_IDLE (1u << 14) /* a core to spare: poll a while */
#define SPINS_BUSY_LOCAL 64u  /* cores shared, load/store: a few us */
#define SPINS_BUSY_POLLED 2u  /* cores shared, each poll a transport call */
#define HOT_IDLE 1024u        /* polls without a pause when a core is spare */
/* A wait that never sleeps (its transport needs its polls) yields once in
 * so many polls: with a core to spare, rarely (a yield buys only its
 * system call); where PEs outnumber cores, once in 4.  Yielding at every
 * poll there, two PEs of a core that both wait handed the core back and
 * forth at every poll: 4 PEs on 2 cores over ucx tcp (bypass off), an
 * 8-byte reduction took 44.6 us yielding at every poll, 35-36 once in 2,
 * 3 or 4, 43 once in 8; over ofi tcp 66, 50-53, 57 (docs/benchmarks.md).
 * Where threads make the node busy, at every poll: they share the
 * transport's lock with the thread whose turn it is. */
#define YIELD_EVERY_IDLE 64u
#define YIELD_EVERY_CROWDED 4u

static int automatic;         /* SHMEM_WAIT_SPINS was auto */
static unsigned long cores, local_pes;
static unsigned waiting;      /* threads that have waited, alive */
static pthread_key_t counted; /* non-NULL in a thread counted in waiting */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void set_budget(unsigned threads)
{
    unsigned long demand = local_pes * (threads ? threads : 1u);
    int busy = pshm_g.oversubscribed || demand > cores;
    unsigned every = !busy ? YIELD_EVERY_IDLE
                     : pshm_g.oversubscribed && threads <= 1 ? YIELD_EVERY_CROWDED
                                                             : 1u;
    /* Read by waiting threads without a lock: a stale value only makes
     * one wait poll longer or shorter. */
    __atomic_store_n(&pshm_g.wait_hot, busy ? 0u : HOT_IDLE, __ATOMIC_RELAXED);
    __atomic_store_n(&pshm_g.wait_yield_every, every, __ATOMIC_RELAXED);
    if (!automatic)
        return;
    unsigned spins = !busy ? SPINS_IDLE : pshm_g.tp_progress ? SPINS_BUSY_POLLED : SPINS_BUSY_LOCAL;
    __atomic_store_n(&pshm_cfg.wait_spins, spins, __ATOMIC_RELAXED);
}

static void thread_gone(void *unused)
{
    (void)unused;
    set_budget(__atomic_sub_fetch(&waiting, 1u, __ATOMIC_RELAXED));
}

static void make_key(void) { pthread_key_create(&counted, thread_gone); }

void pshm_wait_budget_init(int n_local)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores = n > 0 ? (unsigned long)n : 1u;
    local_pes = n_local > 0 ? (unsigned long)n_local : 1u;
    pshm_g.oversubscribed = local_pes > cores;
    automatic = pshm_cfg.wait_spins == PSHM_WAIT_SPINS_AUTO;
    if (automatic)
        pthread_once(&key_once, make_key);
    pshm_wait_budget_update();
}

void pshm_wait_budget_update(void) { set_budget(__atomic_load_n(&waiting, __ATOMIC_RELAXED)); }

/*
 * The node's PEs may be held to fewer CPUs than it has online (taskset on
 * the launcher, a container's or a batch job's cpuset): what counts is the
 * union of the CPUs they may use.  Counted online only, 2 PEs held to one
 * core waited out the idle budget at every step: a shm barrier took
 * 440 us instead of 3.3.  Each PE's own set alone would not do: PEs bound
 * one to a core each have one CPU apiece and still a core each.
 */
void pshm_cpus_mine(uint64_t mask[PSHM_CPU_WORDS])
{
    cpu_set_t set;
    for (int w = 0; w < PSHM_CPU_WORDS; w++)
        mask[w] = 0;
    if (sched_getaffinity(0, sizeof set, &set))
        return;
    for (int c = 0; c < PSHM_CPU_WORDS * 64 && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            mask[c / 64] |= (uint64_t)1 << (c % 64);
}

int pshm_cpus_or(uint64_t into[PSHM_CPU_WORDS], const uint64_t from[PSHM_CPU_WORDS])
{
    uint64_t any = 0;
    for (int w = 0; w < PSHM_CPU_WORDS; w++) {
        into[w] |= from[w];
        any |= from[w];
    }
    return any != 0;
}

void pshm_wait_budget_cpus(const uint64_t node_mask[PSHM_CPU_WORDS], int node_pes)
{
    unsigned long usable = 0;
    for (int w = 0; w < PSHM_CPU_WORDS; w++)
        usable += (unsigned long)__builtin_popcountll(node_mask[w]);
    /* Unknown, or CPUs beyond the set's reach: the online count stands. */
    if (!usable || usable >= cores)
        return;
    cores = usable;
    if (local_pes > cores || (unsigned long)node_pes > usable)
        pshm_g.oversubscribed = 1;
    pshm_wait_budget_update();
}

void pshm_wait_thread_note(void)
{
    if (!automatic || pthread_getspecific(counted))
        return;
    pthread_setspecific(counted, &counted);
    set_budget(__atomic_add_fetch(&waiting, 1u, __ATOMIC_RELAXED));
}
