/* shmem_init / shmem_finalize: bring up bootstrap, transport and segments
 * in that order, and take them down in reverse. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "alloc.h"
#include "api.h"
#include "coll_layer.h"
#include "config.h"
#include "error.h"
#include "info.h"
#include "init.h"
#include "opcount.h"
#include "memory.h"
#include "registry.h"
#include "request.h"
#include "space.h"
#include "segment.h"
#include "settings.h"
#include "sweeper.h"
#include "sync.h"

/* The transport table before shmem_init and after shmem_finalize: the
 * routines that reach the transport without another test (shmem_quiet,
 * shmem_fence, a wait's progress) then end the job with one line instead
 * of calling through NULL. */
static void uninit_quiet(pshm_tctx t)
{
    (void)t;
    pshm_not_init("shmem_quiet");
}
static void uninit_fence(pshm_tctx t)
{
    (void)t;
    pshm_not_init("shmem_fence");
}
static void uninit_progress(void) { pshm_not_init("a wait or test"); }
static const pshm_transport_ops tp_uninit = {
    .fence = uninit_fence, .quiet = uninit_quiet, .progress = uninit_progress};

struct pshm_global pshm_g = {.tp = &tp_uninit, .tp_quiet = 1, .tp_progress = 1};
struct pshm_ctx pshm_ctx_default PSHM_API;
struct pshm_boot pshm_boot;
const char *pshm_transport_in_use;
int pshm_thread_level = SHMEM_THREAD_SINGLE;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int refcount;
static int boot_up;
static struct pshm_plugin plugin; /* the transport in use */
static pshm_transport_ops tp_ops; /* its ops, as this core's table (abi.h) */
static pshm_core_services svc;
static int *local_of;
static char **peer_bases[PSHM_NSEGS];

int pshm_is_initialized(void) { return refcount > 0; }

void pshm_job_abort(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (boot_up)
        pshm_boot.abort(status, NULL);
    exit(status);
}

/* A configuration error is the same on every PE: PE 0 reports it and the
 * others give it time to, so that the user reads one line, not one per PE. */
int pshm_config_fail(int rank, const char *msg, int fatal)
{
    if (rank == 0 || !fatal)
        pshm_error("%s", msg);
    if (!fatal)
        return -1;
    if (rank != 0) {
        sleep(2);
        pshm_error("%s", msg);
    }
    pshm_job_abort(1);
}

/* The rank before the bootstrap is up, from whichever launcher's
 * variables are there. */
static int env_rank(void)
{
    const char *r = getenv("PMIX_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    return r ? atoi(r) : 0;
}

static void svc_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_verror(fmt, ap);
    va_end(ap);
}

/* As the core's own fatal errors: the message, then the whole job ends. */
__attribute__((noreturn)) static void svc_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_vfatal(fmt, ap);
}

/* Without oshrun's job tag, plugins name their /dev/shm objects after the
 * PE's pid, as the core does, so that the sweeper finds them. */
static const char *svc_getenv(const char *name)
{
    static char own_tag[24];
    const char *v = getenv(name);
    if (!v && strcmp(name, "PLUGSHMEM_JOB_TAG") == 0) {
        snprintf(own_tag, sizeof own_tag, "p%d", (int)getpid());
        return own_tag;
    }
    return v;
}

/* A plugin's barrier (ofi and ucx meet the other PEs in fini).  Under
 * hydra, a program that called MPI_Finalize before shmem_finalize took
 * the PMI connection with it; the world team, still up in fini, then
 * meets the PEs natively, and the quiet completes its flags before the
 * plugin tears down. */
static int teams_up;

static int svc_barrier(void)
{
    int rc = pshm_boot.barrier();
    if (rc != PSHM_BOOT_CLOSED)
        return rc;
    if (!teams_up)
        return -1;
    pshm_coll_layer.native_barrier(&pshm_team_world);
    pshm_quiet(&pshm_ctx_default);
    return 0;
}

