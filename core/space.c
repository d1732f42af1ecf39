/*
 * Memory spaces: an extra symmetric heap per space, with its own size and
 * contexts.  Each PE's part is a POSIX shared-memory object, so that
 * on-node peers map it as they map the heap (same routes: load/store where
 * the heap is, CPU atomics where the heap's are); attaching gives it a
 * segment index and, when some PE is reached only through the transport,
 * registers it there (ABI 2.1 seg_register) so that (pe, seg, off) works
 * in every op.  A transport without seg_register serves spaces only when
 * every PE is mapped (one node, SHMEM_BYPASS=1); attach says so otherwise.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alloc.h"
#include "api.h"
#include "error.h"
#include "init.h"
#include "segment.h"
#include "space.h"
#include "bootstrap.h"

#define MIN_ALIGN 64

struct pshm_space {
    int seg; /* its segment once attached, else -1 */
    size_t size;
    char *base; /* this PE's part */
    char name[PSHM_SEG_NAME_LEN]; /* the shm object's, until attach unlinks it */
    char **peer; /* [pe]: a peer's part mapped here, while attached */
    int registered; /* the transport's seg_register took it */
    int max_ctx, nctx;
    shmem_ctx_t *ctx;
    pshm_alloc *alloc;
    pthread_mutex_t lock;
    struct pshm_space *next; /* every space of this PE */
};

static struct pshm_space *attached[PSHM_MAX_SEGS];
char **pshm_space_parts[PSHM_MAX_SEGS];
static struct pshm_space *all_spaces;
static pthread_mutex_t spaces_lock = PTHREAD_MUTEX_INITIALIZER;

int pshm_space_seg_of(const void *addr, size_t *off)
{
    for (int s = PSHM_NSEGS; s < PSHM_MAX_SEGS; s++) {
        struct pshm_space *sp = attached[s];
        uintptr_t o = (uintptr_t)addr - (uintptr_t)(sp ? sp->base : 0);
        if (sp && o < sp->size) {
            *off = o;
            return s;
        }
    }
    return -1;
}

size_t pshm_space_seg_len(int s) { return attached[s] ? attached[s]->size : 0; }

static void check_space(const char *routine, struct pshm_space *sp)
{
    if (!pshm_g.n_pes)
        pshm_fatal("%s: called before shmem_init", routine);
    if (!sp)
        pshm_fatal("%s: space is NULL", routine);
}

PSHM_API void pshmemx_space_create(shmemx_space_config_t config, shmemx_space_t *space)
{
    PSHM_CHECK_INIT("shmemx_space_create");
    const char *routine = "shmemx_space_create";
    if (!pshm_g.n_pes)
        pshm_fatal("%s: called before shmem_init", routine);
    if (!space)
        pshm_fatal("%s: space is NULL", routine);
    if (config.memkind == SHMEMX_SPACE_CUDA)
        pshm_fatal("%s: memkind SHMEMX_SPACE_CUDA needs accelerator support, which this build "
                   "of PlugSHMEM does not have; use SHMEMX_SPACE_HOST",
                   routine);
    if (config.memkind != SHMEMX_SPACE_HOST)
        pshm_fatal("%s: memkind %d is not known; use SHMEMX_SPACE_HOST", routine,
                   (int)config.memkind);
    if (!config.sheap_size)
        pshm_fatal("%s: sheap_size is 0", routine);
    if (config.num_contexts < 0)
        pshm_fatal("%s: num_contexts=%d is negative", routine, config.num_contexts);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    struct pshm_space *sp = calloc(1, sizeof *sp);
    if (!sp)
        pshm_fatal("%s: out of memory", routine);
    sp->seg = -1;
    sp->size = (config.sheap_size + pg - 1) & ~(pg - 1);
    sp->max_ctx = config.num_contexts;
    if (!(sp->base = pshm_segment_new_shared(sp->size, sp->name, pshm_g.my_pe)) ||
        !(sp->alloc = pshm_alloc_create(config.sheap_size, MIN_ALIGN)))
        pshm_fatal("%s: cannot make a %zu-byte space", routine, config.sheap_size);
    pthread_mutex_init(&sp->lock, NULL);
    pthread_mutex_lock(&spaces_lock);
    sp->next = all_spaces;
    all_spaces = sp;
    pthread_mutex_unlock(&spaces_lock);
    *space = sp;
}
#pragma weak shmemx_space_create = pshmemx_space_create

