/*
 * Symmetric-heap allocator: address-ordered first fit over two AVL trees.
 *
 * Data structure.  Free ranges and live blocks are each kept in an AVL tree
 * keyed by offset.  Every node of the free tree also carries the largest
 * range length in its subtree ("maxlen"), which turns first fit into a
 * descent that skips every subtree too small to hold the request, so the
 * common allocation costs O(log n) no matter how fragmented the heap is.
 * The live tree gives O(log n) lookup of a block by offset for free, realloc
 * and block_size.  An AVL tree was chosen over a skip list or sorted arrays
 * because it is deterministic by construction (no random levels to derive),
 * has O(log n) worst-case insert and delete (sorted arrays would memmove
 * O(n) entries per call with 100k blocks), and the augmentation is a one-line
 * recomputation in the same place the height is.  Both trees use one node
 * type; the live tree maintains maxlen too, which is cheaper than a second
 * set of tree routines and harmless.
 *
 * Determinism.  Nodes are ordered by offset only and the tree shape depends
 * only on the sequence of inserts and deletes, so the result of every call
 * is a function of the call history alone.  Node addresses are never
 * compared.
 *
 * Invariants (checked by pshm_alloc_check):
 *  - free ranges and live blocks together tile [0, size) exactly;
 *  - no two free ranges are adjacent (coalescing is immediate);
 *  - every range starts at a multiple of min_align and has a length that is
 *    a multiple of min_align, except that the one reaching `size` may be
 *    shorter by the heap's partial last granule.  A request is rounded up to
 *    min_align but clamped to the end of the heap, which is what lets an
 *    allocation of exactly `size` succeed when size is not a multiple of
 *    min_align.
 */
#include "alloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct node node;
struct node {
    size_t off;
    size_t len;
    size_t maxlen; /* max len in this subtree; drives the first-fit descent */
    node *l, *r;
    int h; /* height of the subtree, a leaf is 1 */
};

/* Spare nodes kept for reuse.  Merging frees nodes and splitting needs
 * them, so a small cache saves most malloc/free pairs; the cap keeps a
 * burst of frees from pinning memory forever. */
#define SPARE_MAX 64

/* Deep enough for any AVL tree whose nodes fit in memory (an AVL tree of
 * height h has more than 1.6^h nodes). */
#define STACK_MAX 128

struct pshm_alloc {
    size_t size;
    size_t min_align;
    node *free_root;
    node *live_root;
    size_t free_bytes;
    size_t nfree; /* number of free ranges */
    size_t nlive;
    node *spare; /* linked through ->l */
    size_t nspare;
};

/* ---- node cache -------------------------------------------------------- */

static node *node_get(pshm_alloc *a) {
    node *n = a->spare;
    if (n) {
        a->spare = n->l;
        a->nspare--;
        return n;
    }
    return malloc(sizeof *n);
}

static void node_put(pshm_alloc *a, node *n) {
    if (a->nspare >= SPARE_MAX) {
        free(n);
        return;
    }
    n->l = a->spare;
    a->spare = n;
    a->nspare++;
}

/* ---- AVL tree keyed by offset, augmented with subtree max length --------- */

static int height(const node *n) { return n ? n->h : 0; }
static size_t maxlen(const node *n) { return n ? n->maxlen : 0; }
static size_t zmax(size_t x, size_t y) { return x > y ? x : y; }

/* Recomputes n's height and maxlen from its children. */
static void pull(node *n) {
    int hl = height(n->l), hr = height(n->r);
    n->h = 1 + (hl > hr ? hl : hr);
    n->maxlen = zmax(n->len, zmax(maxlen(n->l), maxlen(n->r)));
}

static node *rot_right(node *n) {
    node *l = n->l;
    n->l = l->r;
    l->r = n;
    pull(n);
    pull(l);
    return l;
}

static node *rot_left(node *n) {
    node *r = n->r;
    n->r = r->l;
    r->l = n;
    pull(n);
    pull(r);
    return r;
}

/* Restores the AVL property at n after one of its subtrees changed height
 * by at most one, and refreshes its annotations either way. */
static node *rebalance(node *n) {
    pull(n);
    int bf = height(n->l) - height(n->r);
    if (bf > 1) {
        if (height(n->l->l) < height(n->l->r)) n->l = rot_left(n->l);
        return rot_right(n);
    }
    if (bf < -1) {
        if (height(n->r->r) < height(n->r->l)) n->r = rot_right(n->r);
        return rot_left(n);
    }
    return n;
}

/* Inserts x (off and len set, key not yet present); returns the new root. */
static node *tree_insert(node *t, node *x) {
    if (!t) {
        x->l = x->r = NULL;
        pull(x);
        return x;
    }
    if (x->off < t->off)
        t->l = tree_insert(t->l, x);
    else
        t->r = tree_insert(t->r, x);
    return rebalance(t);
}