static void build_services(void)
{
    memset(&svc, 0, sizeof svc);
    svc.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_core_services);
    svc.my_pe = pshm_boot.rank;
    svc.n_pes = pshm_boot.size;
    svc.n_local = pshm_boot.n_local;
    local_of = malloc(sizeof(int) * (size_t)pshm_boot.size);
    for (int i = 0; i < pshm_boot.size; i++)
        local_of[i] = -1;
    for (int i = 0; i < pshm_boot.n_local; i++)
        local_of[pshm_boot.local_ranks[i]] = i;
    svc.local_of = local_of;
    svc.allgather = pshm_boot.allgather;
    svc.barrier = svc_barrier;
    svc.getenv = svc_getenv;
    svc.error = svc_error;
    svc.fatal = svc_fatal;
    svc.debug = pshm_cfg.debug;
    svc.get_bool = pshm_setting_get_bool;
    svc.get_uint = pshm_setting_get_uint;
    svc.get_size = pshm_setting_get_size;
    svc.get_choice = pshm_setting_get_choice;
    svc.get_string = pshm_setting_get_string;
}

/* Which PEs the core reaches by load/store, and for which of those CPU
 * atomics are safe: only where every PE that can target a word uses the
 * same atomicity domain.  The plugin is shown every mapping, also those
 * the core does not use itself (SHMEM_BYPASS=0). */
static void set_routes(uint32_t caps)
{
    int all_local = pshm_boot.n_local == pshm_boot.size;
    int cpu_amo = all_local || (caps & PSHM_CAP_AMO_CPU_COHERENT);
    for (int s = 0; s < PSHM_NSEGS; s++) {
        if (!peer_bases[s])
            peer_bases[s] = calloc((size_t)pshm_boot.size, sizeof(char *));
        for (int r = 0; r < pshm_boot.size; r++) {
            struct pshm_peer *p = &pshm_g.peer[r];
            char *m = pshm_segment_mapping(r, s);
            p->base[s] = pshm_cfg.bypass ? m : NULL;
            p->amo[s] = cpu_amo ? p->base[s] : NULL;
            /* A PE's own segments are always at hand, shared or not. */
            peer_bases[s][r] = r == pshm_boot.rank ? svc.seg[s].base : m;
        }
        svc.peer_base[s] = peer_bases[s];
    }
    if (!pshm_g.heap_route) {
        size_t n = (size_t)pshm_boot.size;
        pshm_g.heap_route = calloc(n, sizeof(char *));
        for (int s = 0; s < PSHM_NSEGS; s++)
            pshm_g.amo_route[s] = calloc(n, sizeof(char *));
        if (!pshm_g.heap_route || !pshm_g.amo_route[PSHM_SEG_HEAP] || !pshm_g.amo_route[PSHM_SEG_DATA])
            pshm_fatal("out of memory for %d PEs", pshm_boot.size);
    }
    for (int r = 0; r < pshm_boot.size; r++) {
        pshm_g.heap_route[r] = pshm_g.peer[r].base[PSHM_SEG_HEAP];
        for (int s = 0; s < PSHM_NSEGS; s++)
            pshm_g.amo_route[s][r] = pshm_g.peer[r].amo[s];
    }
}

/* The plugin's ops as this core's table, or the job ends naming the
 * plugin and what is wrong (the same on every PE: one line). */
static void adopt_ops(const pshm_transport_ops *ops)
{
    char why[512], msg[1024 + 512];
    if (pshm_abi_adopt_ops(ops, &tp_ops, why, sizeof why) == 0)
        return;
    snprintf(msg, sizeof msg, "transport '%s' (%s): %s", plugin.name, plugin.path, why);
    pshm_config_fail(pshm_boot.rank, msg, 1);
}

/* SHMEM_THREAD_MULTIPLE needs a plugin that takes concurrent calls; the
 * others are served by any plugin, one call at a time. */
