/* Communication contexts.  A context owns a transport context (its own
 * network resources, so a private context needs no lock) and, for a team
 * context, the team's PE numbering. */
#include <pthread.h>
#include <stdlib.h>

#include "api.h"
#include "error.h"
#include "space.h"
#include "team.h"

static struct pshm_ctx *all_ctx;
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

static int create(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    const long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    *ctx = SHMEM_CTX_INVALID;
    if (!team || team->my_pe < 0 || (options & ~known))
        return 1;
    struct pshm_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return 1;
    if (pshm_g.tp->ctx_create(options, &c->t)) {
        free(c);
        return 1;
    }
    c->team = team;
    c->pe_world = team->world;
    c->team_n_pes = team->n_pes;
    c->options = options;
    pthread_mutex_lock(&all_lock);
    c->next = all_ctx;
    all_ctx = c;
    pthread_mutex_unlock(&all_lock);
    *ctx = c;
    return 0;
}

PSHM_API int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    PSHM_CHECK_INIT("shmem_ctx_create");
    return create(SHMEM_TEAM_WORLD, options, ctx);
}
#pragma weak shmem_ctx_create = pshmem_ctx_create

PSHM_API int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    PSHM_CHECK_INIT("shmem_team_create_ctx");
    return create(team, options, ctx);
}
#pragma weak shmem_team_create_ctx = pshmem_team_create_ctx

PSHM_API void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    PSHM_CHECK_INIT("shmem_ctx_destroy");
    if (!ctx)
        return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        pshm_error("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed; ignored");
        return;
    }
    pshm_quiet(ctx);
    pthread_mutex_lock(&all_lock);
    for (struct pshm_ctx **p = &all_ctx; *p; p = &(*p)->next)
        if (*p == ctx) {
            *p = ctx->next;
            break;
        }
    pthread_mutex_unlock(&all_lock);
    if (ctx->space)
        pshm_space_forget_ctx(ctx->space, ctx);
    pshm_g.tp->ctx_destroy(ctx->t);
    free(ctx);
}

void pshm_ctx_destroy_team(struct pshm_team *team)
{
    for (;;) {
        struct pshm_ctx *victim = NULL;
        pthread_mutex_lock(&all_lock);
        for (struct pshm_ctx *c = all_ctx; c && !victim; c = c->next)
            if (c->team == team && !(c->options & SHMEM_CTX_PRIVATE))
                victim = c;
        pthread_mutex_unlock(&all_lock);
        if (!victim)
            return;
        pshmem_ctx_destroy(victim);
    }
}
#pragma weak shmem_ctx_destroy = pshmem_ctx_destroy

PSHM_API int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    PSHM_CHECK_INIT("shmem_ctx_get_team");
    if (!team)
        return 1;
    if (!ctx) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx->team ? ctx->team : SHMEM_TEAM_WORLD;
    return 0;
}
#pragma weak shmem_ctx_get_team = pshmem_ctx_get_team

/* Sessions are hints; every operation already completes as it should. */
PSHM_API void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                       const shmem_ctx_session_config_t *config, long config_mask)
{
    PSHM_CHECK_INIT("shmem_ctx_session_start");
    (void)ctx;
    (void)options;
    (void)config;
    (void)config_mask;
}
#pragma weak shmem_ctx_session_start = pshmem_ctx_session_start

PSHM_API void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    PSHM_CHECK_INIT("shmem_ctx_session_stop");
    if (ctx)
        pshm_quiet(ctx);
}
#pragma weak shmem_ctx_session_stop = pshmem_ctx_session_stop

PSHM_API void pshmem_pcontrol(int level, ...) { (void)level; }
#pragma weak shmem_pcontrol = pshmem_pcontrol