static node *tree_remove_min(node *t, node **min) {
    if (!t->l) {
        *min = t;
        return t->r;
    }
    t->l = tree_remove_min(t->l, min);
    return rebalance(t);
}

/* Unlinks the node with key off (which must be present) and stores it in
 * *out; returns the new root. */
static node *tree_remove(node *t, size_t off, node **out) {
    if (off < t->off) {
        t->l = tree_remove(t->l, off, out);
    } else if (off > t->off) {
        t->r = tree_remove(t->r, off, out);
    } else {
        *out = t;
        if (!t->l) return t->r;
        if (!t->r) return t->l;
        /* Replace t by its successor so the node t can be handed back. */
        node *m;
        node *r = tree_remove_min(t->r, &m);
        m->l = t->l;
        m->r = r;
        t = m;
    }
    return rebalance(t);
}

/* Changes the key and length of the node with key `off` in place.  The
 * caller guarantees that newoff keeps the node between its neighbours, so
 * only the maxlen annotations on the path need refreshing; this saves a
 * remove + insert on every split and merge. */
static void tree_update(node *t, size_t off, size_t newoff, size_t newlen) {
    if (off < t->off) {
        tree_update(t->l, off, newoff, newlen);
    } else if (off > t->off) {
        tree_update(t->r, off, newoff, newlen);
    } else {
        t->off = newoff;
        t->len = newlen;
    }
    pull(t);
}

static node *tree_find(node *t, size_t off) {
    while (t && t->off != off) t = off < t->off ? t->l : t->r;
    return t;
}