static int thread_level(int requested, uint32_t caps)
{
    int level = requested < SHMEM_THREAD_SINGLE     ? SHMEM_THREAD_SINGLE
                : requested > SHMEM_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
                                                    : requested;
    if (level == SHMEM_THREAD_MULTIPLE && !(caps & PSHM_CAP_THREAD_SAFE))
        level = SHMEM_THREAD_SERIALIZED;
    return level;
}

static int select_transport(int fatal)
{
    struct pshm_registry reg;
    char err[2048];
    pshm_registry_scan(&reg, pshm_cfg.transport_path);
    /* Not an error: the install's own folder may still hold the transport
     * wanted, but the user should know the path did not count. */
    if (pshm_boot.rank == 0 && *pshm_registry_missing(&reg))
        pshm_error("warning: SHMEM_TRANSPORT_PATH='%s': cannot open %s; searching the other "
                   "folders only",
                   pshm_cfg.transport_path, pshm_registry_missing(&reg));
    if (pshm_cfg.transport)
        pshm_registry_query_list(&reg, &svc, pshm_cfg.transport);
    else
        pshm_registry_query_best(&reg, &svc);
    struct pshm_plugin *p = pshm_registry_select(&reg, pshm_cfg.transport, err, sizeof err);
    if (!p) {
        pshm_registry_release(&reg, NULL);
        return pshm_config_fail(pshm_boot.rank, err, fatal);
    }
    if (pshm_boot.rank == 0) {
        /* Another transport's setting is no error (one environment may
         * serve jobs on several), but it must not pass unnoticed. */
        char unread[1024];
        pshm_registry_unread_settings(&reg, p, unread, sizeof unread);
        if (*unread)
            pshm_error("warning: transport '%s' is in use, which does not read %s", p->name,
                       unread);
    }
    plugin = *p;
    pshm_registry_release(&reg, p);
    /* The plugin's settings are checked here, before init(), so that a bad
     * value reads like one of the core's. */
    if (pshm_settings_check(plugin.desc->settings, err, sizeof err))
        return pshm_config_fail(pshm_boot.rank, err, fatal);
    return 0;
}

/* shmem_finalize's barrier, on words of its own (struct pshm_internal),
 * so that a PE finalizing, or exiting without finalizing, never completes
 * a peer's shmem_barrier_all: that peer would go on to wait for it
 * forever.  Every PE tells every other one; a peer still in a collective
 * that this PE never entered finds the notice and ends the job
 * (the collectives' departed_check), so that this wait does not last forever
 * either.  n - 1 AMOs a PE, once a job. */
static void finalize_barrier(int at_exit)
{
    int me = pshm_g.my_pe, n = pshm_g.n_pes;
    struct pshm_internal *in = pshm_internal();
    uint64_t note = ((uint64_t)(at_exit != 0) << 32) | (uint64_t)(me + 1);
    pshm_quiet(&pshm_ctx_default);
    for (int pe = 0; pe < n; pe++) {
        if (pe == me)
            continue;
        pshm_internal_amo(pe, &in->fin_who, PSHM_AMO_CSWAP, note, 0);
        pshm_internal_amo(pe, &in->fin_count, PSHM_AMO_ADD, 1, 0);
    }
    pshm_quiet(&pshm_ctx_default);
    struct pshm_wait w = {0};
    while (__atomic_load_n(&in->fin_count, __ATOMIC_ACQUIRE) < (uint64_t)(n - 1))
        pshm_wait_step(&w, &in->fin_count, 1);
    pshm_wait_end(&w);
}

static int finalizing_at_exit;

static void at_exit(int status, void *arg)
{
    (void)arg;
    /* A PE that fails ends the job with its status, as a launcher would
     * for a PE that exits unfinalized: finalizing would only make it wait
     * for the others, or be reported as a PE that left. */
    if (status != 0 && refcount > 0 && boot_up && pshm_g.n_pes > 1) {
        fflush(stdout);
        fflush(stderr);
        pshm_boot.abort(status, NULL);
        _exit(status);
    }
    /* start_pes() programs, and programs that forget shmem_finalize,
     * still complete their communication and leave the job cleanly when
     * every PE does so; a PE that leaves while others go on to a
     * collective ends the job instead (finalize_barrier). */
    finalizing_at_exit = 1;
    while (refcount > 0)
        pshmem_finalize();
}

