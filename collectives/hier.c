/*
 * Node-aware collectives: a team whose members sit on several nodes, some
 * of them with more than one member, runs each collective in three
 * phases:
 *   on-node   by load/store among the members of each node (the native
 *             algorithms on a sub-team whose members are all mapped)
 *   leaders   one exchange among one member per node (its lowest team
 *             index), over the transport
 *   on-node   the result handed from each leader to its node
 * so that the network carries one participant per node instead of every
 * PE, and what stays on a node never waits on the network.
 *
 * The two sub-teams (this PE's node, and the leaders) are made when the
 * team is, each in a team slot of its own: node sub-teams of different
 * nodes share one slot index (their members are disjoint), the leaders
 * another.  A sub-team runs the native algorithms with their own flags,
 * scratch and ordering rules, so each phase is exactly a collective of
 * its own on its own slot, and every PE runs the same sequence of
 * sub-team collectives per call, which is what those rules need.
 *
 * Alltoall, alltoalls, collect and scan have no leaders' phase: their data
 * differ per pair of PEs, so a leader would forward every byte once more.
 * Collect and scan stay flat (collect's closing barrier is this file's).
 * Alltoall, where the transport has messages, goes straight from PE to PE:
 * by load/store within a node, one message across, then the node's
 * barrier; without messages it stays flat too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll.h"
#include "coll_state.h"
#include "coll_config.h"
#include "config.h"
#include "error.h"
#include "hier.h"
#include "native_msg.h"
#include "init.h"

struct pshm_hier {
    struct pshm_team node;    /* this PE's node; member 0 is the node's leader */
    struct pshm_team leaders; /* each node's leader, by team index; my_pe -1 off it */
    int *node_of;             /* team member -> its node's index among the leaders */
    int *local_of;            /* team member -> its index in its node (mine: node.my_pe) */
};

/* The lowest team index of a member on this PE's node. */
static int my_leader(const struct pshm_team *t)
{
    for (int i = 0; i < t->n_pes; i++)
        if (pshm_team_mapped(pshm_team_world_pe(t, i)))
            return i;
    return t->my_pe;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        pshm_fatal("shmem_team: out of memory for the node map of a team of %zu PEs", n);
    return p;
}

static void sub_free(struct pshm_team *s)
{
    free(s->world);
    s->world = NULL;
}

