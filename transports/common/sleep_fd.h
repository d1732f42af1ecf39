/*
 * The sleep of ABI 2.6 block for the network plugins of this tree, once a
 * plugin has armed its library's event descriptor.  Not in the SDK:
 * ppoll, for a bound finer than poll's milliseconds, needs _GNU_SOURCE,
 * which the project sets and an outside plugin may not.
 */
#ifndef PSHM_SLEEP_FD_H
#define PSHM_SLEEP_FD_H

#include <poll.h>
#include <time.h>

/* 1 if fd became readable within max_us, 0 if the time ran out. */
static inline int pshm_sleep_on_fd(int fd, unsigned max_us)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct timespec ts = {.tv_sec = max_us / 1000000u, .tv_nsec = (long)(max_us % 1000000u) * 1000};
    return ppoll(&p, 1, &ts, NULL) > 0;
}

#endif