/* Whether any PE reaches some PE's part only through the transport. */
static int anyone_needs_transport(const char *routine)
{
    int mine = 0, n = pshm_g.n_pes;
    for (int pe = 0; pe < n; pe++)
        mine |= pshm_g.peer[pe].base[PSHM_SEG_HEAP] == NULL; /* a space goes where the heap does */
    int *all = malloc((size_t)n * sizeof *all);
    if (!all || pshm_boot.allgather(&mine, all, sizeof mine))
        pshm_fatal("%s: bootstrap exchange failed", routine);
    int any = 0;
    for (int pe = 0; pe < n; pe++)
        any |= all[pe];
    free(all);
    return any;
}

struct space_card {
    char name[PSHM_SEG_NAME_LEN];
    uint64_t size;
};

PSHM_API void pshmemx_space_attach(shmemx_space_t sp)
{
    PSHM_CHECK_INIT("shmemx_space_attach");
    const char *routine = "shmemx_space_attach";
    check_space(routine, sp);
    if (sp->seg >= 0)
        pshm_fatal("%s: the space is attached already", routine);
    int n = pshm_g.n_pes, me = pshm_g.my_pe, s = PSHM_NSEGS;
    while (s < PSHM_MAX_SEGS && attached[s])
        s++;
    if (s == PSHM_MAX_SEGS)
        pshm_fatal("%s: %d spaces are attached already, the most there can be", routine,
                   PSHM_MAX_SEGS - PSHM_NSEGS);
    pshm_quiet(&pshm_ctx_default);
    pshmem_barrier_all();
    struct space_card mine, *cards = calloc((size_t)n, sizeof *cards);
    memset(&mine, 0, sizeof mine);
    memcpy(mine.name, sp->name, sizeof mine.name);
    mine.size = sp->size;
    if (!cards || !(sp->peer = calloc((size_t)n, sizeof *sp->peer)) ||
        pshm_boot.allgather(&mine, cards, sizeof mine))
        pshm_fatal("%s: bootstrap exchange of the spaces failed", routine);
    for (int pe = 0; pe < n; pe++) {
        if (cards[pe].size != sp->size)
            pshm_fatal("%s: PE %d's space has %llu bytes, this PE's %zu: every PE must create "
                       "it with the same sheap_size",
                       routine, pe, (unsigned long long)cards[pe].size, sp->size);
        /* mapped where the heap is shared with that peer */
        if (pe == me)
            sp->peer[pe] = sp->base;
        else if (pshm_segment_mapping(pe, PSHM_SEG_HEAP) &&
                 !(sp->peer[pe] = pshm_segment_map_named(cards[pe].name, sp->size, pe)))
            pshm_fatal("%s: cannot map PE %d's space", routine, pe);
    }
    free(cards);
    if (pshm_boot.barrier())
        pshm_fatal("%s: bootstrap barrier failed", routine);
    shm_unlink(sp->name);
    sp->name[0] = '\0';
    pshm_space_parts[s] = sp->peer; /* routed as the heap is: pshm_route_base */
    if (anyone_needs_transport(routine)) {
        if (!pshm_g.tp->seg_register)
            pshm_fatal("%s: transport '%s' cannot register memory spaces (it has no "
                       "seg_register); spaces work over it only when every PE reaches every "
                       "other by load/store (one node, SHMEM_BYPASS=1)",
                       routine, pshm_transport_in_use);
        if (pshm_g.tp->seg_register(s, sp->base, sp->size))
            pshm_fatal("%s: transport '%s' could not register the space", routine,
                       pshm_transport_in_use);
        sp->registered = 1;
    }
    sp->seg = s;
    attached[s] = sp;
    __atomic_fetch_add(&pshm_g.nspaces, 1, __ATOMIC_RELEASE);
    pshmem_barrier_all();
}
#pragma weak shmemx_space_attach = pshmemx_space_attach

