/*
 * What the collective tests share.
 *   EXPECT(cond, fmt, ...)  on failure: "FAIL PE n file:line: message" on
 *                           stderr, then shmem_global_exit(1)
 *   watchdog(s)             a PE still running after s seconds reports the
 *                           stage it hangs in and exits 2
 *   stage(name)             names that stage
 */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

static const char *volatile test_stage = "start";
static inline void stage(const char *s) { test_stage = s; }

__attribute__((format(printf, 3, 4), noreturn)) static void fail_at(const char *file, int line,
                                                                   const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL PE %d %s:%d [%s]: %s\n", shmem_my_pe(), file, line, test_stage, msg);
    fflush(stderr);
    shmem_global_exit(1);
    _exit(1);
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail_at(__FILE__, __LINE__, __VA_ARGS__);                                              \
    } while (0)

static void on_alarm(int sig)
{
    (void)sig;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "FAIL PE %d: hung in stage '%s'\n", shmem_my_pe(), test_stage);
    if (write(2, buf, (size_t)n) < 0) {
    }
    _exit(2);
}

static inline void watchdog(unsigned seconds)
{
    signal(SIGALRM, on_alarm);
    alarm(seconds);
}

#endif
