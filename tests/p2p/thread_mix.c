/*
 * thread_mix.c -- threads of one PE sharing the default context, mixing
 * AMOs, waits, quiet and puts (SHMEM_THREAD_MULTIPLE).
 *
 * Each PE runs four threads on the default context:
 *   - the adder, round i = 1..rounds: puts i into slot i % NS of the next
 *     PE, fences (the put lands before the add), and atomically adds 1 to
 *     the next PE's hit counter;
 *   - the waiter, round i: waits with shmem_wait_until for its own hit
 *     counter to reach i, calls shmem_quiet, and checks slot i % NS: it
 *     holds i or a later value of the same slot (the adder may be ahead);
 *   - two turn-takers, passing a turn word of their own PE back and forth:
 *     each waits for its turn with shmem_wait_until, fetch-adds a word on
 *     PE 0 shared by everybody (checking that it only grows), adds 1 to a
 *     word of its own PE through the transport, and passes the turn on
 *     with an atomic set.
 * These are the patterns in which an unfair context lock livelocked over
 * ofi tcp: a thread polling the transport for progress took the lock
 * again and again while the thread whose AMO it waited for could not get
 * it (milliseconds to seconds per turn).  The watchdog turns a livelock
 * into a failure naming the stage; at the end the hit counter, the turn
 * word and PE 0's shared word must be exact.
 */
#include <pthread.h>

#include "p2p_test.h"
#include <shmemx.h>

#define NT 4  /* adder, waiter, two turn-takers */
#define NS 64 /* slots the adder cycles through */
#define ROUNDS_SHM 5000
#define ROUNDS_NET 1000

static int rounds = ROUNDS_SHM;
static int me, npes;
static int hits;
static int turn, own_adds;
static long slots[NS];
static long shared_count;
static pthread_barrier_t start;

struct targ {
    int t;
    char err[256];
};

static void adder(void)
{
    int next = (me + 1) % npes;
    for (int i = 1; i <= rounds; i++) {
        shmem_long_p(&slots[i % NS], i, next);
        shmem_fence();
        shmem_int_atomic_add(&hits, 1, next);
    }
}

static void waiter(struct targ *a)
{
    for (int i = 1; i <= rounds; i++) {
        shmem_int_wait_until(&hits, SHMEM_CMP_GE, i);
        shmem_quiet();
        long got = __atomic_load_n(&slots[i % NS], __ATOMIC_ACQUIRE);
        if (got < i || got % NS != i % NS) {
            snprintf(a->err, sizeof a->err,
                     "round %d: slot %d holds %ld, expected %d or a later round of that slot", i,
                     i % NS, got, i);
            return;
        }
    }
}

static void turn_taker(struct targ *a, int side)
{
    long last = -1;
    for (int k = 0; k < rounds; k++) {
        int mine = 2 * k + side;
        shmem_int_wait_until(&turn, SHMEM_CMP_EQ, mine);
        long old = shmem_long_atomic_fetch_add(&shared_count, 1, 0);
        if (old <= last) {
            snprintf(a->err, sizeof a->err,
                     "turn %d: PE 0's shared word went from %ld to %ld: it must grow", mine, last,
                     old);
            return;
        }
        last = old;
        shmem_int_atomic_add(&own_adds, 1, me);
        shmem_int_atomic_set(&turn, mine + 1, me);
    }
}

static void *player(void *arg)
{
    struct targ *a = arg;
    pthread_barrier_wait(&start);
    if (a->t == 0)
        adder();
    else if (a->t == 1)
        waiter(a);
    else
        turn_taker(a, a->t - 2);
    return NULL;
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    REQUIRE_EQ(rc, 0, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d", rc);
    /* Ten times the longest run seen with the fair lock (2-8 PEs, load 8);
     * with the old lock ofi tcp took about ten times as long. */
    check_watchdog(100);
    REQUIRE_EQ(provided, SHMEM_THREAD_MULTIPLE, "shmem_init_thread provided %d, not MULTIPLE (%d)",
               provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    REQUIRE_LT(npes, NS, "at most %d PEs", NS - 1);
    const char *tp = shmemx_transport_name();
    if (!tp || strcmp(tp, "shm") != 0)
        rounds = ROUNDS_NET;
    hits = turn = own_adds = 0;
    memset(slots, 0, sizeof slots);
    shared_count = 0;
    shmem_barrier_all();

    check_stage("threads");
    pthread_barrier_init(&start, NULL, NT);
    pthread_t th[NT];
    struct targ args[NT];
    for (int t = 0; t < NT; t++) {
        args[t].t = t;
        args[t].err[0] = 0;
        REQUIRE_EQ(pthread_create(&th[t], NULL, player, &args[t]), 0, "pthread_create failed");
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < NT; t++)
        REQUIRE(!args[t].err[0], "%s", args[t].err);
    shmem_barrier_all();

    check_stage("check");
    REQUIRE_EQ(hits, rounds, "the hit counter is %d, expected %d", hits, rounds);
    REQUIRE(own_adds == 2 * rounds && turn == 2 * rounds,
            "the turn-takers' adds are %d and the turn word %d, expected %d", own_adds, turn,
            2 * rounds);
    if (me == 0)
        REQUIRE_EQ(shared_count, 2L * npes * rounds, "PE 0's shared word is %ld, expected %ld",
                   shared_count, 2L * npes * rounds);
    int status =
        check_done("thread_mix",
                   "adder, waiter and two turn-takers x %d rounds on the default context", rounds);
    shmem_finalize();
    return status;
}
