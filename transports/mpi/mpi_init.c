/*
 * MPI itself: whether it can serve this job (query), starting it or using
 * the program's, the checks that MPI ranks are our PEs, settings, and the
 * plugin's descriptor.
 *
 * The plugin reaches MPI through an MPI-4 session of its own, never
 * MPI_Init: the program's world model (MPI_Init, MPI_Finalize) stays the
 * program's, which may start it before or after shmem_init and end it
 * before or after shmem_finalize (docs/mpi.md, "Programs that use MPI
 * too").  MPICH 4.0.2 cannot open a session again once the process's last
 * one closed, and OpenSHMEM may initialize again after finalizing: so the
 * session, and the plugin, stay until the process exits.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_plugin.h"

#define POOL_MAX 64

struct mpi_state g;
static pshm_transport_ops ops;
static int active;         /* between init and fini */
static int started_by_us;  /* the program had not started MPI when the session opened */
static MPI_Session session = MPI_SESSION_NULL; /* ours, until exit */
static int world_by_us;    /* a 1-PE job: MPI_Init_thread was ours */
static int atexit_done;

void mpi_fail(const char *what, int rc)
{
    char msg[PSHM_MPI_ERROR_LEN];
    /* The core ends the whole job through the launcher: abort() here
     * would leave the other PEs waiting for this one. */
    g.svc->fatal("mpi transport: %s failed: %s", what, pshm_mpi_error(rc, msg));
}

/* ---- can MPI serve this job? ---------------------------------------- */

/* Without MPI_Init: MPI will see the ranks its launcher gives it through
 * PMI, and without any it starts as a singleton. */
static int mpi_would_match(const pshm_core_services *svc, char *why, size_t whylen)
{
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (fin && session == MPI_SESSION_NULL) {
        snprintf(why, whylen, "MPI was finalized in this process and cannot start again");
        return 0;
    }
    if (inited) {
        int r = -1, n = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Comm_size(MPI_COMM_WORLD, &n);
        if (r != svc->my_pe || n != svc->n_pes) {
            snprintf(why, whylen,
                     "MPI_COMM_WORLD (rank %d of %d) is not this job (PE %d of %d): start it with "
                     "one launcher for both",
                     r, n, svc->my_pe, svc->n_pes);
            return 0;
        }
        return 1;
    }
    return pshm_pmi_rank_matches(svc->my_pe, svc->n_pes, why, whylen);
}

/* Below shm (10) on one node, below ofi (20) across nodes. */
static int mpi_max_priority(const pshm_core_services *svc)
{
    return svc->n_local == svc->n_pes ? 3 : 15;
}

/* Cheap: looks at MPI's state and the environment, never starts MPI
 * (shmem_info calls it). */
static const char *const amo_words[] = {"auto", "am", "rma", NULL};

/* Asked here, before MPI starts, so that the job stops with one line. */
static int am_without_thread(const pshm_core_services *svc, char *why, size_t whylen)
{
    if (!PSHM_ABI_HAS(svc, pshm_core_services, get_string) ||
        svc->get_choice("SHMEM_MPI_AMO", amo_words, 0) != 1 ||
        pshm_kit_progress_thread(svc) != 0)
        return 0;
    snprintf(why, whylen,
             "SHMEM_MPI_AMO=am needs the progress thread, which SHMEM_PROGRESS_THREAD=0 turns "
             "off; use SHMEM_MPI_AMO=rma or auto");
    return 1;
}

static int mpi_query(const pshm_core_services *svc, char *why, size_t whylen)
{
    if (!mpi_would_match(svc, why, whylen) || am_without_thread(svc, why, whylen))
        return -1;
    return mpi_max_priority(svc);
}

/* ---- settings ------------------------------------------------------- */

/* The core checks each value's form against the descriptor's table
 * (settings[] below) before init, so a bad one stops shmem_init with one
 * line; ranges and meanings are read here. */

/* A count within [lo, hi], beyond the form the core checked. */
static int number(const char *name, unsigned long lo, unsigned long hi, unsigned long def,
                  const char *unit, unsigned long *out)
{
    *out = g.svc->get_uint(name, def);
    if (*out >= lo && *out <= hi)
        return 0;
    g.svc->error("%s='%s' is not valid; use %s from %lu to %lu", name, g.svc->getenv(name), unit,
                  lo, hi);
    return -1;
}

/* ---- starting MPI --------------------------------------------------- */

static void finalize_at_exit(void)
{
    /* After a normal shmem_finalize only: a job ended by
     * shmem_global_exit or a crash must not wait inside MPI. */
    if (session != MPI_SESSION_NULL && !active)
        MPI_Session_finalize(&session);
    int fin = 1;
    MPI_Finalized(&fin);
    if (world_by_us && !active && !fin)
        MPI_Finalize();
}

