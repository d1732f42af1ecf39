/* oshrun: fork/exec of the PEs, and signalling them. */
#include "oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Child side, between fork and exec: async-signal-safe calls only. */
static _Noreturn void child_exec(struct job *job, pid_t pgid, pid_t parent,
                                 char **env, int pmi_fd)
{
    static const char msg1[] = "oshrun: cannot execute '";
    static const char msg2[] = "' in a PE\n";
    ssize_t ignored;

    /* Should oshrun itself be killed outright, its PEs go with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(OSHRUN_EXIT_FAILURE);
    setpgid(0, pgid);
    setrlimit(RLIMIT_NOFILE, &job->orig_nofile);
    sigaction(SIGPIPE, &job->orig_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);
    fcntl(pmi_fd, F_SETFD, 0);          /* the one descriptor the PE keeps */
    execve(job->path, job->argv, env);
    ignored = write(STDERR_FILENO, msg1, sizeof msg1 - 1);
    ignored = write(STDERR_FILENO, job->path, strlen(job->path));
    ignored = write(STDERR_FILENO, msg2, sizeof msg2 - 1);
    (void)ignored;
    _exit(OSHRUN_EXIT_NOEXEC);
}

/* Start every PE. On failure the PEs already started stay recorded (the
 * caller ends them) and -1 is returned. */
int launch_all(struct job *job)
{
    char **base = env_base(job);
    pid_t self = getpid();

    if (base == NULL) {
        fprintf(stderr, "oshrun: out of memory\n");
        return -1;
    }
    for (int rank = 0; rank < job->npes; rank++) {
        char **env = env_dup(base);
        int pmi_fd = -1;
        pid_t pid;

        if (env == NULL) {
            fprintf(stderr, "oshrun: out of memory\n");
            goto fail;
        }
        if (server_setup_fork(job, rank, &env) != 0 ||
            pmi_server_setup_fork(job, rank, &env, &pmi_fd) != 0) {
            if (pmi_fd >= 0)
                close(pmi_fd);
            env_free(env);
            goto fail;
        }
        pid = fork();
        if (pid == 0)
            child_exec(job, job->pgid, self, env, pmi_fd);
        close(pmi_fd);                  /* before the next PE inherits it */
        env_free(env);
        if (pid < 0) {
            fprintf(stderr, "oshrun: cannot start PE %d: fork: %s\n", rank,
                    strerror(errno));
            goto fail;
        }
        /* Also from this side, so the group exists before the next fork
         * (EACCES once the child has exec'd: it did it itself). */
        setpgid(pid, job->pgid);
        if (job->pgid == 0)
            job->pgid = pid;
        atomic_store(&job->pes[rank].pid, pid);
        job->pes[rank].alive = true;
        job->nlive++;
    }
    env_free(base);
    return 0;
fail:
    env_free(base);
    return -1;
}

/* Signal the PEs' process group (reaching their descendants too) and each
 * live PE by pid (in case one left the group). */
void kill_all(struct job *job, int sig)
{
    if (job->pgid > 0)
        kill(-job->pgid, sig);
    for (int i = 0; i < job->npes; i++)
        if (job->pes[i].alive)
            kill(atomic_load(&job->pes[i].pid), sig);
}