/* SHMEM_EMULATE_NODES: keep as local only the peers of our emulated node,
 * so that segments, routes, transports and collectives take their
 * multi-node paths between PEs that share a machine.  Oversubscription was
 * judged before: the cores are still shared. */
static void emulate_nodes(struct pshm_boot *b, int nodes)
{
    int k = 0;
    for (int i = 0; i < b->n_local; i++)
        if (b->local_ranks[i] % nodes == b->rank % nodes)
            b->local_ranks[k++] = b->local_ranks[i];
    b->n_local = k;
}

static int init(int requested, int *provided, int fatal)
{
    static int atexit_done;
    char err[1024];

    pthread_mutex_lock(&init_lock);
    if (refcount > 0) {
        refcount++;
        pthread_mutex_unlock(&init_lock);
        if (provided)
            *provided = pshm_thread_level;
        return 0;
    }
    if (pshm_config_load(err, sizeof err)) {
        pthread_mutex_unlock(&init_lock);
        return pshm_config_fail(env_rank(), err, fatal);
    }
    memset(&pshm_boot, 0, sizeof pshm_boot);
    if (pshm_boot_init(&pshm_boot, pshm_cfg.bootstrap, err, sizeof err)) {
        pthread_mutex_unlock(&init_lock);
        return pshm_config_fail(env_rank(), err, fatal);
    }
    boot_up = 1;
    if (pshm_boot.size > 1)
        pshm_error_set_pe(pshm_boot.rank);
    const char *launcher = getenv("PLUGSHMEM_LAUNCHER");
    if (pshm_boot.size > 1 && (!launcher || strcmp(launcher, "oshrun") != 0))
        pshm_sweeper_start();
    pshm_g.my_pe = pshm_boot.rank;
    pshm_g.n_pes = pshm_boot.size;
    pshm_g.pe_limit = (size_t)pshm_boot.size;
    pshm_g.finalized = 0;
    pshm_g.debug = pshm_cfg.debug;
    /* Before emulated nodes shrink n_local: the cores are real. */
    pshm_wait_budget_init(pshm_boot.n_local);
    if (pshm_cfg.emulate_nodes > 1)
        emulate_nodes(&pshm_boot, pshm_cfg.emulate_nodes);
    build_services();
    svc.thread_level = thread_level(requested, PSHM_CAP_THREAD_SAFE); /* what was asked */
    if (select_transport(fatal)) {
        pshm_boot.fini();
        boot_up = 0;
        pshm_g.n_pes = 0;
        pshm_g.pe_limit = 0;
        pthread_mutex_unlock(&init_lock);
        return -1;
    }
    pshm_transport_in_use = plugin.name;
    if (pshm_segments_init(&pshm_boot, pshm_cfg.symmetric_size, !strcmp(pshm_cfg.globals, "map"),
                           pshm_cfg.bypass ||
                               (plugin.desc->flags & PSHM_DESC_USES_PEER_MAPPINGS)))
        pshm_job_abort(1);
    pshm_g.heap_fast_len = pshm_cfg.debug ? 0 : pshm_g.heap_user_len;
    pshm_g.data_fast_len = pshm_cfg.debug ? 0 : pshm_g.data_len;
    svc.seg[PSHM_SEG_HEAP].base = (void *)pshm_g.heap_lo;
    svc.seg[PSHM_SEG_HEAP].size = pshm_g.heap_len;
    svc.seg[PSHM_SEG_DATA].base = (void *)pshm_g.data_lo;
    svc.seg[PSHM_SEG_DATA].size = pshm_g.data_len;
    const pshm_transport_ops *ops = NULL;
    /* Routes first: a plugin learns from svc which peers the core maps. */
    set_routes(0);
    if (plugin.desc->init(&svc, &ops) || !ops)
        pshm_fatal("transport '%s' (%s) failed to initialize", plugin.name, plugin.path);
    adopt_ops(ops);
    pshm_opcount_wrap(&tp_ops);
    if (!tp_ops.p) /* after the counting shims: it counts as the put it makes */
        tp_ops.p = pshm_p_by_put;
    set_routes(tp_ops.caps);
    pshm_sleep_init();
    pshm_g.tp = &tp_ops;
    pshm_g.tp_quiet = tp_ops.quiet != NULL;
    pshm_g.tp_progress = tp_ops.progress != NULL;
    pshm_wait_budget_update(); /* a poll may now be a trip through the transport */
    memset(&pshm_ctx_default, 0, sizeof pshm_ctx_default);
    pshm_ctx_default.team = &pshm_team_world;
    pshm_memory_init(pshm_cfg.symmetric_size);
    /* Before the teams: a collectives component asks MPI for it. */
    pshm_thread_level = thread_level(requested, tp_ops.caps);
    pshm_teams_init();
    /* Blocking in the transport pays only where it carries the writes:
     * with every PE mapped they come by load/store, which it never sees. */
    if (pshm_team_world.all_mapped)
        tp_ops.block = NULL;
    teams_up = 1;

    if (provided)
        *provided = pshm_thread_level;
    refcount = 1;
    if (!atexit_done) {
        on_exit(at_exit, NULL); /* glibc: the status tells a failing PE */
        atexit_done = 1;
    }
    pthread_mutex_unlock(&init_lock);

    pshm_coll_layer.world_barrier();
    if (pshm_g.my_pe == 0 && (pshm_cfg.info || pshm_cfg.version)) {
        if (pshm_cfg.info)
            pshmemx_info_print(stdout);
        else
            printf("PlugSHMEM %s (OpenSHMEM %d.%d), transport %s\n", PLUGSHMEM_VERSION_STRING,
                   SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, plugin.name);
        fflush(stdout);
    }
    return 0;
}