/* Keeps this plugin, hence libmpich, loaded when the core closes it:
 * the session stays open for a later shmem_init and until exit. */
static void pin_self(void)
{
    Dl_info info;
    if (dladdr((void *)pin_self, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static const char *level_name(int l)
{
    return l == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
           : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : l == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                        : "MPI_THREAD_SINGLE";
}

static int level_of(const char *name)
{
    return !strcmp(name, "MPI_THREAD_MULTIPLE")     ? MPI_THREAD_MULTIPLE
           : !strcmp(name, "MPI_THREAD_SERIALIZED") ? MPI_THREAD_SERIALIZED
           : !strcmp(name, "MPI_THREAD_FUNNELED")   ? MPI_THREAD_FUNNELED
                                                    : MPI_THREAD_SINGLE;
}

/* Opens the session (once per process) and makes the plugin's
 * communicator over MPI's world from it. */
static int start_mpi(int required)
{
    int inited = 0, rc;
    MPI_Initialized(&inited);
    /* MPICH 4.0.2 crashes in MPI_Win_create (and every other window
     * constructor) on a communicator of one process made from a session,
     * singleton or under mpiexec -n 1 alike; a 1-PE job therefore runs on
     * the world model's MPI_COMM_SELF, started here if the program has
     * not (docs/mpi.md: such a program cannot call MPI_Init afterwards). */
    if (g.svc->n_pes == 1) {
        if (!inited) {
            int provided;
            if (MPI_Init_thread(NULL, NULL, required, &provided) != MPI_SUCCESS) {
                g.svc->error("mpi transport: MPI_Init_thread failed");
                return -1;
            }
            world_by_us = started_by_us = 1;
            pin_self();
            if (!atexit_done) {
                atexit(finalize_at_exit);
                atexit_done = 1;
            }
        }
        MPI_Query_thread(&g.mpi_level);
        return MPI_Comm_dup(MPI_COMM_SELF, &g.comm) == MPI_SUCCESS ? 0 : -1;
    }
    if (session == MPI_SESSION_NULL) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "thread_level", level_name(required));
        rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &session);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) {
            session = MPI_SESSION_NULL;
            g.svc->error("mpi transport: MPI_Session_init failed (error %d)", rc);
            return -1;
        }
        started_by_us = !inited;
        pin_self();
        if (!atexit_done) {
            atexit(finalize_at_exit);
            atexit_done = 1;
        }
    }
    /* MPICH has one thread level per process, set by whoever started it
     * first: the program's, when it called MPI_Init before us. */
    if (inited) {
        MPI_Query_thread(&g.mpi_level);
    } else {
        MPI_Info si;
        char v[64] = "";
        int found = 0;
        if (MPI_Session_get_info(session, &si) == MPI_SUCCESS) {
            MPI_Info_get(si, "thread_level", sizeof v - 1, v, &found);
            MPI_Info_free(&si);
        }
        g.mpi_level = found ? level_of(v) : MPI_THREAD_SINGLE;
    }
    MPI_Group world;
    rc = MPI_Group_from_session_pset(session, "mpi://WORLD", &world);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_from_group(world, "org.plugshmem.transport", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &g.comm);
        MPI_Group_free(&world);
    }
    if (rc != MPI_SUCCESS) {
        g.svc->error("mpi transport: no communicator from the MPI session (error %d)", rc);
        return -1;
    }
    return 0;
}

/* ---- init / fini ---------------------------------------------------- */

