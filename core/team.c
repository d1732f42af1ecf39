/* Teams.  SHMEM_TEAM_SHARED holds the PEs whose heaps this PE maps: with
 * the bypass on, every PE of this node; with it off, this PE alone.
 *
 * A split agrees on its outcome with one OR-reduction over the parent
 * team of two words: the bitmap of team slots in use on each parent member
 * and an error bit.  Every parent member then sees the same free slot(s)
 * and the same success or failure, and the new team's symmetric state is
 * already zero on every member (slots are zeroed when freed). */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "coll_layer.h"
#include "error.h"
#include "init.h"
#include "team.h"

struct pshm_team pshm_team_world PSHM_API;
struct pshm_team pshm_team_shared PSHM_API;

static uint64_t slots_used; /* bit s: slot s holds a team of this PE */

int pshm_team_mapped(int w)
{
    return w == pshm_g.my_pe || pshm_g.peer[w].base[PSHM_SEG_HEAP] != NULL;
}

void pshm_team_finish(struct pshm_team *t)
{
    t->all_mapped = 1;
    for (int i = 0; i < t->n_pes; i++)
        if (!pshm_team_mapped(pshm_team_world_pe(t, i)))
            t->all_mapped = 0;
    pshm_coll_layer.team_attach(t); /* after all_mapped, which it reads */
    if (t->world) {
        t->start = t->world[0];
        t->stride = t->n_pes > 1 ? t->world[1] - t->world[0] : 1;
        t->strided = t->stride != 0;
        for (int i = 0; i < t->n_pes && t->strided; i++)
            if (t->world[i] != t->start + i * t->stride)
                t->strided = 0;
    } else {
        t->start = 0;
        t->stride = 1;
        t->strided = 1;
    }
}

static int lowest_free(uint64_t used, int skip)
{
    for (int s = 0; s < PSHM_TEAM_SLOTS; s++)
        if (!(used >> s & 1) && s != skip)
            return s;
    return -1;
}

int pshm_team_index_of(const struct pshm_team *t, int w)
{
    if (!t->world)
        return w >= 0 && w < t->n_pes ? w : -1;
    if (t->strided) {
        int d = w - t->start;
        if (d % t->stride)
            return -1;
        d /= t->stride;
        return d >= 0 && d < t->n_pes ? d : -1;
    }
    for (int i = 0; i < t->n_pes; i++)
        if (t->world[i] == w)
            return i;
    return -1;
}

void pshm_teams_init(void)
{
    memset(&pshm_team_world, 0, sizeof pshm_team_world);
    pshm_team_world.my_pe = pshm_g.my_pe;
    pshm_team_world.n_pes = pshm_g.n_pes;
    pshm_team_world.world = NULL;
    pshm_team_world.slot = PSHM_TEAM_SLOT_WORLD;
    pshm_team_world.predefined = 1;
    pshm_team_finish(&pshm_team_world);

    int n = 0;
    int *w = malloc(sizeof(int) * (size_t)pshm_g.n_pes);
    if (!w)
        pshm_fatal("shmem_init: out of memory for SHMEM_TEAM_SHARED");
    for (int r = 0; r < pshm_g.n_pes; r++)
        if (pshm_team_mapped(r))
            w[n++] = r;
    memset(&pshm_team_shared, 0, sizeof pshm_team_shared);
    pshm_team_shared.world = w;
    pshm_team_shared.n_pes = n;
    pshm_team_shared.my_pe = -1;
    for (int i = 0; i < n; i++)
        if (w[i] == pshm_g.my_pe)
            pshm_team_shared.my_pe = i;
    pshm_team_shared.slot = PSHM_TEAM_SLOT_SHARED;
    pshm_team_shared.predefined = 1;
    pshm_team_finish(&pshm_team_shared);
    slots_used = (1u << PSHM_TEAM_SLOT_WORLD) | (1u << PSHM_TEAM_SLOT_SHARED);
    pshm_coll_layer.init();
    /* The same two slots on every PE: nothing else holds one yet. */
    int a = lowest_free(slots_used, -1), b = lowest_free(slots_used, a);
    if (pshm_coll_layer.node_aware_create(&pshm_team_world, a, b)) {
        pshm_team_world.sub_slots = (uint64_t)1 << a | (uint64_t)1 << b;
        slots_used |= pshm_team_world.sub_slots;
    }
}

