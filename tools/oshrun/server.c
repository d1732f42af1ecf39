/* oshrun: the embedded PMIx server (one server, one node, one job). */
#include "oshrun.h"

#include <dlfcn.h>
#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- waiting for PMIx's asynchronous op callbacks ---------------------- */

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending;
    pmix_status_t status;           /* first failure, else PMIX_SUCCESS */
};

static void waiter_init(struct waiter *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->pending = 0;
    w->status = PMIX_SUCCESS;
}

static void waiter_done(pmix_status_t status, void *cbdata)
{
    struct waiter *w = cbdata;

    pthread_mutex_lock(&w->lock);
    if (status != PMIX_SUCCESS && w->status == PMIX_SUCCESS)
        w->status = status;
    w->pending--;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Account for one call that returned RC: PMIX_SUCCESS means the callback
 * will come; anything else means it will not. */
static void waiter_account(struct waiter *w, pmix_status_t rc)
{
    pthread_mutex_lock(&w->lock);
    w->pending++;
    pthread_mutex_unlock(&w->lock);
    if (rc != PMIX_SUCCESS)
        waiter_done(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, w);
}

/* The callbacks come from PMIx's progress thread: should that thread die
 * (see the fault guard in main.c), they never come, so the wait also ends
 * on a fault, with PMIX_ERR_UNREACH. */
static pmix_status_t waiter_wait(struct waiter *w)
{
    pmix_status_t st;

    pthread_mutex_lock(&w->lock);
    while (w->pending > 0) {
        struct timespec ts;

        if (atomic_load(&g_job->server_fault) != 0) {
            pthread_mutex_unlock(&w->lock);
            return PMIX_ERR_UNREACH;    /* w stays set up: never reused */
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
    }
    st = w->status;
    pthread_mutex_unlock(&w->lock);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    return st;
}

/* ---- upcalls (run on PMIx's progress thread) --------------------------- */

void note_wake(void)
{
    char c = 1;
    ssize_t n;

    /* Non-blocking: a full pipe already holds a pending wake-up. */
    do {
        n = write(g_job->note_wr, &c, 1);
    } while (n < 0 && errno == EINTR);
}

/* The PE an upcall is about, or NULL if it is not one of ours. */
static struct pe *upcall_pe(const pmix_proc_t *proc)
{
    if (proc == NULL || !PMIX_CHECK_NSPACE(proc->nspace, g_job->nspace) ||
        proc->rank >= (pmix_rank_t)g_job->npes)
        return NULL;
    return &g_job->pes[proc->rank];
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct pe *pe = upcall_pe(proc);

    (void)obj;
    if (pe != NULL) {
        dbg("upcall: PE %u connected", proc->rank);
        atomic_store(&pe->connected, true);
        note_wake();
    }
    /* Reply only after the state is recorded. */
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

/* PMIx calls this for a client's PMIx_Finalize only (4.2 to 5.x; a lost
 * connection never comes here), so it is a finalize even when it arrives
 * after the PE is gone: PMIx_Finalize stops waiting for our reply after
 * 2 s, and a PE whose reply came late may already have exited. */
static pmix_status_t up_finalized(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct pe *pe = upcall_pe(proc);

    (void)obj;
    if (pe != NULL) {
        dbg("upcall: PE %u finalized", proc->rank);
        atomic_store(&pe->finalized, true);
        note_wake();
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

/* A PlugSHMEM PE publishes OSHRUN_FINALIZE_KEY, true at shmem_finalize
 * and false at a later shmem_init, and PMIx_Publish waits for this reply
 * without a time limit: the flag is right before the PE can exit however
 * slow this thread is, which PMIx_Finalize's 2 s limit does not ensure
 * (issue 25). Nothing else is published under oshrun. */
static pmix_status_t up_publish(const pmix_proc_t *proc, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    struct pe *pe = upcall_pe(proc);
    const pmix_info_t *report = NULL;

    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], OSHRUN_FINALIZE_KEY))
            report = &info[i];
    if (pe == NULL || report == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    dbg("upcall: PE %u reports finalized=%d", proc->rank,
        (int)PMIX_INFO_TRUE(report));
    atomic_store(&pe->finalized, PMIX_INFO_TRUE(report));
    note_wake();
    /* Reply only after the state is recorded. */
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *obj, int status,
                              const char msg[], pmix_proc_t procs[],
                              size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)obj; (void)procs; (void)nprocs;   /* always ends the whole job */
    dbg("upcall: PE %u aborts with status %d: '%s'",
        proc ? proc->rank : 0, status, msg ? msg : "");
    if (upcall_pe(proc) != NULL)
        job_claim_abort(g_job, (int)proc->rank, status, msg);
    /* PMIx_Abort returns in the PE after this reply; it then exits. */
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* With a single server every participant is local: the allgather of the
 * servers' contributions is just our own blob. */
static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    (void)procs; (void)nprocs; (void)info; (void)ninfo;
    dbg("upcall: fence_nb (%zu bytes)", ndata);
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

static pmix_server_module_t server_module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .publish = up_publish,
};

/* ---- server life cycle -------------------------------------------------- */

static void server_find_pause(void);

int server_start(struct job *job)
{
    pmix_info_t info[2];
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
    rc = PMIx_server_init(&server_module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "oshrun: cannot start the PMIx server: %s\n",
                PMIx_Error_string(rc));
        return -1;
    }
    job->server_up = true;
    server_find_pause();
    return 0;
}

/* Orderly shutdown, after a job whose PEs all ended by themselves. */
static void *stop_thread(void *arg)
{
    struct job *job = arg;
    pmix_nspace_t ns;
    struct waiter w;

    /* Purge the job (and any collective its dead PEs left pending) before
     * finalizing. */
    PMIX_LOAD_NSPACE(ns, job->nspace);
    waiter_init(&w);
    waiter_account(&w, PMIX_SUCCESS);
    PMIx_server_deregister_nspace(ns, waiter_done, &w);
    waiter_wait(&w);
    /* Finalizing joins the progress thread: not if it is gone. */
    if (atomic_load(&job->server_fault) == 0)
        PMIx_server_finalize();
    return NULL;
}

/* PMIx 4.2.2 can hang in PMIx_server_finalize after it refused a client:
 * one that named the job's namespace and a rank of it but another uid
 * (its connection handler then releases the rank's record twice; see
 * SECURITY in oshrun(1)). The job is over by then and its status known,
 * so the shutdown gets STOP_WAIT_S and is otherwise abandoned: oshrun
 * then leaves with _exit() as after a job it ended itself. */
#define STOP_WAIT_S 5

void server_stop(struct job *job)
{
    struct timespec until;
    pthread_t t;

    if (!job->server_up || job->server_halted)
        return;
    if (pthread_create(&t, NULL, stop_thread, job) != 0) {
        stop_thread(job);
        job->server_up = atomic_load(&job->server_fault) != 0;
        return;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += STOP_WAIT_S;
    if (pthread_timedjoin_np(t, NULL, &until) != 0) {
        dbg("PMIx_server_finalize did not return in %d s: abandoned",
            STOP_WAIT_S);
        return;                     /* server_up stays: job_finish _exit()s */
    }
    if (atomic_load(&job->server_fault) == 0)
        job->server_up = false;
}

/* ---- halting the server when oshrun ends the job -----------------------
 *
 * PMIx 4.2.2 can complete a local fence twice when PEs waiting in it lose
 * their connections: on a lost connection it completes the collective
 * (queueing the reply to the remaining participants on its event loop)
 * without marking it as done, so the next lost connection handled before
 * that reply ran completes it again. The first reply frees the collective's
 * tracker and the second one then works on freed memory, which crashes
 * PMIx's progress thread (SIGSEGV in event_del() called from the fence
 * reply), and with it oshrun. Killing PEs that wait in a fence - what
 * oshrun does whenever it ends a job early - is exactly that.
 *
 * So once oshrun has decided to end the job, and before it signals any PE,
 * it stops PMIx's progress thread. Nothing of PMIx then runs again: the
 * connections the dying PEs lose are never processed, no upcall comes, and
 * oshrun does not call into PMIx any more (it leaves with _exit()). PMIx
 * has no public call for this; libpmix (4.2.2 at least) exports its
 * internal pmix_progress_thread_pause(), which with NULL makes the shared
 * progress thread leave its event loop between two events and joins it.
 * It is looked up at run time. Without it, or should PMIx crash before the
 * halt (PEs that die by themselves in a fence), the fault guard (main.c)
 * keeps a crash in a PMIx thread from deciding oshrun's exit status. */
typedef pmix_status_t (*progress_pause_fn)(const char *name);
static progress_pause_fn progress_pause;

static void server_find_pause(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "pmix_progress_thread_pause");

    if (sym != NULL)
        memcpy(&progress_pause, &sym, sizeof progress_pause);
}

/* Idempotent. Main thread only; called with no PMIx call in progress. */
void server_halt(struct job *job)
{
    int rc;

    if (!job->server_up || job->server_halted)
        return;
    job->server_halted = true;
    if (atomic_load(&job->server_fault) != 0) {
        dbg("a PMIx thread died: no halt");
        return;
    }
    if (progress_pause == NULL) {
        dbg("cannot halt the PMIx progress thread: no "
            "pmix_progress_thread_pause in libpmix");
        return;
    }
    rc = progress_pause(NULL);
    dbg("PMIx progress thread halted (status %d)", rc);
}

/* PMIx runs on the system's libevent, which prints "[warn] ..." lines on
 * stderr. PMIx 4.2.2 provokes one (an epoll_ctl on a socket it already
 * closed) when PEs die during a fence, which oshrun does on purpose when it
 * ends a job. Route libevent's warnings to the debug trace; errors still go
 * to stderr. The hook is looked up at run time (libevent is already loaded
 * by libpmix), so oshrun needs no libevent development files. */
static void libevent_log(int severity, const char *msg)
{
    if (severity >= 3)              /* EVENT_LOG_ERR */
        fprintf(stderr, "oshrun: libevent: %s\n", msg);
    else
        dbg("libevent: %s", msg);
}

void server_quiet_libevent(void)
{
    typedef void (*log_cb)(int, const char *);
    void (*set_cb)(log_cb);
    void *sym = dlsym(RTLD_DEFAULT, "event_set_log_callback");

    if (sym == NULL)
        return;
    memcpy(&set_cb, &sym, sizeof set_cb);
    set_cb(libevent_log);
}

static pmix_status_t add_u32(void *list, const char *key, uint32_t v)
{
    return PMIx_Info_list_add(list, key, &v, PMIX_UINT32);
}

/* Per-PE data: one PMIX_PROC_INFO_ARRAY entry, starting with the rank. */
static pmix_status_t add_proc_info(void *list, int rank, const char *host)
{
    pmix_rank_t r = (pmix_rank_t)rank;
    uint16_t local = (uint16_t)rank;
    uint32_t zero = 0;
    pmix_data_array_t arr;
    pmix_status_t rc;
    void *sub = PMIx_Info_list_start();

    if (sub == NULL)
        return PMIX_ERR_NOMEM;
    if ((rc = PMIx_Info_list_add(sub, PMIX_RANK, &r, PMIX_PROC_RANK)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_LOCAL_RANK, &local, PMIX_UINT16)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_NODE_RANK, &local, PMIX_UINT16)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_NODEID, &zero, PMIX_UINT32)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_APPNUM, &zero, PMIX_UINT32)) ||
        (rc = PMIx_Info_list_add(sub, PMIX_HOSTNAME, host, PMIX_STRING)) ||
        (rc = PMIx_Info_list_convert(sub, &arr))) {
        PMIx_Info_list_release(sub);
        return rc;
    }
    PMIx_Info_list_release(sub);
    rc = PMIx_Info_list_add(list, PMIX_PROC_INFO_ARRAY, &arr, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&arr);
    return rc;
}