/* The node with the greatest key < off, or NULL. */
static node *tree_below(node *t, size_t off) {
    node *best = NULL;
    while (t) {
        if (t->off < off) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

/* The node with the smallest key > off, or NULL. */
static node *tree_above(node *t, size_t off) {
    node *best = NULL;
    while (t) {
        if (t->off > off) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

static void tree_destroy(node *t) {
    /* Recursion depth is the tree height, which is logarithmic. */
    if (!t) return;
    tree_destroy(t->l);
    tree_destroy(t->r);
    free(t);
}

/* ---- placement --------------------------------------------------------- */

/* Padding needed to bring off up to a multiple of align (a power of two);
 * computed this way so that it cannot overflow for huge alignments. */
static size_t pad_to(size_t off, size_t align) {
    size_t rem = off & (align - 1);
    return rem ? align - rem : 0;
}

/* Lowest-offset free range in which a block of `want` bytes aligned to
 * `align` fits; stores the block's start in *at.  A subtree whose maxlen is
 * below `want` cannot contain a fit, which bounds the search to O(log n)
 * unless many ranges are long enough but fail only because of alignment. */
static node *first_fit(node *t, size_t want, size_t align, size_t *at) {
    while (t && t->maxlen >= want) {
        node *hit = first_fit(t->l, want, align, at);
        if (hit) return hit;
        if (t->len >= want) {
            size_t pad = pad_to(t->off, align);
            if (pad <= t->len - want) {
                *at = t->off + pad;
                return t;
            }
        }
        t = t->r; /* tail position: iterate instead of recursing */
    }
    return NULL;
}

/* Length of a block of `want` bytes at `start` inside a free range ending at
 * `end`: rounded up to the granule, except at the end of a heap with a
 * partial last granule, where it stops at `end`.  `want` must already fit. */
static size_t block_len(const pshm_alloc *a, size_t start, size_t want, size_t end) {
    size_t room = end - start;
    size_t g = a->min_align;
    /* want <= room and room < SIZE_MAX - g in practice, but do not rely on
     * that: round up without overflowing. */
    size_t rounded = want + pad_to(want, g);
    if (rounded < want || rounded > room) return room;
    return rounded;
}

/* Returns [start, start + len) to the free set, merging it with free
 * neighbours.  The range must currently belong to no free range and no live
 * block.  `spare` is a node the caller already holds (so this cannot fail);
 * it is consumed or put back in the cache. */
static void release(pshm_alloc *a, size_t start, size_t len, node *spare) {
    size_t end = start + len;
    node *prev = tree_below(a->free_root, start);
    node *next = tree_above(a->free_root, start);
    int join_prev = prev && prev->off + prev->len == start;
    int join_next = next && next->off == end;

    a->free_bytes += len;
    if (join_prev && join_next) {
        size_t nlen = next->len;
        node *gone;
        a->free_root = tree_remove(a->free_root, next->off, &gone);
        a->nfree--;
        node_put(a, gone);
        tree_update(a->free_root, prev->off, prev->off, prev->len + len + nlen);
        node_put(a, spare);
    } else if (join_prev) {
        tree_update(a->free_root, prev->off, prev->off, prev->len + len);
        node_put(a, spare);
    } else if (join_next) {
        /* Moving next's key down to start keeps the order: prev ends before
         * start, otherwise join_prev would hold. */
        tree_update(a->free_root, next->off, start, next->len + len);
        node_put(a, spare);
    } else {
        spare->off = start;
        spare->len = len;
        a->free_root = tree_insert(a->free_root, spare);
        a->nfree++;
    }
}

/* Carves [start, start + len) out of free range f, giving the leading gap
 * and the trailing remainder back to the free set.  `spare` is a node the
 * caller already holds for the case where f splits in two; it is consumed
 * or put back in the cache. */
static void carve(pshm_alloc *a, node *f, size_t start, size_t len, node *spare) {
    size_t fstart = f->off, fend = f->off + f->len;
    size_t lead = start - fstart, trail = fend - (start + len);

    a->free_bytes -= len;
    if (lead && trail) {
        tree_update(a->free_root, fstart, fstart, lead);
        spare->off = start + len;
        spare->len = trail;
        a->free_root = tree_insert(a->free_root, spare);
        a->nfree++;
        return;
    }
    node_put(a, spare);
    if (lead) {
        tree_update(a->free_root, fstart, fstart, lead);
    } else if (trail) {
        tree_update(a->free_root, fstart, start + len, trail);
    } else {
        node *gone;
        a->free_root = tree_remove(a->free_root, fstart, &gone);
        a->nfree--;
        node_put(a, gone);
    }
}

/* ---- API ---------------------------------------------------------------- */

pshm_alloc *pshm_alloc_create(size_t size, size_t min_align) {
    if (min_align < 16 || (min_align & (min_align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    pshm_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->size = size;
    a->min_align = min_align;
    if (size) {
        node *n = malloc(sizeof *n);
        if (!n) {
            free(a);
            return NULL;
        }
        n->off = 0;
        n->len = size;
        a->free_root = tree_insert(NULL, n);
        a->nfree = 1;
        a->free_bytes = size;
    }
    return a;
}

void pshm_alloc_destroy(pshm_alloc *a) {
    if (!a) return;
    tree_destroy(a->free_root);
    tree_destroy(a->live_root);
    while (a->spare) {
        node *n = a->spare;
        a->spare = n->l;
        free(n);
    }
    free(a);
}

int pshm_alloc_alloc(pshm_alloc *a, size_t size, size_t align, size_t *off) {
    if (align == 0) align = a->min_align;
    if (align & (align - 1)) return EINVAL;
    if (align < a->min_align) align = a->min_align;
    if (size == 0) size = 1;
    if (size > SIZE_MAX - align) return EINVAL;

    size_t start;
    node *f = first_fit(a->free_root, size, align, &start);
    if (!f) return ENOMEM;

    /* Take both nodes a split might need before touching any state, so a
     * metadata allocation failure leaves everything unchanged. */
    node *blk = node_get(a);
    if (!blk) return ENOMEM;
    node *spare = node_get(a);
    if (!spare) {
        node_put(a, blk);
        return ENOMEM;
    }

    size_t len = block_len(a, start, size, f->off + f->len);
    carve(a, f, start, len, spare);
    blk->off = start;
    blk->len = len;
    a->live_root = tree_insert(a->live_root, blk);
    a->nlive++;
    *off = start;
    return 0;
}

int pshm_alloc_free(pshm_alloc *a, size_t off) {
    if (!tree_find(a->live_root, off)) return EINVAL;
    node *blk;
    a->live_root = tree_remove(a->live_root, off, &blk);
    a->nlive--;
    /* The block's own node becomes the free range if no merge happens, so
     * freeing never needs to allocate. */
    release(a, blk->off, blk->len, blk);
    return 0;
}

int pshm_alloc_realloc(pshm_alloc *a, size_t off, size_t newsize, size_t *newoff, int *moved) {
    node *blk = tree_find(a->live_root, off);
    if (!blk) return EINVAL;
    if (newsize == 0) newsize = 1;
    size_t oldlen = blk->len;

    if (newsize <= oldlen) {
        /* Shrink (or keep) in place.  block_len against the block's own
         * end keeps a heap-end block's partial granule if it is needed. */
        size_t len = block_len(a, off, newsize, off + oldlen);
        if (len < oldlen) {
            node *spare = node_get(a);
            /* Without a node for the released tail, keeping the block at
             * its old size is still a correct answer: it is large enough. */
            if (spare) {
                tree_update(a->live_root, off, off, len);
                release(a, off + len, oldlen - len, spare);
            }
        }
        *newoff = off;
        *moved = 0;
        return 0;
    }

    /* Grow in place if the free range right after the block has room. */
    node *next = tree_find(a->free_root, off + oldlen);
    if (next && newsize - oldlen <= next->len) {
        size_t end = next->off + next->len;
        size_t len = block_len(a, off, newsize, end);
        size_t taken = len - oldlen;
        a->free_bytes -= taken;
        if (taken == next->len) {
            node *gone;
            a->free_root = tree_remove(a->free_root, next->off, &gone);
            a->nfree--;
            node_put(a, gone);
        } else {
            tree_update(a->free_root, next->off, off + len, next->len - taken);
        }
        tree_update(a->live_root, off, off, len);
        *newoff = off;
        *moved = 0;
        return 0;
    }

    /* Move.  The old block stays live until the caller has copied out of
     * it, so the new one can never overlap it. */
    size_t noff;
    int rc = pshm_alloc_alloc(a, newsize, 0, &noff);
    if (rc) return rc == EINVAL ? ENOMEM : rc; /* EINVAL here = size overflow */
    *newoff = noff;
    *moved = 1;
    return 0;
}

size_t pshm_alloc_block_size(const pshm_alloc *a, size_t off) {
    const node *b = tree_find(a->live_root, off);
    return b ? b->len : 0;
}

int pshm_alloc_block_at(const pshm_alloc *a, size_t off, size_t *start, size_t *len) {
    const node *t = a->live_root, *best = NULL;
    while (t) {
        if (t->off <= off) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    if (!best || off - best->off >= best->len) return -1;
    *start = best->off;
    *len = best->len;
    return 0;
}

size_t pshm_alloc_free_bytes(const pshm_alloc *a) { return a->free_bytes; }

size_t pshm_alloc_largest_free(const pshm_alloc *a) { return maxlen(a->free_root); }

size_t pshm_alloc_live_blocks(const pshm_alloc *a) { return a->nlive; }

/* ---- consistency check --------------------------------------------------- */

/* Verifies heights, balance and maxlen of a subtree and counts its nodes;
 * returns the height, or -1 if anything is wrong.  Key order is verified by
 * the in-order walk in pshm_alloc_check. */
static int check_tree(const node *t, size_t *count) {
    if (!t) return 0;
    int hl = check_tree(t->l, count);
    int hr = check_tree(t->r, count);
    if (hl < 0 || hr < 0) return -1;
    int h = 1 + (hl > hr ? hl : hr);
    if (t->h != h || hl - hr > 1 || hr - hl > 1 || h >= STACK_MAX) return -1;
    if (t->maxlen != zmax(t->len, zmax(maxlen(t->l), maxlen(t->r)))) return -1;
    ++*count;
    return h;
}

/* In-order iterator with an explicit stack, so the two trees can be walked
 * side by side. */
typedef struct {
    const node *stack[STACK_MAX];
    int n;
} iter;

static void iter_push_left(iter *it, const node *t) {
    for (; t; t = t->l) it->stack[it->n++] = t;
}

static const node *iter_peek(const iter *it) { return it->n ? it->stack[it->n - 1] : NULL; }

static void iter_next(iter *it) {
    const node *t = it->stack[--it->n];
    iter_push_left(it, t->r);
}

int pshm_alloc_check(const pshm_alloc *a) {
    size_t nfree = 0, nlive = 0;
    if (check_tree(a->free_root, &nfree) < 0) return 1;
    if (check_tree(a->live_root, &nlive) < 0) return 2;
    if (nfree != a->nfree) return 3;
    if (nlive != a->nlive) return 4;

    iter fi = {.n = 0}, li = {.n = 0};
    iter_push_left(&fi, a->free_root);
    iter_push_left(&li, a->live_root);

    size_t pos = 0, free_sum = 0;
    int prev_free = 0;
    for (;;) {
        const node *f = iter_peek(&fi), *l = iter_peek(&li);
        if (!f && !l) break;
        /* Whichever starts at the current position must come next; two
         * items at the same offset are an overlap. */
        int is_free = f && (!l || f->off < l->off);
        const node *t = is_free ? f : l;
        if (t->off != pos) return 5;                      /* gap, overlap or disorder */
        if (t->len == 0 || t->len > a->size - pos) return 6; /* empty or out of bounds */
        if (t->off % a->min_align) return 7;
        if (t->len % a->min_align && t->off + t->len != a->size) return 8;
        if (is_free && prev_free) return 9; /* not coalesced */
        if (is_free) free_sum += t->len;
        prev_free = is_free;
        pos += t->len;
        if (is_free)
            iter_next(&fi);
        else
            iter_next(&li);
    }
    if (pos != a->size) return 10;
    if (free_sum != a->free_bytes) return 11;
    return 0;
}
