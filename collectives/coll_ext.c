/*
 * SHMEM_COLLECTIVES=NAME|auto: the core's side of a collectives component
 * loaded at run time (coll-NAME.so; interface in coll_ext.h).
 *
 * Every slot of the table is a shim here: it decides whether the call
 * runs on the component (named: always; auto: by operation, team and
 * size, by the component's rules, coll_auto.c), completes what native
 * collectives left in flight, and runs the native algorithm when the
 * component declines (coll-mpi: a type MPI has no match for, a count past
 * MPI's int).  Teams get the component's handle (a communicator) at
 * creation (team_create hook) and lose it at destruction.
 *
 * Active sets of the deprecated routines get theirs from a small cache
 * keyed by (PE_start, logPE_stride, PE_size).  Creating and freeing a
 * communicator involves every member, so every member must evict an entry
 * at the same point of the program: entries are aged in world-team
 * collectives, which every PE makes in the same order and which every
 * member of a set makes at the same place relative to the set's own calls.
 * A set unused for CACHE_AGE world collectives is freed at the next one,
 * on every member alike; a decision that looked at the cache's fill (an
 * LRU with a fixed size) would differ between members that take part in
 * different other sets, and a member creating a communicator its peers
 * still hold would wait forever.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "coll_ext.h"
#include "coll_ext_int.h"
#include "native_msg.h"
#include "coll_state.h"
#include "config.h"
#include "error.h"
#include "init.h"
#include "abi.h"
#include "loader.h"

_Static_assert(PSHM_OP_AND == 0 && PSHM_OP_PROD == 6, "coll_ext.h names operators in this order");

#define CACHE_AGE 64 /* world collectives an unused active-set communicator survives */
#define CACHE_MAX 64 /* entries kept; beyond it sets run natively, see as_lookup */

static const struct pshm_cext *ext;
static void *ext_dl;
static char ext_path[PATH_MAX + 64];
int pshm_cext_mode; /* PSHM_CEXT_MODE_* */
static uint64_t world_epoch;

struct as_entry {
    int start, logstride, size;
    void *h;
    uint64_t last;
};
static struct as_entry cache[CACHE_MAX];
static int cache_n;

/* ---- loading ------------------------------------------------------------ */

static const char *cx_getenv(const char *name) { return getenv(name); }

static void cx_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_verror(fmt, ap);
    va_end(ap);
}

__attribute__((noreturn)) static void cx_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_vfatal(fmt, ap);
}

static struct pshm_cext_svc svc = {.getenv = cx_getenv, .error = cx_error, .fatal = cx_fatal};

static int check_cext(const void *desc, char *why, size_t len)
{
    static const struct pshm_abi_rule rule = {
        "collectives interface", "component",
        "rebuild it with this library (collectives/coll_ext.h)", PSHM_CEXT_ABI_MAJOR,
        PSHM_CEXT_ABI_MINOR};
    static const uint32_t sizes[PSHM_CEXT_ABI_MINOR + 1] = {offsetof(struct pshm_cext, msg_from),
                                                            sizeof(struct pshm_cext)};
    const struct pshm_cext *x = desc;
    if (pshm_abi_check_header(&rule, "descriptor", &x->hdr, sizes, why, len))
        return -1;
    static const struct {
        const char *name;
        size_t off;
    } need[] = {
#define NEED(f) {#f, offsetof(struct pshm_cext, f)}
        NEED(query),    NEED(init),      NEED(fini),     NEED(describe), NEED(has_reduction),
        NEED(team_create), NEED(team_destroy), NEED(barrier), NEED(broadcast), NEED(reduce),
        NEED(scan),     NEED(fcollect),  NEED(collect),  NEED(alltoall), NEED(alltoalls),
#undef NEED
    };
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        void (*fn)(void);
        memcpy(&fn, (const char *)x + need[i].off, sizeof fn);
        if (!fn) {
            snprintf(why, len, "its descriptor lacks %s, which every collectives component "
                     "must provide", need[i].name);
            return -1;
        }
    }
    return 0;
}