/* "0,1,...,n-1" */
static char *rank_list(int n)
{
    size_t cap = (size_t)n * 6 + 1, len = 0;
    char *s = malloc(cap);

    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, i ? ",%d" : "%d", i);
    return s;
}

static pmix_status_t build_job_info(struct job *job, const char *host,
                                    pmix_data_array_t *out)
{
    uint32_t n = (uint32_t)job->npes;
    pmix_rank_t zero = 0;
    char *peers = rank_list(job->npes), *nodemap = NULL, *procmap = NULL;
    void *list = PMIx_Info_list_start();
    pmix_status_t rc = PMIX_ERR_NOMEM;

    if (peers == NULL || list == NULL)
        goto out;
    if ((rc = PMIx_generate_regex(host, &nodemap)) != PMIX_SUCCESS ||
        (rc = PMIx_generate_ppn(peers, &procmap)) != PMIX_SUCCESS)
        goto out;
    if ((rc = add_u32(list, PMIX_UNIV_SIZE, n)) ||
        (rc = add_u32(list, PMIX_JOB_SIZE, n)) ||
        (rc = add_u32(list, PMIX_MAX_PROCS, n)) ||
        (rc = add_u32(list, PMIX_APP_SIZE, n)) ||
        (rc = add_u32(list, PMIX_LOCAL_SIZE, n)) ||
        (rc = add_u32(list, PMIX_NODE_SIZE, n)) ||
        (rc = add_u32(list, PMIX_NUM_NODES, 1)) ||
        (rc = add_u32(list, PMIX_JOB_NUM_APPS, 1)) ||
        (rc = PMIx_Info_list_add(list, PMIX_LOCALLDR, &zero, PMIX_PROC_RANK)) ||
        (rc = PMIx_Info_list_add(list, PMIX_APPLDR, &zero, PMIX_PROC_RANK)) ||
        (rc = PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, peers, PMIX_STRING)) ||
        (rc = PMIx_Info_list_add(list, PMIX_JOBID, job->nspace, PMIX_STRING)) ||
        (rc = PMIx_Info_list_add(list, PMIX_NODE_MAP, nodemap, PMIX_STRING)) ||
        (rc = PMIx_Info_list_add(list, PMIX_PROC_MAP, procmap, PMIX_STRING)))
        goto out;
    for (int i = 0; i < job->npes; i++)
        if ((rc = add_proc_info(list, i, host)) != PMIX_SUCCESS)
            goto out;
    rc = PMIx_Info_list_convert(list, out);