PSHM_API void pshmem_init(void) { init(SHMEM_THREAD_SINGLE, NULL, 1); }
#pragma weak shmem_init = pshmem_init

PSHM_API int pshmem_init_thread(int requested, int *provided)
{
    return init(requested, provided, 0) ? 1 : 0;
}
#pragma weak shmem_init_thread = pshmem_init_thread

PSHM_API void pshmem_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (refcount == 0) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    if (--refcount > 0) {
        pthread_mutex_unlock(&init_lock);
        pshmem_barrier_all();
        return;
    }
    finalize_barrier(finalizing_at_exit);
    pshm_opcount_report();
    plugin.desc->fini();
    pshm_spaces_fini();
    pshm_g.tp = &tp_uninit;
    pshm_g.tp_quiet = pshm_g.tp_progress = 1;
    memset(&tp_ops, 0, sizeof tp_ops);
    pshm_teams_fini();
    teams_up = 0;
    pshm_requests_fini();
    pshm_memory_fini();
    pshm_sleep_fini();
    pshm_segments_fini();
    pshm_boot.fini();
    boot_up = 0;
    if (plugin.dl)
        dlclose(plugin.dl);
    free(plugin.name);
    free(plugin.path);
    memset(&plugin, 0, sizeof plugin);
    pshm_transport_in_use = NULL;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        free(peer_bases[s]);
        peer_bases[s] = NULL;
    }
    free(pshm_g.heap_route);
    pshm_g.heap_route = NULL;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        free(pshm_g.amo_route[s]);
        pshm_g.amo_route[s] = NULL;
    }
    free(local_of);
    local_of = NULL;
    pshm_error_set_pe(-1);
    pshm_g.n_pes = 0;
    pshm_g.pe_limit = 0;
    pshm_g.finalized = 1;
    pthread_mutex_unlock(&init_lock);
}
#pragma weak shmem_finalize = pshmem_finalize