PSHM_API void pshmemx_space_detach(shmemx_space_t sp)
{
    PSHM_CHECK_INIT("shmemx_space_detach");
    const char *routine = "shmemx_space_detach";
    check_space(routine, sp);
    if (sp->seg < 0)
        pshm_fatal("%s: the space is not attached", routine);
    int s = sp->seg, n = pshm_g.n_pes;
    for (int i = 0; i < sp->nctx; i++)
        pshm_quiet(sp->ctx[i]);
    pshm_quiet(&pshm_ctx_default);
    pshmem_barrier_all();
    if (sp->registered)
        pshm_g.tp->seg_deregister(s);
    sp->registered = 0;
    attached[s] = NULL;
    __atomic_fetch_sub(&pshm_g.nspaces, 1, __ATOMIC_RELEASE);
    pshm_space_parts[s] = NULL;
    for (int pe = 0; pe < n; pe++) {
        if (sp->peer[pe] && pe != pshm_g.my_pe)
            munmap(sp->peer[pe], sp->size);
    }
    free(sp->peer);
    sp->peer = NULL;
    sp->seg = -1;
    pshmem_barrier_all();
}
#pragma weak shmemx_space_detach = pshmemx_space_detach

static void space_release(struct pshm_space *sp)
{
    if (sp->name[0])
        shm_unlink(sp->name);
    munmap(sp->base, sp->size);
    pshm_alloc_destroy(sp->alloc);
    free(sp->ctx);
    pthread_mutex_destroy(&sp->lock);
    free(sp);
}

PSHM_API void pshmemx_space_destroy(shmemx_space_t sp)
{
    PSHM_CHECK_INIT("shmemx_space_destroy");
    const char *routine = "shmemx_space_destroy";
    check_space(routine, sp);
    if (sp->seg >= 0)
        pshm_fatal("%s: the space is attached; shmemx_space_detach it first", routine);
    while (sp->nctx) /* each forgets itself (pshm_space_forget_ctx) */
        pshmem_ctx_destroy(sp->ctx[sp->nctx - 1]);
    pthread_mutex_lock(&spaces_lock);
    for (struct pshm_space **p = &all_spaces; *p; p = &(*p)->next)
        if (*p == sp) {
            *p = sp->next;
            break;
        }
    pthread_mutex_unlock(&spaces_lock);
    space_release(sp);
}
#pragma weak shmemx_space_destroy = pshmemx_space_destroy

/* A context of its own: its quiet completes what was issued on it, so a
 * program that sends the space's traffic through it completes that
 * traffic apart from the rest. */