out:
    if (list != NULL)
        PMIx_Info_list_release(list);
    free(peers);
    free(nodemap);
    free(procmap);
    return rc;
}

int server_register_job(struct job *job)
{
    char host[256];
    pmix_nspace_t ns;
    pmix_data_array_t info;
    pmix_proc_t proc;
    struct waiter w;
    pmix_status_t rc;

    if (gethostname(host, sizeof host) != 0 || host[0] == '\0')
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    PMIX_LOAD_NSPACE(ns, job->nspace);

    rc = build_job_info(job, host, &info);
    if (rc != PMIX_SUCCESS)
        goto fail;
    waiter_init(&w);
    rc = PMIx_server_register_nspace(ns, job->npes, info.array, info.size,
                                     waiter_done, &w);
    waiter_account(&w, rc);
    rc = waiter_wait(&w);
    PMIx_Data_array_destruct(&info);
    if (rc != PMIX_SUCCESS)
        goto fail;

    waiter_init(&w);
    for (int i = 0; i < job->npes; i++) {
        PMIX_LOAD_PROCID(&proc, ns, (pmix_rank_t)i);
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(),
                                         &job->pes[i], waiter_done, &w);
        waiter_account(&w, rc);
    }
    rc = waiter_wait(&w);
    if (rc != PMIX_SUCCESS)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "oshrun: cannot register the job with PMIx: %s\n",
            PMIx_Error_string(rc));
    return -1;
}

int server_setup_fork(struct job *job, int rank, char ***env)
{
    pmix_proc_t proc;
    pmix_nspace_t ns;
    pmix_status_t rc;

    PMIX_LOAD_NSPACE(ns, job->nspace);
    PMIX_LOAD_PROCID(&proc, ns, (pmix_rank_t)rank);
    rc = PMIx_server_setup_fork(&proc, env);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "oshrun: cannot set up PE %d for PMIx: %s\n", rank,
                PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}
