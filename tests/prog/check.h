/*
 * check.h -- what the API test programs share.
 *
 *   CHECK(cond, fmt, ...)   on failure prints "FAIL PE n file:line: message
 *                           [cond]" to stderr and ends the whole job with
 *                           shmem_global_exit(1) (exit(1) before shmem_init).
 *   check_watchdog(s)       a PE still running after s seconds reports a
 *                           hang the same way (exit status 2), so that a
 *                           deadlock fails fast and says where it was.
 *   check_stage(name)       names the current stage for the watchdog.
 *   check_summary(name)     barrier, then PE 0 prints the one line a
 *                           passing program prints.
 */
#ifndef PLUGSHMEM_TEST_CHECK_H
#define PLUGSHMEM_TEST_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

static const char *volatile check_stage_name = "start";

static inline void check_stage(const char *name) { check_stage_name = name; }

__attribute__((format(printf, 4, 5), noreturn)) static inline void
check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    int initialized = 0;
    shmem_query_initialized(&initialized);
    const char *base = strrchr(file, '/');
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL PE %d %s:%d: %s [%s] (stage %s)\n", initialized ? shmem_my_pe() : -1,
            base ? base + 1 : file, line, msg, cond, check_stage_name);
    fflush(stderr);
    if (initialized)
        shmem_global_exit(1);
    exit(1);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                    \
    } while (0)

static int check_pe_for_alarm = -1;

static inline void check_alarm(int sig)
{
    (void)sig;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "FAIL PE %d: watchdog: still running (stage %s)\n",
                     check_pe_for_alarm, check_stage_name);
    if (n > 0)
        (void)!write(2, buf, (size_t)n);
    _exit(2);
}

/* Call after shmem_init (the PE number goes into the report). */
static inline void check_watchdog(unsigned seconds)
{
    check_pe_for_alarm = shmem_my_pe();
    signal(SIGALRM, check_alarm);
    alarm(seconds);
}

static inline void check_summary(const char *name)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        printf("%s: OK on %d PE%s\n", name, shmem_n_pes(), shmem_n_pes() == 1 ? "" : "s");
        fflush(stdout);
    }
}

/* The right and left neighbours on the ring of PEs. */
static inline int check_right(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int check_left(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

#endif