_Static_assert(offsetof(struct pshm_cext, name) == offsetof(pshm_component_head, name),
               "a collectives descriptor begins as every component's does");

static const struct pshm_component_kind coll_kind = {
    "collectives component", "coll-", "collectives", PSHM_CEXT_SYMBOL, check_cext};

static void keep(struct pshm_registry *r, struct pshm_plugin *p)
{
    ext = (const struct pshm_cext *)p->head;
    ext_dl = p->dl;
    snprintf(ext_path, sizeof ext_path, "%s", p->path);
    char *name = p->name, *path = p->path;
    pshm_registry_release(r, p);
    free(name);
    free(path);
}

static void names(struct pshm_registry *r, char *out, size_t len)
{
    size_t u = (size_t)snprintf(out, len, "native");
    for (int i = 0; i < r->n && u < len; i++)
        u += (size_t)snprintf(out + u, len - u, ", %s", r->p[i].name);
    if (u < len)
        snprintf(out + u, len - u, ", auto");
}

void pshm_cext_list(FILE *out)
{
    struct pshm_registry r;
    pshm_loader_scan(&r, &coll_kind, getenv("SHMEM_TRANSPORT_PATH"));
    fprintf(out, "  components found:%s", r.n ? "" : " none");
    for (int i = 0; i < r.n; i++)
        fprintf(out, "%s %s (%s)", i ? "," : "", r.p[i].name, r.p[i].path);
    fprintf(out, "\n");
    pshm_registry_release(&r, NULL);
}

/* SHMEM_COLLECTIVES was a choice, compared without case: "MPI" still works. */
static struct pshm_plugin *find_any_case(struct pshm_registry *r, const char *want)
{
    for (int i = 0; i < r->n; i++)
        if (strcasecmp(r->p[i].name, want) == 0)
            return &r->p[i];
    return NULL;
}

/* auto: the first component whose descriptor has rules.  A damaged file,
 * or one that hides another of its name, ends the search as it would a
 * transport's: it might have been the one. */
static struct pshm_plugin *first_with_rules(struct pshm_registry *r, char *why, size_t whylen)
{
    size_t u = 0;
    why[0] = '\0';
    for (int i = 0; i < r->n; i++) {
        struct pshm_plugin *p = &r->p[i];
        if (pshm_registry_load(p) == 0 && ((const struct pshm_cext *)p->head)->auto_rules)
            return p;
        if (p->broken) {
            snprintf(why, whylen, "SHMEM_COLLECTIVES=auto: %s (%s) cannot be used: %s; repair or "
                     "remove the file", p->name, p->path, p->why);
            return NULL;
        }
        if (u < whylen)
            u += (size_t)snprintf(why + u, whylen - u, "%s%s: %s", u ? "; " : "", p->name,
                                  p->head ? "no auto rules" : p->why);
    }
    char found[1024];
    snprintf(found, sizeof found, "%s", why);
    snprintf(why, whylen, "SHMEM_COLLECTIVES=auto: no collectives component gives auto rules (%s%s)",
             r->n ? found : "none found; searched ", r->n ? "" : r->searched);
    return NULL;
}

/* SHMEM_TRANSPORT_PATH's folders, the install's plugin folder beside the
 * core library, else the build tree's collectives/NAME/ (core/loader.c). */
