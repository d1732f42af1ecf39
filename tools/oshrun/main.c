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
 * PMIx 4.2.2 is fragile after PEs die inside a collective (a fence they
 * never completed): PMIx_server_finalize may then crash. So PMIx is shut
 * down properly only after a clean run; after a job was ended early (or a
 * failed launch) oshrun cleans up its own resources and leaves with
 * _exit(), without running PMIx's teardown under its progress thread. */
_Noreturn void job_finish(struct job *job, int status)
{
    if (job->nlive > 0) {              /* launch failed part-way */
        kill_all(job, SIGKILL);
        for (int i = 0; i < job->npes; i++)
            if (job->pes[i].alive)
                waitpid(atomic_load(&job->pes[i].pid), NULL, 0);
        job->nlive = 0;
        job->ended_early = true;
    }
    if (!job->ended_early)
        server_stop(job);
    tmpdir_remove(job->tmpdir);
    shm_sweep(job->tag);
    if (job->server_up) {
        fflush(NULL);
        _exit(status);
    }
    exit(status);
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
    snprintf(job->nspace, sizeof job->nspace, "oshrun.%.16s", job->tag);
    raise_fd_limit(job);
    if (setup_signals(job) != 0) {
        fprintf(stderr, "oshrun: signal setup: %s\n", strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    job->tmpdir = tmpdir_create();
    if (job->tmpdir == NULL) {
        fprintf(stderr, "oshrun: cannot create a temporary directory: %s\n",
                strerror(errno));
        return OSHRUN_EXIT_FAILURE;
    }
    dbg("job %s, %d PEs, tmpdir %s", job->nspace, job->npes, job->tmpdir);

    if (server_start(job) == 0)
        server_quiet_libevent();
    if (!job->server_up || server_register_job(job) != 0 ||
        launch_all(job) != 0) {
        job->ended_early = true;
        job_finish(job, OSHRUN_EXIT_FAILURE);
    }
    job_finish(job, monitor_run(job));
}
