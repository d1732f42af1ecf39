/* oshrun: launch N PEs of a program on this node under an embedded PMIx
 * server, watch them, and end the job as a whole. See oshrun --help. */
#include "oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct job *g_job;
static struct job the_job;

void dbg(const char *fmt, ...)
{
    va_list ap;
    char line[1200];

    if (g_job == NULL || !g_job->debug)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "oshrun[debug]: %s\n", line);
}

/* Every exit after the temp dir exists comes through here.
 *
 * PMIx is shut down properly only after a clean run. Once oshrun has ended
 * a job early (or a launch failed) its PMIx progress thread has been
 * halted before any PE was signalled (see server_halt()): oshrun then
 * never calls into PMIx again (PMIx 4.2.2's teardown is not safe after PEs
 * died inside a collective), cleans up its own resources and leaves with
 * _exit(). */
_Noreturn void job_finish(struct job *job, int status)
{
    int fault;

    if (job->nlive > 0) {              /* launch failed part-way */
        server_halt(job);
        kill_all(job, SIGKILL);
        for (int i = 0; i < job->npes; i++)
            if (job->pes[i].alive)
                waitpid(atomic_load(&job->pes[i].pid), NULL, 0);
        job->nlive = 0;
        job->ended_early = true;
    }
    if (job->ended_early)
        server_halt(job);
    else
        server_stop(job);
    tmpdir_remove(job->tmpdir);
    shm_sweep(job->tag);
    fault = atomic_load(&job->server_fault);
    if (fault != 0 && !job->ended_early)
        fprintf(stderr, "oshrun: the PMIx server failed at the end of the "
                "job (signal %d, %s)\n", fault, strsignal(fault));
    else if (fault != 0)      /* the job's status was decided before */
        dbg("a PMIx thread died of signal %d", fault);
    if (job->server_up) {
        fflush(NULL);
        _exit(status);
    }
    exit(status);
}

/* ---- the fault guard ----------------------------------------------------
 *
 * A fault in one of PMIx's threads (its progress thread, its listener) must
 * not take oshrun down with it: oshrun still has PEs to end and reap, a
 * temp dir to remove and the job's exit status to give. The guard records
 * the signal, wakes the main loop and ends that thread alone with the raw
 * exit system call (the process goes on, and joining that thread still
 * returns). The main loop then takes the PMIx server as gone: it ends the
 * job if it was still running (monitor.c), and oshrun never waits for PMIx
 * again. A fault in oshrun's own thread, in a child before its exec, or
 * such a signal sent from outside keeps its default action (a core dump). */
static pid_t main_pid, main_tid;

static void fault_guard(int sig, siginfo_t *si, void *uctx)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    /* A fault of the CPU, or abort() in this process. */
    bool own = si->si_code > 0 ||
               (si->si_code == SI_TKILL && si->si_pid == main_pid);

    (void)uctx;
    if (own && getpid() == main_pid && gettid() != main_tid &&
        g_job != NULL) {
        int none = 0;

        atomic_compare_exchange_strong(&g_job->server_fault, &none, sig);
        note_wake();
        for (;;)
            syscall(SYS_exit, 0);      /* this thread only */
    }
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);                        /* delivered when the handler returns */
}

/* Once PMIx_server_init has returned: a fault in a PMIx thread while
 * PMIx_server_init itself waits for that thread would leave oshrun hanging
 * there, so faults before keep their default action. Exec restores the
 * default actions in the PEs. */
void fault_guard_install(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
    struct sigaction sa = { .sa_sigaction = fault_guard,
                            .sa_flags = SA_SIGINFO };

    main_pid = getpid();
    main_tid = gettid();
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* The PMIx server holds a socket per PE: make room for big jobs. */
static void raise_fd_limit(struct job *job)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &job->orig_nofile) != 0)
        return;
    rl = job->orig_nofile;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int setup_signals(struct job *job)
{
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigset_t set;
    int fds[2];

    /* Blocked before PMIx starts its thread, so the thread inherits the
     * mask and these signals only ever arrive through the signalfd. */
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, &job->orig_mask) != 0)
        return -1;
    job->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (job->sig_fd < 0)
        return -1;
    /* A write to a vanished PE's socket must not kill oshrun. */
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGPIPE, &ign, &job->orig_sigpipe) != 0)
        return -1;
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    job->note_rd = fds[0];
    job->note_wr = fds[1];
    return 0;
}

int main(int argc, char **argv)
{
    struct job *job = &the_job;
    struct options opt;
    char secret[2][OSHRUN_TAG_LEN + 1];
    const char *dbgenv;
    int err;

    options_parse(argc, argv, &opt);

    err = program_resolve(argv[opt.prog_index], &job->path);
    if (err != 0) {
        fprintf(stderr, "oshrun: cannot execute '%s': %s\n",
                argv[opt.prog_index], strerror(err));
        return OSHRUN_EXIT_NOEXEC;
    }
    job->argv = &argv[opt.prog_index];
    job->transport = opt.transport;
    job->npes = opt.npes;
    job->pes = calloc((size_t)opt.npes, sizeof *job->pes);
    dbgenv = getenv("OSHRUN_DEBUG");
    job->debug = dbgenv != NULL && dbgenv[0] != '\0';
    job->sig_fd = job->note_rd = job->note_wr = -1;
    g_job = job;
    if (job->pes == NULL) {
        fprintf(stderr, "oshrun: out of memory\n");
        return OSHRUN_EXIT_FAILURE;
    }
    if (job_tag_make(job->tag) != 0) {
        fprintf(stderr, "oshrun: getrandom: %s\n", strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    /* The namespace is what a PMIx client names to join the job, and over
     * TCP PMIx 4.2 takes the client's word for its uid: so it is a secret
     * of its own (128 bits), seen only in the PEs' environments, never the
     * job tag, which any user reads in /dev/shm's names. See SECURITY in
     * oshrun(1). */
    if (job_tag_make(secret[0]) != 0 || job_tag_make(secret[1]) != 0) {
        fprintf(stderr, "oshrun: getrandom: %s\n", strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    snprintf(job->nspace, sizeof job->nspace, "oshrun.%s%s", secret[0],
             secret[1]);
    raise_fd_limit(job);
    if (setup_signals(job) != 0) {
        fprintf(stderr, "oshrun: signal setup: %s\n", strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    tmpdir_sweep_stale();
    job->tmpdir = tmpdir_create();
    if (job->tmpdir == NULL) {
        fprintf(stderr, "oshrun: cannot create a temporary directory: %s\n",
                strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    dbg("job %s, %d PEs, tmpdir %s", job->nspace, job->npes, job->tmpdir);

    if (server_start(job) == 0) {
        server_quiet_libevent();
        fault_guard_install();
    }
    if (!job->server_up || server_register_job(job) != 0 ||
        pmi_server_init(job) != 0 || launch_all(job) != 0) {
        job->ended_early = true;
        job_finish(job, OSHRUN_EXIT_FAILURE);
    }
    job_finish(job, monitor_run(job));
}