int pshm_cext_load(const char *want, char *why, size_t whylen)
{
    if (ext)
        return 0;
    struct pshm_registry r;
    pshm_loader_scan(&r, &coll_kind, getenv("SHMEM_TRANSPORT_PATH"));
    struct pshm_plugin *p;
    if (strcasecmp(want, "auto") == 0) {
        p = first_with_rules(&r, why, whylen);
    } else if (!(p = find_any_case(&r, want))) {
        char list[1024];
        names(&r, list, sizeof list);
        snprintf(why, whylen, "SHMEM_COLLECTIVES='%s' is not known; use one of %s%s%s", want,
                 list, r.n ? "" : " (no coll-NAME.so found; searched ", r.n ? "" : r.searched);
        if (!r.n && strlen(why) + 2 < whylen)
            strcat(why, ")");
    } else if (pshm_registry_load(p)) {
        snprintf(why, whylen, "SHMEM_COLLECTIVES=%s: %s cannot be used: %s", want, p->path,
                 p->why);
        p = NULL;
    }
    if (!p) {
        pshm_registry_release(&r, NULL);
        return -1;
    }
    keep(&r, p);
    return 0;
}

const struct pshm_cext *pshm_cext_loaded(const char **path)
{
    if (path)
        *path = ext_path;
    return ext;
}

void pshm_cext_unload(void)
{
    /* The component keeps itself loaded (its MPI session lives until
     * exit); this only drops our reference. */
    if (ext_dl)
        dlclose(ext_dl);
    ext = NULL;
    ext_dl = NULL;
}

void pshm_cext_fill_svc(struct pshm_cext_svc *s, int my_pe, int n_pes, int thread_multiple)
{
    *s = svc;
    s->my_pe = my_pe;
    s->n_pes = n_pes;
    s->thread_multiple = thread_multiple;
}

/* ---- per team ------------------------------------------------------------ */

static int *members(const struct pshm_team *t)
{
    int *w = malloc(sizeof(int) * (size_t)t->n_pes);
    if (!w)
        pshm_fatal("%s: out of memory", pshm_coll_routine);
    for (int i = 0; i < t->n_pes; i++)
        w[i] = pshm_team_world_pe(t, i);
    return w;
}

static int x_team_create(struct pshm_team *t)
{
    int *w = members(t);
    t->component = ext->team_create(t->n_pes, t->my_pe, w);
    free(w);
    return t->component ? 0 : -1;
}

static void x_team_destroy(struct pshm_team *t)
{
    if (t == &pshm_team_world)
        pshm_cext_as_flush();
    ext->team_destroy(t->component);
    t->component = NULL;
}

/* Whether this call runs on the component; completes the native
 * collectives' transfers first when it does. */
static inline int on_ext(struct pshm_team *t, int op, size_t bytes)
{
    if (t == &pshm_team_world)
        pshm_cext_as_age(++world_epoch);
    if (!t->component)
        return 0;
    if (pshm_cext_mode == PSHM_CEXT_MODE_AUTO &&
        !pshm_cext_auto_pick(op, t->n_pes, t->all_mapped,
                             !t->all_mapped && pshm_coll_msg_usable(t), bytes))
        return 0;
    coll_complete();
    return 1;
}

