/*
 * The SDK's helpers as a plugin uses them (test_sdk.sh compiles this as C
 * and as C++ against SDKDIR/common, with progress_thread.c compiled as C):
 * the ticket lock refuses a second taker while held and serves again once
 * left; the progress thread calls serve() while the program is away, and
 * stops.  Prints "served N" and exits 0 if every check held.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lock.h"
#include "progress_thread.h"

struct ctx {
    int locked;
    struct pshm_lock lock;
};

static struct ctx c;
static int served;

/* As the in-tree plugins serve: only if no thread holds the context. */
static void serve(void)
{
    if (pshm_lock_try(&c.lock)) {
        __atomic_fetch_add(&served, 1, __ATOMIC_RELAXED);
        pshm_unlock(&c.lock);
    }
}

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void)
{
    c.locked = 1;
    PSHM_ENTER(&c);
    if (pshm_lock_try(&c.lock)) {
        puts("FAIL the lock was taken twice");
        return 1;
    }
    PSHM_LEAVE(&c);
    if (!pshm_lock_try(&c.lock)) {
        puts("FAIL the lock could not be taken after PSHM_LEAVE");
        return 1;
    }
    pshm_unlock(&c.lock);

    struct pshm_progress_thread t;
    memset(&t, 0, sizeof t);
    t.serve = serve;
    t.interval_us = 1000;
    if (pshm_progress_start(&t)) {
        puts("FAIL no progress thread");
        return 1;
    }
    /* While the context is held the thread must step back. */
    PSHM_ENTER(&c);
    nap_ms(30);
    int while_held = __atomic_load_n(&served, __ATOMIC_RELAXED);
    PSHM_LEAVE(&c);
    nap_ms(100);
    pshm_progress_stop(&t);
    int after = __atomic_load_n(&served, __ATOMIC_RELAXED);
    nap_ms(20);
    if (while_held != 0 || after == 0 || __atomic_load_n(&served, __ATOMIC_RELAXED) != after) {
        printf("FAIL served %d while held (want 0), %d after (want > 0), %d after stop\n",
               while_held, after, __atomic_load_n(&served, __ATOMIC_RELAXED));
        return 1;
    }
    printf("served %d\n", after);
    return 0;
}