int pshm_hier_create(struct pshm_team *t, int node_slot, int lead_slot)
{
    int n = t->n_pes;
    /* With the bypass off no PE maps another: every node holds one
     * member, as far as the collectives can tell, and that needs no
     * reduction to know (SHMEM_BYPASS is the same on every PE). */
    if (t->my_pe < 0 || t->all_mapped || n < 3 || !pshm_cfg.bypass)
        return 0;
    /* Every member learns every member's leader: one OR over the team of a
     * word per member, each PE filling its own. */
    uint64_t *v = xcalloc((size_t)n, sizeof *v);
    v[t->my_pe] = (uint64_t)my_leader(t) + 1;
    /* A PE with SHMEM_COLL_NODE_AWARE=0 keeps the whole team flat. */
    const uint64_t flat = (uint64_t)1 << 62;
    if (!pshm_coll_cfg.node_aware)
        v[t->my_pe] |= flat;
    int nflat = 0, nl = 0;
    if (pshm_coll_or_u64(t, v, (size_t)n)) {
        free(v);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        nflat += (v[i] & flat) != 0;
        nl += (int)v[i] - 1 == i;
    }
    /* Flat when asked, or when every node holds one member: the leaders'
     * algorithm would then be the flat one with empty phases around it,
     * on messages where the transport has them (every member knows now
     * that no other is mapped anywhere). */
    if (nflat || nl == n) {
        free(v);
        if (!nflat)
            t->msg = pshm_coll_msg_usable(t);
        return 0;
    }
    struct pshm_hier *h = xcalloc(1, sizeof *h);
    int *lead_w = xcalloc((size_t)nl, sizeof(int)), *node_w = xcalloc((size_t)n, sizeof(int));
    int *node_of = xcalloc((size_t)n, sizeof(int)), *local_of = xcalloc((size_t)n, sizeof(int));
    int *count = xcalloc((size_t)n, sizeof(int)), nn = 0;
    /* Nodes numbered by their leaders' team order (a leader precedes its
     * node's other members), members numbered within their node. */
    for (int i = 0, k = 0; i < n; i++) {
        int l = (int)v[i] - 1;
        node_of[i] = l == i ? k++ : node_of[l];
        local_of[i] = count[l]++;
    }
    free(count);
    int me_leader = -1, my_lead = (int)v[t->my_pe] - 1;
    for (int i = 0; i < n; i++) {
        int l = (int)v[i] - 1;
        if (l == i) {
            if (i == t->my_pe)
                me_leader = node_of[i];
            lead_w[node_of[i]] = pshm_team_world_pe(t, i);
        }
        if (l == my_lead)
            node_w[nn++] = pshm_team_world_pe(t, i);
    }
    free(v);
    h->node.world = node_w;
    h->node.n_pes = nn;
    h->node.my_pe = local_of[t->my_pe];
    h->node.slot = node_slot;
    h->leaders.world = lead_w;
    h->leaders.n_pes = nl;
    h->leaders.my_pe = me_leader;
    h->leaders.slot = lead_slot;
    h->node_of = node_of;
    h->local_of = local_of;
    h->node.sub = h->leaders.sub = 1;
    pshm_team_finish(&h->node);
    pshm_team_finish(&h->leaders);
    /* One per node: every leader reaches the others through the transport. */
    h->leaders.msg = pshm_coll_msg_usable(&h->leaders);
    t->hier = h;
    return 1;
}

void pshm_hier_destroy(struct pshm_team *t, int collective)
{
    struct pshm_hier *h = t->hier;
    if (!h)
        return;
    if (collective) {
        pshm_coll_team_detach(&h->node);
        if (h->leaders.my_pe >= 0)
            pshm_coll_team_detach(&h->leaders);
    }
    sub_free(&h->node);
    sub_free(&h->leaders);
    free(h->node_of);
    free(h->local_of);
    free(h);
    t->hier = NULL;
}

int pshm_hier_nodes(const struct pshm_team *t)
{
    return t->hier ? t->hier->leaders.n_pes : 0;
}

static int leader(const struct pshm_hier *h) { return h->leaders.my_pe >= 0; }

_Thread_local int pshm_coll_on_node;

/* The on-node phases.  Their flags are stored by the node's PEs, so their
 * waits poll the transport only now and then (core/sync.c): when PEs
 * share cores, a waiting member's polls take turns from its leader, which
 * waits for the network. */
static int node_barrier(struct pshm_hier *h)
{
    pshm_coll_on_node = 1;
    int rc = pshm_native_barrier(&h->node);
    pshm_coll_on_node = 0;
    return rc;
}

static int node_broadcast(struct pshm_hier *h, void *dest, const void *src, size_t nbytes,
                          int root)
{
    pshm_coll_on_node = 1;
    int rc = pshm_native_broadcast(&h->node, dest, src, nbytes, root);
    pshm_coll_on_node = 0;
    return rc;
}

static void node_reduce(struct pshm_hier *h, void *tmp, const void *src, size_t count,
                        const struct pshm_red *r)
{
    pshm_coll_on_node = 1;
    pshm_native_reduce_private(&h->node, tmp, src, count, r);
    pshm_coll_on_node = 0;
}

int pshm_hier_barrier(struct pshm_team *t)
{
    struct pshm_hier *h = t->hier;
    coll_enter(t);
    node_barrier(h);
    if (leader(h))
        pshm_native_barrier(&h->leaders);
    return node_barrier(h);
}