static int mpi_init(const pshm_core_services *svc, const pshm_transport_ops **out)
{
    char why[512];
    memset(&g, 0, sizeof g);
    g.svc = svc;
    g.comm = MPI_COMM_NULL;
    g.thread_level = svc->thread_level;

    if (pshm_kit_ready(svc, why, sizeof why)) {
        svc->error("mpi transport: %s", why);
        return -1;
    }
    int want_thread;
    unsigned interval;
    unsigned long pool, stage_max;
    if (pshm_kit_progress(svc, &want_thread, &interval) ||
        number("SHMEM_MPI_CTX_WINDOWS", 0, POOL_MAX, 0, "a count", &pool) ||
        number("SHMEM_MPI_STAGE_MAX", 0, RING_BYTES / 4, STAGE_MAX_DEFAULT, "bytes", &stage_max))
        return -1;
    int coherent = svc->get_bool("SHMEM_MPI_AMO_CPU_COHERENT", 0);
    int amo_mode = svc->get_choice("SHMEM_MPI_AMO", amo_words, 0);
    g.verbose = svc->get_bool("SHMEM_MPI_VERBOSE", 0) == 1;
    g.pool_n = (int)pool;
    g.stage_max = stage_max;
    if (!mpi_would_match(svc, why, sizeof why)) {
        svc->error("mpi transport: %s", why);
        return -1;
    }

    /* A progress thread calls MPI beside the program: MULTIPLE. */
    int required = want_thread != 0 || g.thread_level == THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                   : g.thread_level == THREAD_SERIALIZED                 ? MPI_THREAD_SERIALIZED
                                                                          : MPI_THREAD_FUNNELED;
    if (start_mpi(required))
        return -1;

    /* SHMEM_THREAD_MULTIPLE on an MPI (the program's) below
     * MPI_THREAD_MULTIPLE: serve it serialized.  Without
     * PSHM_CAP_THREAD_SAFE the core provides SHMEM_THREAD_SERIALIZED and
     * calls one op at a time, as the standard allows, instead of failing
     * shmem_init_thread. */
    if (g.thread_level == THREAD_MULTIPLE && g.mpi_level < MPI_THREAD_MULTIPLE &&
        want_thread != 1)
        g.thread_level = THREAD_SERIALIZED;
    /* A single-threaded program (SHMEM_THREAD_SINGLE) with the program's
     * MPI at MPI_THREAD_SINGLE is fine: no progress thread then. */
    int need = g.thread_level == THREAD_MULTIPLE     ? MPI_THREAD_MULTIPLE
               : g.thread_level == THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED
               : want_thread == 1                     ? MPI_THREAD_MULTIPLE
               : g.thread_level == 0                 ? MPI_THREAD_SINGLE
                                                      : MPI_THREAD_FUNNELED;
    if (g.mpi_level < need) {
        svc->error("mpi transport: MPI provides %s, %s needs %s", level_name(g.mpi_level),
                   /* a program's MULTIPLE alone was served serialized above */
                   want_thread == 1 && need == MPI_THREAD_MULTIPLE ? "SHMEM_PROGRESS_THREAD=1"
                       : "the thread level the program asked for",
                   level_name(need));
        goto fail_comm;
    }

    int r, n;
    MPI_Comm_rank(g.comm, &r);
    MPI_Comm_size(g.comm, &n);
    if (r != svc->my_pe || n != svc->n_pes) {
        svc->error("mpi transport: MPI_COMM_WORLD (rank %d of %d) is not this job (PE %d of %d)",
                   r, n, svc->my_pe, svc->n_pes);
        goto fail_comm;
    }
    if (win_open_all())
        goto fail_comm;
    active = 1;
    int thread = want_thread != 0 && g.mpi_level == MPI_THREAD_MULTIPLE;
    /* Active messages are served by the target's code: with no progress
     * thread, a PE inside an MPI call of its own (a barrier of coll-mpi, the
     * program's MPI) would never answer.  auto takes them wherever the
     * thread runs (docs/mpi.md, "Atomics": fewer instructions and less
     * time than MPI_Fetch_and_op on MPICH 4.0.2). */
    if (amo_mode == 1 && !thread) { /* SHMEM_PROGRESS_THREAD=0 was refused by query */
        svc->error("mpi transport: SHMEM_MPI_AMO=am needs the progress thread, which is off: "
                   "the program's MPI provides %s, below MPI_THREAD_MULTIPLE; use "
                   "SHMEM_MPI_AMO=rma or auto",
                   level_name(g.mpi_level));
        goto fail_win;
    }
    g.amo_am = amo_mode == 1 || (amo_mode == 0 && thread);
    if (g.amo_am && am_open())
        goto fail_win;
    if (msg_open())
        goto fail_am;
    if (thread && progress_start((unsigned)interval)) {
        svc->error("mpi transport: cannot start the progress thread");
        goto fail_msg;
    }

    memset(&ops, 0, sizeof ops);
    ops.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_transport_ops);
    /* Not CPU-coherent: MPICH applies accumulates in the target's progress
     * engine with ordinary loads and stores, not atomic instructions.  The
     * override exists to show what that costs (docs/mpi.md).  Shared
     * contexts lock their state at SHMEM_THREAD_MULTIPLE only; below it
     * the core serializes calls and caps the level it provides.  Targets
     * need progress: a non-NULL ops.progress says so. */
    ops.caps = (coherent == 1 || g.amo_am ? PSHM_CAP_AMO_CPU_COHERENT : 0) |
               (g.thread_level == THREAD_MULTIPLE ? PSHM_CAP_THREAD_SAFE : 0);
    ops.ctx_create = mpi_ctx_create;
    ops.ctx_destroy = mpi_ctx_destroy;
    ops.put = mpi_put;
    ops.p = mpi_p;
    ops.get = mpi_get;
    ops.put_nbi = mpi_put_nbi;
    ops.get_nbi = mpi_get_nbi;
    ops.amo = g.amo_am ? am_amo : mpi_amo;
    ops.fence = mpi_fence;
    ops.quiet = mpi_quiet;
    ops.progress = mpi_progress;
    ops.poll = g.amo_am ? mpi_poll : NULL;
    ops.seg_register = mpi_seg_register;
    ops.seg_deregister = mpi_seg_deregister;
    ops.put_nbe = mpi_put_nbe;
    ops.get_nbe = mpi_get_nbe;
    ops.amo_nbe = mpi_amo_nbe;
    ops.req_test = mpi_req_test;
    ops.msg_send = mpi_msg_send;
    ops.msg_recv = mpi_msg_recv;
    if (g.verbose && svc->my_pe == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        for (char *p = lib; *p; p++)
            if (*p == '\t')
                *p = ' ';
        char *nl = strchr(lib, '\n');
        if (nl)
            *nl = '\0';
        fprintf(stderr,
                "mpi transport: %s; MPI %s by %s, %s; progress thread %s; %d context window "
                "pair(s); puts up to %zu B staged; atomics by %s\n",
                lib, started_by_us ? "started" : "already running",
                started_by_us ? "the plugin" : "the program", level_name(g.mpi_level),
                progress_running() ? "on" : "off", g.pool_n, g.stage_max,
                g.amo_am ? "active message (CPU atomics at the target)" : "MPI accumulate");
    }
    *out = &ops;
    return 0;