void pshm_teams_fini(void)
{
    pshm_coll_layer.node_aware_destroy(&pshm_team_world, 0);
    pshm_coll_layer.fini();
    free(pshm_team_shared.world);
    pshm_team_shared.world = NULL;
}

/* ---- queries ------------------------------------------------------------ */

PSHM_API int pshmem_team_my_pe(shmem_team_t team)
{
    PSHM_CHECK_INIT("shmem_team_my_pe");
    return team ? team->my_pe : -1;
}
#pragma weak shmem_team_my_pe = pshmem_team_my_pe

PSHM_API int pshmem_team_n_pes(shmem_team_t team)
{
    PSHM_CHECK_INIT("shmem_team_n_pes");
    return team ? team->n_pes : -1;
}
#pragma weak shmem_team_n_pes = pshmem_team_n_pes

PSHM_API int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    PSHM_CHECK_INIT("shmem_team_get_config");
    if (!team)
        return -1;
    if (!config_mask)
        return 0;
    if (!config || (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS))
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
#pragma weak shmem_team_get_config = pshmem_team_get_config

PSHM_API int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    PSHM_CHECK_INIT("shmem_team_translate_pe");
    if (!src_team || !dest_team || src_pe < 0 || src_pe >= src_team->n_pes)
        return -1;
    return pshm_team_index_of(dest_team, pshm_team_world_pe(src_team, src_pe));
}
#pragma weak shmem_team_translate_pe = pshmem_team_translate_pe

/* ---- creation and destruction ------------------------------------------- */

/* A new member team: n members, member i = parent member first + i*step. */
static struct pshm_team *new_team(shmem_team_t parent, int first, int step, int n, int me,
                                  const shmem_team_config_t *config, long mask)
{
    struct pshm_team *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->world = malloc(sizeof(int) * (size_t)n);
    if (!t->world) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        t->world[i] = pshm_team_world_pe(parent, first + i * step);
    t->n_pes = n;
    t->my_pe = me;
    t->config_mask = mask & SHMEM_TEAM_NUM_CONTEXTS;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    return t;
}

static void free_team(struct pshm_team *t)
{
    if (t) {
        free(t->world);
        free(t);
    }
}

/* Agrees over the parent on nslots free slots and on whether every PE
 * succeeded so far (err).  Returns 0 and the slots, or -1 everywhere.
 * With sub set (a parent spanning nodes), each new team also gets the two
 * slots a node-aware team needs, if that many are free: slot[nslots +
 * 2i], slot[nslots + 2i + 1] for team i, or -1. */
static int agree(shmem_team_t parent, int err, int nslots, int sub, int slot[6])
{
    uint64_t w[2] = {slots_used, err ? 1u : 0u};
    if (pshm_coll_layer.or_u64(parent, w, 2) || w[1])
        return -1;
    uint64_t used = w[0];
    for (int i = 0; i < nslots * (sub ? 3 : 1); i++) {
        slot[i] = lowest_free(used, -1);
        if (slot[i] < 0 && i < nslots)
            return -1;
        if (slot[i] >= 0)
            used |= (uint64_t)1 << slot[i];
    }
    /* Half the slots stay for flat teams: a node-aware team takes three,
     * and a program that makes many teams must still get at least 32. */
    int left = PSHM_TEAM_SLOTS - __builtin_popcountll(w[0]) - nslots;
    for (int i = 0; sub && i < nslots; i++, left -= 2)
        if (slot[nslots + 2 * i] < 0 || slot[nslots + 2 * i + 1] < 0 ||
            left - 2 < PSHM_TEAM_SLOTS / 2)
            slot[nslots + 2 * i] = slot[nslots + 2 * i + 1] = -1;
    return 0;
}

/* Makes t node-aware in the slots agree() found for it, if it spans nodes. */
static void node_aware(struct pshm_team *t, const int *sub_slot)
{
    if (sub_slot[0] < 0 || !pshm_coll_layer.node_aware_create(t, sub_slot[0], sub_slot[1]))
        return;
    t->sub_slots = (uint64_t)1 << sub_slot[0] | (uint64_t)1 << sub_slot[1];
    slots_used |= t->sub_slots;
}

static int activate(struct pshm_team *t, int slot)
{
    t->slot = slot;
    slots_used |= (uint64_t)1 << slot;
    pshm_team_finish(t);
    return pshm_coll_layer.team_create(t);
}