/*
 * The root's node gets the data from the root, its leader passes it to the
 * other leaders, and they to their nodes.  The root may return before the
 * others have the data; the team is then left open (coll_state.h), as a
 * flat broadcast leaves it.
 */
int pshm_hier_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    struct pshm_hier *h = t->hier;
    coll_enter(t);
    int rnode = h->node_of[root];
    if (rnode == h->node_of[t->my_pe]) {
        node_broadcast(h, dest, src, nbytes, h->local_of[root]);
        if (leader(h))
            pshm_native_broadcast(&h->leaders, dest, dest, nbytes, rnode);
    } else {
        if (leader(h))
            pshm_native_broadcast(&h->leaders, dest, dest, nbytes, rnode);
        node_broadcast(h, dest, dest, nbytes, 0);
    }
    t->sym->l.bcast_open = 1;
    return 0;
}

/*
 * Each node reduces into a private buffer, the leaders reduce their nodes'
 * results in their dest, and each leader broadcasts to its node.  No
 * member's dest is written before the last phase: a member may still read
 * its source (dest itself, in place) until its node's reduction is done.
 */
int pshm_hier_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r)
{
    struct pshm_hier *h = t->hier;
    size_t bytes = count * r->esize;
    coll_enter(t);
    unsigned char small[256] __attribute__((aligned(16)));
    unsigned char *tmp = bytes <= sizeof small ? small : malloc(bytes);
    if (!tmp)
        pshm_fatal("%s: out of memory for %zu bytes of a reduction", pshm_coll_routine, bytes);
    node_reduce(h, tmp, src, count, r);
    if (leader(h)) {
        memcpy(dest, tmp, bytes);
        pshm_native_reduce(&h->leaders, dest, dest, count, r);
    }
    if (tmp != small)
        free(tmp);
    return node_broadcast(h, dest, dest, bytes, 0);
}

/* The leaders' phase of fcollect by messages: each leader sends its
 * node's blocks, packed, to every other leader in one message, and
 * unpacks theirs. */
static void leaders_exchange(struct pshm_team *t, void *dest, size_t nbytes)
{
    struct pshm_hier *h = t->hier;
    int n = t->n_pes, nl = h->leaders.n_pes, mine = h->leaders.my_pe;
    /* Node j's blocks at off[j], len[j] bytes, in team order; at[] walks them. */
    size_t *off = calloc(3 * (size_t)nl, sizeof *off), *len = off + nl, *at = len + nl;
    char *packed = malloc((size_t)n * nbytes + 1);
    if (!off || !packed)
        pshm_fatal("%s: out of memory for %d PEs' blocks", pshm_coll_routine, n);
    for (int i = 0; i < n; i++)
        len[h->node_of[i]] += nbytes;
    for (int j = 1; j < nl; j++)
        off[j] = off[j - 1] + len[j - 1];
    memcpy(at, off, (size_t)nl * sizeof *at);
    for (int i = 0; i < n; i++)
        if (h->node_of[i] == mine) {
            memcpy(packed + at[mine], (char *)dest + (size_t)i * nbytes, nbytes);
            at[mine] += nbytes;
        }
    pshm_msg_fcollectv(&h->leaders, packed, off, len);
    memcpy(at, off, (size_t)nl * sizeof *at);
    for (int i = 0; i < n; i++) {
        int j = h->node_of[i];
        if (j != mine)
            memcpy((char *)dest + (size_t)i * nbytes, packed + at[j], nbytes);
        at[j] += nbytes;
    }
    free(packed);
    free(off);
}

/*
 * Each member stores its block into its leader's dest (mapped), the
 * leaders send their nodes' blocks to each other and meet, and each
 * leader broadcasts the whole result to its node.
 */
