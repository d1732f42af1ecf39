/*
 * The symmetric heap in memory UCX allocates (SHMEM_UCX_HEAP).
 *
 * UCX 1.13's shared-memory transports (sysv, posix) serve put, get and
 * atomics by plain CPU loads, stores and atomics only on memory UCX
 * allocated itself; memory a program registers they serve by active
 * messages that the target must progress (docs/ucx.md).  Open MPI's heap
 * is allocated by UCX, ours by the core.  Where the core maps no peer's
 * heap (SHMEM_BYPASS=0: the heap is then this process's private memory,
 * which no other process sees) the plugin moves the heap into a UCX
 * allocation at the same address (UCP_MEM_MAP_ALLOCATE | FIXED), so the
 * core's pointers stay valid and every on-node operation UCX carries is
 * load/store inside UCX.  With the bypass on, peers map the core's heap
 * object and it stays where it is.
 *
 * Moving keeps the contents: the pages that were ever touched (mincore)
 * are copied aside and back; at fini the same is done the other way, and
 * the copy is moved to the heap's address (mremap; copied again where that
 * is refused, as under valgrind), because the core still reads its part of
 * the heap after the plugin's fini.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucx.h"

/* Copies into dst the pages of src (len bytes) that are resident.  A page
 * swapped out would read as not resident and be left behind: at init the
 * heap was just laid out, and at fini the core only tears down; a machine
 * that swaps the heap out meanwhile should set SHMEM_UCX_HEAP=core. */
static int copy_touched(char *dst, char *src, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = (len + page - 1) / page;
    unsigned char *vec = malloc(n);
    if (!vec)
        return -1;
    if (mincore(src, len, vec)) {
        free(vec);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (vec[i] & 1) {
            size_t off = i * page, m = len - off < page ? len - off : page;
            memcpy(dst + off, src + off, m);
        }
    free(vec);
    return 0;
}

/* A private copy of the touched pages of the len bytes at src. */
static char *copy_aside(char *src, size_t len)
{
    char *to = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
    if (to == MAP_FAILED)
        return NULL;
    if (copy_touched(to, src, len)) {
        munmap(to, len);
        return NULL;
    }
    return to;
}

/* Puts the copy at from (len bytes, its own mapping) back at base, where
 * nothing is mapped any more: moved where the kernel allows it, else
 * copied (valgrind refuses mremap to a fixed address). */
static int put_back(char *base, char *from, size_t len)
{
    if (mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, base) != MAP_FAILED)
        return 0;
    void *at = mmap(base, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED)
        return -1;
    int rc = copy_touched(base, from, len);
    munmap(from, len);
    return rc;
}

int ucx_heap_wanted(void)
{
    const pshm_core_services *svc = g.svc;
    static const char *const words[] = {"auto", "ucx", "core", NULL};
    int mode = svc->get_choice("SHMEM_UCX_HEAP", words, 0);
    if (mode == 2 || !svc->seg[PSHM_SEG_HEAP].size)
        return 0;
    /* The core must reach no peer's heap by load/store: then no other
     * process maps ours. */
    for (int r = 0; r < svc->n_pes; r++)
        if (r != svc->my_pe && svc->peer_base[PSHM_SEG_HEAP][r]) {
            if (mode == 1 && svc->my_pe == 0)
                svc->error("ucx transport: SHMEM_UCX_HEAP=ucx needs the heap unmapped by peers "
                           "(SHMEM_BYPASS=0); keeping the core's heap");
            return 0;
        }
    /* auto: where UCX carries on-node traffic over shared memory */
    return mode == 1 || (svc->n_local > 1 && g.shares_memory);
}

int ucx_heap_adopt(char *base, size_t len, ucp_mem_h *mh)
{
    char *old = copy_aside(base, len);
    if (!old) {
        g.svc->error("ucx transport: cannot copy the heap (%zu bytes at %p) for UCX: %s", len,
                     (void *)base, strerror(errno));
        return -1;
    }
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = base,
        .length = len,
        .flags = UCP_MEM_MAP_ALLOCATE | UCP_MEM_MAP_FIXED,
    };
    ucs_status_t st = ucp_mem_map(g.ctx, &mp, mh);
    ucp_mem_attr_t ma = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH};
    if (st == UCS_OK && (ucp_mem_query(*mh, &ma) != UCS_OK || ma.address != (void *)base ||
                         ma.length < len)) {
        ucp_mem_unmap(g.ctx, *mh);
        st = UCS_ERR_NO_MEMORY;
    }
    if (st != UCS_OK) {
        /* UCX may have unmapped the range: the core's pages go back */
        *mh = NULL;
        if (put_back(base, old, len))
            g.svc->fatal("ucx transport: cannot put the heap back at %p: %s", (void *)base,
                         strerror(errno));
        if (g.verbose)
            fprintf(stderr, "ucx transport: UCX could not allocate the heap at its address (%s); "
                            "the core's heap is registered instead\n",
                    ucs_status_string(st));
        return 1;
    }
    int rc = copy_touched(base, old, len);
    munmap(old, len);
    if (rc)
        g.svc->fatal("ucx transport: cannot copy the heap into UCX's memory");
    g.heap_adopted = 1;
    return 0;
}

void ucx_heap_return(char *base, size_t len, ucp_mem_h mh)
{
    char *keep = copy_aside(base, len);
    if (!keep)
        g.svc->fatal("ucx transport: cannot take the heap back from UCX (%zu bytes): %s", len,
                     strerror(errno));
    ucp_mem_unmap(g.ctx, mh);
    if (put_back(base, keep, len))
        g.svc->fatal("ucx transport: cannot put the heap back at %p: %s", (void *)base,
                     strerror(errno));
    g.heap_adopted = 0;
}