PSHM_API int pshmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask,
                                       shmem_team_t *new_team_out)
{
    PSHM_CHECK_INIT("shmem_team_split_strided");
    if (new_team_out)
        *new_team_out = SHMEM_TEAM_INVALID;
    if (!parent || parent->my_pe < 0 || !new_team_out)
        return -1;
    int n = parent->n_pes;
    long last = (long)start + (long)(size - 1) * stride;
    /* Arguments are the same on every PE: so is this verdict. */
    if (size <= 0 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size != 1))
        return -1;
    int me = -1, d = parent->my_pe - start;
    if (stride == 0)
        me = d == 0 ? 0 : -1;
    else if (d % stride == 0 && d / stride >= 0 && d / stride < size)
        me = d / stride;
    struct pshm_team *t = NULL;
    int err = 0;
    if (me >= 0 && !(t = new_team(parent, start, stride, size, me, config, config_mask)))
        err = 1;
    int slot[6], sub = !parent->all_mapped;
    if (agree(parent, err, 1, sub, slot)) {
        free_team(t);
        return -1;
    }
    /* A component failing to set up its state fails alone: the return codes
     * of a split must agree, so it is told through one more agreement. */
    int cerr = t ? activate(t, slot[0]) : 0;
    if (t && sub)
        node_aware(t, &slot[1]);
    if (pshm_coll_layer.team_state()) {
        uint64_t w = (uint64_t)cerr;
        if (pshm_coll_layer.or_u64(parent, &w, 1) || w) {
            if (t)
                pshmem_team_destroy(t);
            return -1;
        }
    }
    *new_team_out = t ? t : SHMEM_TEAM_INVALID;
    return 0;
}
#pragma weak shmem_team_split_strided = pshmem_team_split_strided

PSHM_API int pshmem_team_split_2d(shmem_team_t parent, int xrange,
                                  const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                  shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                  long yaxis_mask, shmem_team_t *yaxis_team)
{
    PSHM_CHECK_INIT("shmem_team_split_2d");
    if (xaxis_team)
        *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team)
        *yaxis_team = SHMEM_TEAM_INVALID;
    if (!parent || parent->my_pe < 0 || !xaxis_team || !yaxis_team || xrange <= 0)
        return -1;
    int n = parent->n_pes, me = parent->my_pe;
    if (xrange > n)
        xrange = n;
    int yrange = (n + xrange - 1) / xrange;
    int x = me % xrange, y = me / xrange;
    int xn = y == yrange - 1 ? n - y * xrange : xrange; /* the last row may be short */
    int yn = (n - 1 - x) / xrange + 1;
    struct pshm_team *tx = new_team(parent, y * xrange, 1, xn, x, xaxis_config, xaxis_mask);
    struct pshm_team *ty = new_team(parent, x, xrange, yn, y, yaxis_config, yaxis_mask);
    int slot[6], sub = !parent->all_mapped;
    if (agree(parent, !tx || !ty, 2, sub, slot)) {
        free_team(tx);
        free_team(ty);
        return -1;
    }
    int cerr = activate(tx, slot[0]);
    cerr |= activate(ty, slot[1]);
    if (sub) {
        node_aware(tx, &slot[2]);
        node_aware(ty, &slot[4]);
    }
    if (pshm_coll_layer.team_state()) {
        uint64_t w = (uint64_t)cerr;
        if (pshm_coll_layer.or_u64(parent, &w, 1) || w) {
            pshmem_team_destroy(tx);
            pshmem_team_destroy(ty);
            return -1;
        }
    }
    *xaxis_team = tx;
    *yaxis_team = ty;
    return 0;
}
#pragma weak shmem_team_split_2d = pshmem_team_split_2d

PSHM_API void pshmem_team_destroy(shmem_team_t team)
{
    PSHM_CHECK_INIT("shmem_team_destroy");
    pshm_coll_layer.team_forget(team);
    if (!team || team->predefined)
        return;
    /* The specification destroys the team's shareable contexts with it;
     * private ones are the user's to destroy first. */
    pshm_ctx_destroy_team(team);
    if (team->my_pe >= 0) {
        pshm_coll_layer.team_detach(team);
        pshm_coll_layer.node_aware_destroy(team, 1);
        slots_used &= ~((uint64_t)1 << team->slot | team->sub_slots);
    }
    free_team(team);
}
#pragma weak shmem_team_destroy = pshmem_team_destroy