fail_msg:
    msg_close();
fail_am:
    if (g.amo_am)
        am_close();
fail_win:
    active = 0;
    win_close_all();
fail_comm:
    MPI_Comm_free(&g.comm);
    return -1;
}

/* The core ran a barrier before this (every PE completed its operations),
 * so freeing the windows, which is collective, waits for no one's RMA. */
static void mpi_fini(void)
{
    if (!active)
        return;
    mpi_quiet(NULL);
    progress_stop();
    msg_close();
    if (g.amo_am)
        am_close();
    mpi_spaces_close(); /* spaces still attached: every PE has the same */
    win_close_all();
    MPI_Comm_free(&g.comm);
    active = 0;
}

/* Listed by shmem_info and the README (component "transport mpi").  The
 * progress-thread pair has the ofi and ucx transports' names: one job runs
 * one network transport, and users set them the same way for each. */
static const pshm_setting settings[] = {
    PSHM_KIT_PROGRESS_SETTINGS("mpi transport", "on when MPI provides MPI_THREAD_MULTIPLE"),
    {"SHMEM_MPI_CTX_WINDOWS", PSHM_SETTING_UINT, "0", NULL,
     "mpi transport: window pairs made at shmem_init for contexts (0..64); a context without "
     "one shares the default context's windows"},
    {"SHMEM_MPI_STAGE_MAX", PSHM_SETTING_UINT, "256", NULL,
     "mpi transport: puts up to this many bytes are copied and left in flight (0..16384)"},
    {"SHMEM_MPI_AMO", PSHM_SETTING_CHOICE, "auto", "auto|am|rma",
     "mpi transport: atomics by active message applied with CPU atomics at the target (am; "
     "needs the progress thread) or by MPI_Fetch_and_op and MPI_Accumulate (rma); auto: am "
     "where the progress thread runs"},
    {"SHMEM_MPI_AMO_CPU_COHERENT", PSHM_SETTING_BOOL, "0", NULL,
     "mpi transport: with SHMEM_MPI_AMO=rma, declare MPI's atomics coherent with CPU atomics "
     "(1 is unsafe with MPICH; for measurements)"},
    {"SHMEM_MPI_VERBOSE", PSHM_SETTING_BOOL, "0", NULL,
     "mpi transport: 1: PE 0 prints the MPI library and modes chosen"},
    {NULL, 0, NULL, NULL, NULL},
};

PSHM_TRANSPORT_DEFINE("mpi", "MPI-3 one-sided communication (MPICH): one window per segment",
                      mpi_query, mpi_init, mpi_fini, .max_priority = mpi_max_priority,
                      .settings = settings,
                      .nbe_completion = "its own MPI_Rget requests and its atomics' answers "
                                        "(active messages; MPI_Rget_accumulate requests with "
                                        "SHMEM_MPI_AMO=rma), then MPI_Win_flush to each PE its "
                                        "puts (and rma compare-and-swaps) went to");