PSHM_API int pshmemx_space_create_ctx(shmemx_space_t sp, long options, shmem_ctx_t *ctx)
{
    PSHM_CHECK_INIT("shmemx_space_create_ctx");
    check_space("shmemx_space_create_ctx", sp);
    if (sp->max_ctx && sp->nctx >= sp->max_ctx) {
        if (pshm_g.debug)
            pshm_error("shmemx_space_create_ctx: the space's num_contexts (%d) are all in use",
                       sp->max_ctx);
        *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    shmem_ctx_t *grown = realloc(sp->ctx, (size_t)(sp->nctx + 1) * sizeof *grown);
    if (!grown)
        return 1;
    sp->ctx = grown;
    int rc = pshmem_ctx_create(options, ctx);
    if (rc == 0) {
        (*ctx)->space = sp;
        pthread_mutex_lock(&sp->lock);
        sp->ctx[sp->nctx++] = *ctx;
        pthread_mutex_unlock(&sp->lock);
    }
    return rc;
}

void pshm_space_forget_ctx(struct pshm_space *sp, struct pshm_ctx *ctx)
{
    pthread_mutex_lock(&sp->lock);
    for (int i = 0; i < sp->nctx; i++)
        if (sp->ctx[i] == ctx) {
            sp->ctx[i] = sp->ctx[--sp->nctx];
            break;
        }
    pthread_mutex_unlock(&sp->lock);
}
#pragma weak shmemx_space_create_ctx = pshmemx_space_create_ctx

static void *space_alloc(const char *routine, struct pshm_space *sp, size_t size, size_t align,
                         int zero)
{
    check_space(routine, sp);
    size_t off;
    pthread_mutex_lock(&sp->lock);
    int rc = pshm_alloc_alloc(sp->alloc, size, align, &off);
    pthread_mutex_unlock(&sp->lock);
    void *p = NULL;
    if (rc == 0) {
        p = sp->base + off;
        if (zero)
            memset(p, 0, size);
    } else if (pshm_g.debug && pshm_g.my_pe == 0) {
        pshm_error("%s(%zu): out of memory in the space: %zu bytes free", routine, size,
                   pshm_alloc_free_bytes(sp->alloc));
    }
    pshmem_barrier_all();
    return p;
}

PSHM_API void *pshmemx_space_malloc(shmemx_space_t sp, size_t size)
{
    PSHM_CHECK_INIT("shmemx_space_malloc");
    return size ? space_alloc("shmemx_space_malloc", sp, size, 0, 0) : NULL;
}
#pragma weak shmemx_space_malloc = pshmemx_space_malloc

PSHM_API void *pshmemx_space_calloc(shmemx_space_t sp, size_t count, size_t size)
{
    PSHM_CHECK_INIT("shmemx_space_calloc");
    if (!count || !size || count > SIZE_MAX / size)
        return NULL;
    return space_alloc("shmemx_space_calloc", sp, count * size, 0, 1);
}
#pragma weak shmemx_space_calloc = pshmemx_space_calloc

PSHM_API void *pshmemx_space_align(shmemx_space_t sp, size_t alignment, size_t size)
{
    PSHM_CHECK_INIT("shmemx_space_align");
    if (!size || !alignment || (alignment & (alignment - 1)))
        return NULL;
    return space_alloc("shmemx_space_align", sp, size, alignment, 0);
}
#pragma weak shmemx_space_align = pshmemx_space_align

int pshm_space_free(void *ptr)
{
    struct pshm_space *sp;
    pthread_mutex_lock(&spaces_lock);
    for (sp = all_spaces; sp; sp = sp->next)
        if ((uintptr_t)ptr - (uintptr_t)sp->base < sp->size)
            break;
    pthread_mutex_unlock(&spaces_lock);
    if (!sp)
        return 0;
    pshmem_barrier_all();
    size_t off = (uintptr_t)ptr - (uintptr_t)sp->base;
    pthread_mutex_lock(&sp->lock);
    if (!pshm_alloc_block_size(sp->alloc, off) || pshm_alloc_free(sp->alloc, off))
        pshm_error("shmem_free(%p): not a block of its memory space, or freed already", ptr);
    pthread_mutex_unlock(&sp->lock);
    return 1;
}

void pshm_spaces_fini(void)
{
    pthread_mutex_lock(&spaces_lock);
    while (all_spaces) {
        struct pshm_space *sp = all_spaces;
        all_spaces = sp->next;
        if (sp->peer)
            for (int pe = 0; pe < pshm_g.n_pes; pe++)
                if (sp->peer[pe] && pe != pshm_g.my_pe)
                    munmap(sp->peer[pe], sp->size);
        free(sp->peer);
        space_release(sp);
    }
    for (int s = 0; s < PSHM_MAX_SEGS; s++) {
        attached[s] = NULL;
        pshm_space_parts[s] = NULL;
    }
    pshm_g.nspaces = 0;
    pthread_mutex_unlock(&spaces_lock);
}
