/* oshrun: the main loop. It sleeps in poll() on a signalfd (SIGCHLD and the
 * termination signals) and on the self-pipe the PMIx upcalls (and the fault
 * guard) write to, reaps the PEs, judges each exit and, once the job must
 * end, halts the PMIx server and signals the rest. */
#include "oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_FAILURE_MS 1000   /* SIGTERM -> SIGKILL when a PE failed */
#define GRACE_SIGNAL_MS  2000   /* forwarded signal -> SIGKILL */

struct exit_event {
    int rank;
    int status;                 /* as from waitpid */
};

void job_claim_abort(struct job *job, int rank, int status, const char *msg)
{
    bool expected = false;

    if (atomic_compare_exchange_strong(&job->abort_claimed, &expected, true)) {
        job->abort_rank = rank;
        job->abort_status = status;
        snprintf(job->abort_msg, sizeof job->abort_msg, "%s", msg ? msg : "");
        atomic_store_explicit(&job->aborted, true, memory_order_release);
        note_wake();
    }
}

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Returns the first termination signal read, or 0. */
static int drain_signals(struct job *job)
{
    struct signalfd_siginfo si;
    int term = 0;

    while (read(job->sig_fd, &si, sizeof si) == (ssize_t)sizeof si)
        if (si.ssi_signo != SIGCHLD && term == 0)
            term = (int)si.ssi_signo;
    return term;
}

static void drain_notes(struct job *job)
{
    char buf[256];

    while (read(job->note_rd, buf, sizeof buf) > 0)
        ;
}

static int rank_of(const struct job *job, pid_t pid)
{
    for (int i = 0; i < job->npes; i++)
        if (job->pes[i].alive && atomic_load(&job->pes[i].pid) == pid)
            return i;
    return -1;
}

/* Reap every exited child, in the order the kernel reports them. */
static int reap(struct job *job, struct exit_event *ev)
{
    int n = 0, status;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int rank = rank_of(job, pid);

        if (rank < 0)
            continue;
        job->pes[rank].alive = false;
        job->nlive--;
        ev[n].rank = rank;
        ev[n].status = status;
        n++;
        dbg("PE %d (pid %d) reaped, wait status 0x%x", rank, (int)pid, status);
    }
    return n;
}

/* Linux: has process PID begun to exit (PF_EXITING), or is it a zombie? */
static bool process_exiting(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long flags = 0;
    ssize_t n;
    char *p;
    int fd;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    p = strrchr(buf, ')');          /* skip "pid (comm)" */
    if (p == NULL || p[1] == '\0')
        return false;
    if (p[2] == 'Z' || p[2] == 'X')
        return true;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
        return false;
    return (flags & 0x4UL) != 0;    /* PF_EXITING */
}

/* A PE's death shows to its peers (a reset connection, a UCX or libfabric
 * error) only once it has begun to exit, so when a PE fails or aborts, a
 * peer whose death caused it is already exiting: reap those too (waiting
 * at most EXITING_WAIT_MS for them, a core dump may take long), so that
 * the job's end is put down to the PE that was killed, not to the peer
 * that noticed first. Appends to ev; returns the new count. */
#define EXITING_WAIT_MS 2000

static int reap_exiting(struct job *job, struct exit_event *ev, int nev)
{
    long until = now_ms() + EXITING_WAIT_MS;

    for (int i = 0; i < job->npes; i++) {
        pid_t pid = atomic_load(&job->pes[i].pid);
        int status;

        if (!job->pes[i].alive || pid <= 0 || !process_exiting(pid))
            continue;
        for (;;) {
            pid_t r = waitpid(pid, &status, WNOHANG);

            if (r == pid) {
                job->pes[i].alive = false;
                job->nlive--;
                ev[nev].rank = i;
                ev[nev].status = status;
                nev++;
                dbg("PE %d (pid %d) was exiting too, wait status 0x%x", i,
                    (int)pid, status);
                break;
            }
            if (r < 0 || now_ms() >= until)
                break;
            nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000000L }, NULL);
        }
    }
    return nev;
}

/* The first of ev killed by a signal, or -1. SIGABRT comes last: it is
 * how libraries (a UCX fatal error, an assertion) end a PE that noticed
 * something wrong, such as a peer's death. */
static int first_signaled(const struct exit_event *ev, int nev)
{
    int abrt = -1;

    for (int i = 0; i < nev; i++)
        if (WIFSIGNALED(ev[i].status)) {
            if (WTERMSIG(ev[i].status) != SIGABRT)
                return i;
            if (abrt < 0)
                abrt = i;
        }
    return abrt;
}

/* -1 if the exit is fine, else the job's exit status (message printed).
 * Upcall flags are read after the reap: a PE's connect/finalize reply
 * precedes its exit, so its flags are already visible here. */
static bool exit_fails(const struct job *job, const struct exit_event *ev)
{
    const struct pe *pe = &job->pes[ev->rank];

    return WIFSIGNALED(ev->status) || WEXITSTATUS(ev->status) != 0 ||
           (atomic_load(&pe->connected) && !atomic_load(&pe->finalized)) ||
           (pe->pmi_connected && !pe->pmi_finalized);
}

