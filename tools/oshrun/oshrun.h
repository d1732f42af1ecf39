/*
 * oshrun: single-node launcher for PlugSHMEM programs.
 *
 * Shared declarations of the launcher's parts:
 *   options.c  command line, --help, --version
 *   program.c  finding the program to run (PATH search, like execvp)
 *   env.c      job tag, PE environment, private temp dir removal, /dev/shm sweep
 *   stale.c    private temp dir creation, sweep of those of killed oshruns
 *   server.c   embedded PMIx server: init, nspace/client registration,
 *              upcalls, halting its progress thread before PEs are killed
 *   pmi_server.c  PMI-1 server beside PMIx (PMI_FD per PE), for MPICH's
 *              MPI_Init and PlugSHMEM's PMI bootstrap; served by the main loop
 *   kvs.c      the PMI key-value space
 *   launch.c   fork/exec of the PEs into the job's process group
 *   monitor.c  main loop: signals, upcall notifications, exits, teardown
 *   main.c     ties it together; every exit path goes through job_finish();
 *              the guard against faults in PMIx's threads
 */
#ifndef OSHRUN_H
#define OSHRUN_H

/* Included first by every part: Linux/GNU interfaces (signalfd, pipe2,
 * getrandom, asprintf, strchrnul, strsignal) on top of C11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#ifndef PLUGSHMEM_VERSION
#define PLUGSHMEM_VERSION "0.1.0"
#endif

#define OSHRUN_MAX_PES 4096
#define OSHRUN_TAG_LEN 16            /* hex characters in PLUGSHMEM_JOB_TAG */

/* What a PlugSHMEM PE publishes through PMIx at shmem_finalize (true)
 * and at a later shmem_init (false); core/boot_pmix.c spells it too. See
 * up_publish() in server.c. */
#define OSHRUN_FINALIZE_KEY "plugshmem.finalized"

/* Exit statuses of oshrun itself. */
#define OSHRUN_EXIT_USAGE   2        /* bad command line */
#define OSHRUN_EXIT_NOEXEC  127      /* program not found / not executable */
#define OSHRUN_EXIT_FAILURE 1        /* launcher-internal failure */

struct options {
    int npes;
    const char *transport;           /* NULL: leave SHMEM_TRANSPORT alone */
    int prog_index;                  /* argv index of PROGRAM */
};

/* One PE. Fields written by PMIx upcalls (progress thread) are atomics. */
struct pe {
    atomic_int pid;                  /* 0 before fork */
    bool alive;                      /* main thread only: forked, not reaped */
    atomic_bool connected;           /* client_connected upcall seen */
    atomic_bool finalized;           /* finalize report or PMIx_Finalize seen */
    bool pmi_connected;              /* main thread only: PMI init seen */
    bool pmi_finalized;              /* main thread only: PMI finalize seen */
};

struct job {
    int npes;
    struct pe *pes;
    int nlive;                       /* PEs forked and not yet reaped */
    pid_t pgid;                      /* process group of the PEs (0: none yet) */

    char tag[OSHRUN_TAG_LEN + 1];    /* PLUGSHMEM_JOB_TAG */
    char nspace[64];                 /* PMIx namespace of the job */
    char *tmpdir;                    /* private temp dir, removed at exit */
    bool server_up;                  /* PMIx_server_init succeeded */
    bool server_halted;              /* server_halt() done: no PMIx calls */
    bool ended_early;                /* PEs were killed: skip PMIx teardown */
    /* Signal that killed one of PMIx's threads (0: none); set by the fault
     * guard in that thread, which then ends only itself. */
    atomic_int server_fault;

    char *path;                      /* resolved program path */
    char **argv;                     /* PROGRAM ARGS... */
    const char *transport;

    sigset_t orig_mask;              /* signal mask to restore in the PEs */
    struct sigaction orig_sigpipe;   /* SIGPIPE disposition to restore */
    struct rlimit orig_nofile;       /* fd limit to restore in the PEs */
    int sig_fd;                      /* signalfd: SIGCHLD, SIGINT, SIGTERM, SIGHUP */
    int note_rd, note_wr;            /* self-pipe: upcall -> main loop wake-up */

    /* PMIx_Abort, claimed once by the first aborting PE (progress thread). */
    atomic_bool abort_claimed;
    atomic_bool aborted;             /* set (release) after the fields below */
    int abort_rank;
    int abort_status;
    char abort_msg[1024];

    bool debug;                      /* OSHRUN_DEBUG set: trace upcalls */
};

extern struct job *g_job;            /* for the PMIx upcalls */

/* options.c */
void options_parse(int argc, char **argv, struct options *opt);

/* program.c: 0 and *path (malloc'd) on success, else an errno value. */
int program_resolve(const char *name, char **path);

/* env.c */
int job_tag_make(char tag[OSHRUN_TAG_LEN + 1]);
void tmpdir_remove(const char *dir);

/* stale.c */
const char *tmpdir_base(void);
char *tmpdir_create(void);                   /* BASE/oshrun.<pid>.XXXXXX */
void tmpdir_sweep_stale(void);               /* those whose oshrun is gone */
void shm_sweep(const char *tag);
char **env_base(const struct job *job);      /* NULL-terminated, malloc'd */
char **env_dup(char *const *env);
void env_free(char **env);
int env_set(char ***env, const char *name, const char *value);  /* 0 or -1 */

/* kvs.c */
struct kvs *kvs_new(void);
int kvs_put(struct kvs *k, const char *key, const char *value);  /* 0 or -1 */
const char *kvs_get(const struct kvs *k, const char *key);
void kvs_free(struct kvs *k);

/* pmi_server.c */
int pmi_server_init(struct job *job);
/* A socket pair for RANK: PMI_* into *env, the PE's end in *child_fd (the
 * caller passes it through exec and then closes it). */
int pmi_server_setup_fork(struct job *job, int rank, char ***env, int *child_fd);
/* Fills p with the open connections (at most npes); returns how many. */
int pmi_server_pollfds(const struct job *job, struct pollfd *p);
void pmi_server_serve(struct job *job, const struct pollfd *p, int n);

/* server.c */
int server_start(struct job *job);
int server_register_job(struct job *job);
int server_setup_fork(struct job *job, int rank, char ***env);
void server_stop(struct job *job);
void server_halt(struct job *job);
void server_quiet_libevent(void);
void note_wake(void);                        /* async: wake the main loop */

/* launch.c */
int launch_all(struct job *job);
void kill_all(struct job *job, int sig);

/* monitor.c */
int monitor_run(struct job *job);
/* The first PE to abort decides the job's status; any thread. */
void job_claim_abort(struct job *job, int rank, int status, const char *msg);

/* main.c */
_Noreturn void job_finish(struct job *job, int status);
void fault_guard_install(void);
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
