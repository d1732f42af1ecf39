/* The sweeper: a helper process that outlives its PE just long enough to
 * remove the PE's /dev/shm objects.
 *
 * oshrun removes a job's objects at its end. Other launchers (hydra, Slurm,
 * mpirun) know nothing of them, and end a failed job by SIGKILL: whatever a
 * killed PE had not yet unlinked (libfabric's shm provider keeps its
 * endpoint regions, 16 MiB each, for the whole run) would stay in /dev/shm
 * until reboot. Every object of a PE is named psm-p<pid>-... without
 * oshrun (segment.c; plugins get "p<pid>" as the job tag), so the helper
 * waits for the PE to be gone (end of a pipe only the PE holds) and
 * removes that prefix.
 *
 * The program may have threads by now (an MPI initialized first), so
 * between fork and exit the helper only makes system calls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweeper.h"

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void sweep(const char *prefix, size_t plen)
{
    char buf[4096];
    int dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long n;
    if (dir < 0)
        return;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            if (strncmp(d->d_name, prefix, plen) == 0)
                unlinkat(dir, d->d_name, 0);
            off += d->d_reclen;
        }
    }
    close(dir);
}

static _Noreturn void helper(int keep, const char *prefix, size_t plen)
{
    char c;
    /* Out of the PE's session: a launcher signalling the PE's process
     * group must not take the helper with it. */
    setsid();
    /* Holding nothing of the PE's: no output a launcher would wait for,
     * no launcher connection, no other end of our pipe. */
    if (syscall(SYS_close_range, 0u, (unsigned)keep - 1, 0u) != 0 ||
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) != 0)
        for (int fd = 0; fd < 65536; fd++)
            if (fd != keep)
                close(fd);
    while (read(keep, &c, 1) < 0 && errno == EINTR)
        ;
    sweep(prefix, plen);
    _exit(0);
}

void pshm_sweeper_start(void)
{
    static int started;
    char prefix[32];
    int p[2];
    if (started)
        return;
    started = 1;
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, "psm-p%d-", (int)getpid());
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    pid_t child = fork();
    if (child == 0) {
        /* Twice, so that the PE has no child of ours for its wait() to find. */
        if (fork() == 0)
            helper(p[0], prefix, plen);
        _exit(0);
    }
    close(p[0]);
    if (child < 0) {
        close(p[1]);
        return;
    }
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    /* p[1] stays open, unused, until this process is gone. */
}
