/*
 * sleep.c -- waits that sleep.  At 4 and 8 PEs on this 2-core machine the
 * PEs outnumber the cores, so a PE that waits longer than a short spin and
 * yield goes to sleep in the kernel and must be woken by the writer, or
 * see the write when its nap ends.  Each stage passes a token around the
 * ring of PEs, many rounds, with one way of writing and of waiting; the
 * token holder sometimes computes a while first so that the others are
 * asleep when it writes.  Every value received is checked.  A lost wake-up
 * only costs a nap; a sleep that never ended would hang a stage, which the
 * watchdog reports by name.
 *
 *  1. shmem_long_p + shmem_long_wait_until (a plain store cannot wake: the
 *     nap's bound must end the sleep)
 *  2. shmem_long_atomic_set + wait_until (the AMO wakes the sleeper)
 *  3. shmem_long_atomic_add + wait_until GE (an adding AMO wakes)
 *  4. shmem_long_atomic_fetch_add + wait_until GE (a fetching AMO does not
 *     wake: the nap's bound again)
 *  5. shmem_putmem_signal (SET) + shmem_signal_wait_until, payload checked
 *  6. shmem_signal_add + shmem_signal_wait_until GE
 *  7. wait_until_any over one word per PE on PE 0 (a wait on several
 *     words), answered with atomic_set, then a release by shmem_long_p
 *  8. barrier_all rounds with an atomic_inc on PE 0 before each (the
 *     counter barrier's waiters watch a word of another PE)
 *  9. one long wait: PE 0 computes ~50 ms before a plain shmem_long_p
 *     releases the others (naps grow, and still end)
 */
#include <time.h>

#include "p2p_test.h"
#include <shmemx.h>

static long gword;     /* global: the data segment's sleep key */
static uint64_t gsig;
static long gpayload;

static void compute(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3 < us);
}

/* Every 16th round the holder computes 300 us before passing on. */
static void maybe_compute(long r)
{
    if (r % 16 == 0)
        compute(300);
}

enum { BY_P, BY_SET, BY_ADD, BY_FADD, BY_SIGNAL, BY_SIGADD };

static void ring(const char *stage, int how, long *word, int rounds)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes;
    t_stage(stage);
    shmem_barrier_all();
    for (long r = 1; r <= rounds; r++) {
        /* PE 0 starts round r; the others pass it on once it reaches them. */
        if (me != 0 || r > 1) {
            long want = me == 0 ? r - 1 : r;
            if (how == BY_SIGNAL || how == BY_SIGADD) {
                uint64_t v = shmem_signal_wait_until(&gsig, SHMEM_CMP_GE, (uint64_t)want);
                T_CHECK(v == (uint64_t)want, "round %ld: signal is %llu", r,
                        (unsigned long long)v);
                if (how == BY_SIGNAL)
                    T_CHECK(gpayload == want * 7, "round %ld: payload %ld before its signal", r,
                            gpayload);
            } else {
                shmem_long_wait_until(word, SHMEM_CMP_GE, want);
                long v = shmem_long_atomic_fetch(word, me);
                T_CHECK(v == want, "round %ld: word is %ld, expected %ld", r, v, want);
            }
        }
        maybe_compute(r);
        long payload = r * 7;
        switch (how) {
        case BY_P: shmem_long_p(word, r, next); break;
        case BY_SET: shmem_long_atomic_set(word, r, next); break;
        case BY_ADD: shmem_long_atomic_add(word, 1, next); break;
        case BY_FADD: (void)shmem_long_atomic_fetch_add(word, 1, next); break;
        case BY_SIGNAL:
            shmem_putmem_signal(&gpayload, &payload, sizeof payload, &gsig, (uint64_t)r,
                                SHMEM_SIGNAL_SET, next);
            break;
        case BY_SIGADD: shmem_signal_add(&gsig, 1, next); break;
        }
    }
    if (me == 0) {
        if (how == BY_SIGNAL || how == BY_SIGADD)
            shmem_signal_wait_until(&gsig, SHMEM_CMP_GE, (uint64_t)rounds);
        else
            shmem_long_wait_until(word, SHMEM_CMP_GE, rounds);
    }
    shmem_barrier_all();
    *word = 0;
    gsig = 0;
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    t_watchdog(150);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *tp = shmemx_transport_name();
    int scale = (tp && strcmp(tp, "shm") == 0) ? 4 : 1; /* fewer over a network */
    int rounds = 100 * scale;

    long *hword = shmem_calloc(1, sizeof(long));
    long *slots = shmem_calloc((size_t)npes, sizeof(long));
    long *release = shmem_calloc(1, sizeof(long));
    long *count = shmem_calloc(1, sizeof(long));
    T_CHECK(hword && slots && release && count, "allocation failed");

    ring("p", BY_P, hword, rounds);
    ring("atomic_set", BY_SET, hword, rounds);
    ring("atomic_add", BY_ADD, &gword, rounds);
    ring("fetch_add", BY_FADD, hword, rounds);
    ring("put_signal", BY_SIGNAL, &gword, rounds);
    ring("signal_add", BY_SIGADD, &gword, rounds);

    /* ---- 7. a wait on several words ------------------------------------ */
    t_stage("wait_until_any");
    for (long r = 1; r <= rounds; r++) {
        if (me == 0) {
            int seen = 1;
            size_t done[64] = {0};
            T_CHECK(npes <= 64, "at most 64 PEs");
            int *status = calloc((size_t)npes, sizeof(int));
            status[0] = 1;
            while (seen < npes) {
                size_t i = shmem_long_wait_until_any(slots, (size_t)npes, status, SHMEM_CMP_EQ, r);
                T_CHECK(i < (size_t)npes && !status[i] && !done[i], "round %ld: index %zu", r, i);
                done[i] = 1;
                status[i] = 1;
                seen++;
            }
            free(status);
            maybe_compute(r);
            for (int pe = 1; pe < npes; pe++)
                shmem_long_p(release, r, pe);
        } else {
            if ((r + me) % 16 == 0)
                compute(200);
            shmem_long_atomic_set(&slots[me], r, 0);
            shmem_long_wait_until(release, SHMEM_CMP_EQ, r);
        }
    }
    shmem_barrier_all();

    /* ---- 8. barriers ------------------------------------------------------ */
    t_stage("barrier");
    for (long r = 1; r <= rounds; r++) {
        shmem_long_atomic_inc(count, 0);
        if (me == (int)(r % npes))
            compute(r % 4 == 0 ? 300 : 0);
        shmem_barrier_all();
        if (me == 0)
            T_CHECK(*count == r * npes, "barrier %ld: count %ld, expected %ld", r, *count,
                    r * npes);
        shmem_barrier_all();
    }

    /* ---- 9. one long wait -------------------------------------------------- */
    t_stage("long wait");
    *release = 0;
    shmem_barrier_all();
    if (me == 0) {
        compute(50000);
        for (int pe = 1; pe < npes; pe++)
            shmem_long_p(release, -1, pe);
    } else {
        shmem_long_wait_until(release, SHMEM_CMP_EQ, -1);
    }
    shmem_barrier_all();

    t_done("sleep", "%d rounds of each way of waking", rounds);
    shmem_free(count);
    shmem_free(release);
    shmem_free(slots);
    shmem_free(hword);
    shmem_finalize();
    return 0;
}