static int judge_exit(struct job *job, const struct exit_event *ev)
{
    struct pe *pe = &job->pes[ev->rank];
    int pid = atomic_load(&pe->pid);

    if (WIFSIGNALED(ev->status)) {
        int sig = WTERMSIG(ev->status);
        fprintf(stderr, "oshrun: PE %d (pid %d) killed by signal %d (%s); "
                "ending the job\n", ev->rank, pid, sig, strsignal(sig));
        return 128 + sig;
    }
    if (WEXITSTATUS(ev->status) != 0) {
        fprintf(stderr, "oshrun: PE %d (pid %d) exited with status %d; "
                "ending the job\n", ev->rank, pid, WEXITSTATUS(ev->status));
        return WEXITSTATUS(ev->status);
    }
    if ((atomic_load(&pe->connected) && !atomic_load(&pe->finalized)) ||
        (pe->pmi_connected && !pe->pmi_finalized)) {
        fprintf(stderr, "oshrun: PE %d (pid %d) exited without finalizing; "
                "ending the job\n", ev->rank, pid);
        return 1;
    }
    return -1;
}

int monitor_run(struct job *job)
{
    struct exit_event *ev = calloc((size_t)job->npes, sizeof *ev);
    struct pollfd *pfd = calloc((size_t)job->npes + 2, sizeof *pfd);
    bool ending = false, killed = false;
    long deadline = 0;
    int result = 0;

    if (ev == NULL || pfd == NULL) {
        fprintf(stderr, "oshrun: out of memory\n");
        server_halt(job);
        kill_all(job, SIGKILL);
        ending = killed = true;
        result = OSHRUN_EXIT_FAILURE;
    }
    while (job->nlive > 0) {
        int timeout = -1, sig, nev = 0, fault, npmi = 0;

        if (ending && !killed) {
            long left = deadline - now_ms();
            timeout = left > 0 ? (int)left : 0;
        }
        /* Once the job is ending, PMI clients get no more answers. */
        if (pfd != NULL) {
            pfd[0] = (struct pollfd){ .fd = job->sig_fd, .events = POLLIN };
            pfd[1] = (struct pollfd){ .fd = job->note_rd, .events = POLLIN };
            if (!ending)
                npmi = pmi_server_pollfds(job, pfd + 2);
        }
        if (pfd == NULL || (poll(pfd, 2 + (nfds_t)npmi, timeout) < 0 &&
                            errno != EINTR)) {
            fprintf(stderr, "oshrun: poll: %s\n", strerror(errno));
            server_halt(job);
            if (!killed)
                kill_all(job, SIGKILL);
            ending = killed = true;
            if (result == 0)
                result = OSHRUN_EXIT_FAILURE;
            while (job->nlive > 0 && waitpid(-1, NULL, 0) > 0)
                job->nlive--;   /* only PEs are our children */
            break;
        }
        sig = drain_signals(job);
        drain_notes(job);
        /* Before the reaping: a PE's last PMI lines precede its exit. */
        if (npmi > 0)
            pmi_server_serve(job, pfd + 2, npmi);
        if (ev != NULL)
            nev = reap(job, ev);

        fault = atomic_load(&job->server_fault);
        if (!ending) {
            int grace = GRACE_FAILURE_MS, fwd = SIGTERM;

            bool aborted = atomic_load_explicit(&job->aborted,
                                                memory_order_acquire);
            int failed = -1, sigd;

            for (int i = 0; i < nev && failed < 0 && !aborted; i++)
                if (exit_fails(job, &ev[i]))
                    failed = i;
            if (ev != NULL && (aborted || failed >= 0))
                nev = reap_exiting(job, ev, nev);
            sigd = ev != NULL ? first_signaled(ev, nev) : -1;
            if (sigd >= 0) {
                /* A PE killed by a signal is the cause; its peers' aborts
                 * and failures are what they made of its death. */
                result = judge_exit(job, &ev[sigd]);
                ending = true;
            } else if (aborted) {
                if (job->abort_msg[0] != '\0')
                    fprintf(stderr, "oshrun: PE %d aborted the job: %s\n",
                            job->abort_rank, job->abort_msg);
                result = job->abort_status & 0xff;
                ending = true;
            } else if (failed >= 0) {
                result = judge_exit(job, &ev[failed]);
                ending = true;
            }
            if (!ending && sig != 0) {
                fprintf(stderr, "oshrun: received signal %d (%s); ending the "
                        "job\n", sig, strsignal(sig));
                result = 128 + sig;
                fwd = sig;
                grace = GRACE_SIGNAL_MS;
                ending = true;
            }
            if (!ending && fault != 0) {
                /* The PEs' PMIx calls would wait for it forever. */
                fprintf(stderr, "oshrun: the PMIx server failed (signal %d, "
                        "%s); ending the job\n", fault, strsignal(fault));
                result = OSHRUN_EXIT_FAILURE;
                ending = true;
            }
            if (ending) {
                /* Before any PE dies of it: see server_halt(). */
                server_halt(job);
                if (job->nlive > 0) {
                    dbg("ending the job: signal %d to %d PEs", fwd,
                        job->nlive);
                    kill_all(job, fwd);
                    deadline = now_ms() + grace;
                }
            }
        } else if (!killed && now_ms() >= deadline) {
            /* grace period over (further signals just wait for it) */
            dbg("SIGKILL to %d PEs", job->nlive);
            kill_all(job, SIGKILL);
            killed = true;
        }
    }
    job->ended_early = ending;
    /* Descendants the PEs left behind in the job's process group. */
    if (job->pgid > 0)
        kill(-job->pgid, SIGKILL);
    free(ev);
    free(pfd);
    return result;
}