int pshm_hier_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    struct pshm_hier *h = t->hier;
    int n = t->n_pes, me = t->my_pe;
    coll_enter_writing(t);
    int lw = h->node.world[0];
    char *ld = lw == pshm_g.my_pe ? (char *)dest : pshm_mapped(dest, lw);
    if (!ld)
        pshm_fatal("%s: the leader's dest is not mapped", pshm_coll_routine);
    if (nbytes)
        memmove(ld + (size_t)me * nbytes, src, nbytes);
    node_barrier(h);
    if (leader(h) && h->leaders.msg) {
        leaders_exchange(t, dest, nbytes);
    } else if (leader(h)) {
        int my_node = h->node_of[me];
        for (int j = 1; j < h->leaders.n_pes; j++) {
            int w = h->leaders.world[(h->leaders.my_pe + j) % h->leaders.n_pes];
            for (int i = 0; i < n; i++)
                if (h->node_of[i] == my_node && nbytes)
                    coll_put((char *)dest + (size_t)i * nbytes, (char *)dest + (size_t)i * nbytes,
                             nbytes, w);
        }
        /* Delivered, not only ordered before this PE's flags: the barrier
         * may release a leader through another one (a tree's root). */
        coll_complete();
        pshm_native_barrier(&h->leaders);
    }
    return node_broadcast(h, dest, dest, (size_t)n * nbytes, 0);
}

/*
 * Each pair exchanges directly: a store into a mapped member's dest, a
 * message to any other (where a flat put would need a fence and a flag
 * per peer over the network).  The node's barrier closes it: every
 * store on the node is done, and with every message received, every
 * member has entered the call, as the next call's writes need.
 */
int pshm_hier_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems, size_t esize)
{
    coll_enter_writing(t);
    pshm_msg_alltoalls_direct(t, dest, src, dst, sst, nelems, esize);
    /* Not node_barrier: this PE's messages may still need its polls to
     * leave (a provider's queue); over ofi tcp, polled only now and then
     * here, the 8-byte alltoall went from 57-62 us to 93-142. */
    return pshm_native_barrier(&t->hier->node);
}

static void print_sizes(FILE *out, const struct pshm_hier *h, int n)
{
    int nl = h->leaders.n_pes;
    int *size = calloc((size_t)nl, sizeof(int));
    if (!size)
        return;
    for (int i = 0; i < n; i++)
        size[h->node_of[i]]++;
    for (int j = 0; j < nl; j++)
        fprintf(out, "%s%d", j ? " + " : "", size[j]);
    free(size);
}

void pshm_hier_info(FILE *out)
{
    fprintf(out, "Node-aware collectives (a team spanning nodes, some with several of its PEs):\n"
                 "  barrier, broadcast, reductions, fcollect: on-node phase by load/store, one "
                 "exchange among one leader per node, on-node phase;\n"
                 "  alltoall, alltoalls: PE to PE, by load/store on a node and a message across "
                 "(where the transport has messages), then the node's barrier;\n"
                 "  collect, scans: flat over the whole team\n");
    if (!pshm_is_initialized())
        return;
    const struct pshm_team *w = &pshm_team_world;
    if (!w->hier) {
        fprintf(out, "  SHMEM_TEAM_WORLD: flat (%s)%s%s\n",
                w->all_mapped ? "on one node" : "one PE per node, or the bypass off",
                w->msg ? ", by the transport's messages; barrier, reductions, fcollect: " : "",
                w->msg ? pshm_msg_shape(w) : "");
        return;
    }
    fprintf(out, "  SHMEM_TEAM_WORLD: %d nodes of ", w->hier->leaders.n_pes);
    print_sizes(out, w->hier, w->n_pes);
    if (w->hier->leaders.msg)
        fprintf(out, " PEs; leaders' phase by the transport's messages: barrier and reductions "
                     "%s, broadcast binomial, fcollect one packed message per pair of leaders\n",
                pshm_msg_shape(&w->hier->leaders));
    else
        fprintf(out, " PEs; leaders' phase by puts and flags: barrier dissemination, broadcast "
                     "eager binomial (binomial past %d bytes), reduce recursive doubling (ring "
                     "for long vectors), fcollect direct puts\n",
                PSHM_INLINE_MAX);
}