static int x_barrier(struct pshm_team *t)
{
    if (on_ext(t, PSHM_CEXT_OP_BARRIER, 0)) {
        int rc = ext->barrier(t->component);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_barrier(t);
}

static int x_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    if (on_ext(t, PSHM_CEXT_OP_BCAST, nbytes)) {
        int rc = ext->broadcast(t->component, dest, src, nbytes, root, 1);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_broadcast(t, dest, src, nbytes, root);
}

static int x_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                    const struct pshm_red *r)
{
    if (on_ext(t, PSHM_CEXT_OP_REDUCE, count * r->esize)) {
        int rc = ext->reduce(t->component, dest, src, count, r->esize, r->type, r->op);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_reduce(t, dest, src, count, r);
}

static int x_scan(struct pshm_team *t, void *dest, const void *src, size_t count,
                  const struct pshm_red *r, int exclusive)
{
    if (on_ext(t, PSHM_CEXT_OP_SCAN, count * r->esize)) {
        int rc = ext->scan(t->component, dest, src, count, r->esize, r->type, r->op, exclusive);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_scan(t, dest, src, count, r, exclusive);
}

static int x_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    if (on_ext(t, PSHM_CEXT_OP_FCOLLECT, nbytes)) {
        int rc = ext->fcollect(t->component, dest, src, nbytes);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_fcollect(t, dest, src, nbytes);
}

/* Sizes differ between members: auto decides by operation and team only
 * (bytes 0), the same on every member. */
static int x_collect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    if (on_ext(t, PSHM_CEXT_OP_COLLECT, 0)) {
        int rc = ext->collect(t->component, dest, src, nbytes);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_collect(t, dest, src, nbytes);
}

static int x_alltoall(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    if (on_ext(t, PSHM_CEXT_OP_ALLTOALL, nbytes)) {
        int rc = ext->alltoall(t->component, dest, src, nbytes);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_alltoall(t, dest, src, nbytes);
}

static int x_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t esize)
{
    if (on_ext(t, PSHM_CEXT_OP_ALLTOALLS, nelems * esize)) {
        int rc = ext->alltoalls(t->component, dest, src, dst, sst, nelems, esize);
        if (rc != PSHM_CEXT_NATIVE)
            return rc;
    }
    return pshm_native_alltoalls(t, dest, src, dst, sst, nelems, esize);
}

const struct pshm_coll_ops pshm_coll_ext_ops = {
    .name = "component", /* pshm_coll_init names it after the component */
    .team_create = x_team_create,
    .team_destroy = x_team_destroy,
    .barrier = x_barrier,
    .broadcast = x_broadcast,
    .reduce = x_reduce,
    .scan = x_scan,
    .collect = x_collect,
    .fcollect = x_fcollect,
    .alltoall = x_alltoall,
    .alltoalls = x_alltoalls,
};

/* ---- active sets ---------------------------------------------------------- */

void pshm_cext_as_age(uint64_t epoch)
{
    for (int i = 0; i < cache_n;)
        if (epoch - cache[i].last > CACHE_AGE) {
            ext->team_destroy(cache[i].h);
            cache[i] = cache[--cache_n];
        } else {
            i++;
        }
}

void pshm_cext_as_flush(void)
{
    while (cache_n > 0)
        ext->team_destroy(cache[--cache_n].h);
}

/* The set's communicator, made on first use.  A set beyond CACHE_MAX live
 * entries is not cached: that depends on this PE's other sets, so it
 * ends the job with a clear line rather than risk members disagreeing. */
static void *as_lookup(int start, int logstride, int size, int me)
{
    for (int i = 0; i < cache_n; i++)
        if (cache[i].start == start && cache[i].logstride == logstride && cache[i].size == size) {
            cache[i].last = world_epoch;
            return cache[i].h;
        }
    if (cache_n == CACHE_MAX)
        pshm_fatal("%s: more than %d active sets in use between %d world collectives; "
                   "SHMEM_COLLECTIVES=%s keeps a team of its own for each (use teams, or "
                   "SHMEM_COLLECTIVES=native)",
                   pshm_coll_routine, CACHE_MAX, CACHE_AGE, ext->name);
    int *w = malloc(sizeof(int) * (size_t)size);
    if (!w)
        pshm_fatal("%s: out of memory", pshm_coll_routine);
    for (int i = 0; i < size; i++)
        w[i] = start + (i << logstride);
    void *h = ext->team_create(size, me, w);
    free(w);
    if (!h)
        pshm_fatal("%s: no communicator for the active set (PE_start %d, logPE_stride %d, "
                   "PE_size %d)", pshm_coll_routine, start, logstride, size);
    cache[cache_n++] = (struct as_entry){start, logstride, size, h, world_epoch};
    return h;
}

const struct pshm_cext *pshm_cext_as(int start, int logstride, int size, int me, void **h)
{
    if (pshm_cext_mode != PSHM_CEXT_MODE_ALL || !ext)
        return NULL;
    coll_complete();
    *h = as_lookup(start, logstride, size, me);
    return ext;
}
