#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "pshm.h"
#include "segment.h"

#define NAME_LEN PSHM_SEG_NAME_LEN

/* What each PE tells the others about its segments. */
struct card {
    char heap_name[NAME_LEN]; /* empty: not shared */
    char data_name[NAME_LEN];
    uint64_t heap_size;
    uint64_t data_size;
    /* This PE's node has more PEs than cores: rides with the cards to
     * spare the job an exchange of its own (pshm_g.oversubscribed_any). */
    uint64_t oversubscribed;
    /* The CPUs it may run on: also rides here (pshm_wait_budget_cpus). */
    uint64_t cpus[PSHM_CPU_WORDS];
};

static struct {
    char *heap;
    size_t heap_size;
    int heap_shared; /* an shm object, not anonymous memory */
    int n_pes;
    /* What is mapped, per PE (self included): pshm_g.peer[].base are the
     * routes, which init clears under SHMEM_BYPASS=0 while a plugin may
     * still use these. */
    struct pshm_peer *map;
} seg;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }
static uintptr_t page_down(uintptr_t a) { return a & ~(uintptr_t)(page_size() - 1); }
static uintptr_t page_up(uintptr_t a) { return page_down(a + page_size() - 1); }

/* The writable part of the executable that is not RELRO: its .data, .bss
 * and whatever the linker put beside them. */
struct data_range {
    uintptr_t lo, hi;
};

static int data_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct data_range *r = arg;
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        lo = page_down(lo);
        if (relro_end > lo && relro_end <= hi)
            lo = page_up(relro_end);
        r->lo = lo;
        r->hi = page_up(hi);
        break;
    }
    return 1; /* the first object is the executable */
}

static void make_name(char *out, const char *kind, int rank)
{
    const char *tag = getenv("PLUGSHMEM_JOB_TAG");
    unsigned char rnd[8];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (unsigned char)(rand() ^ getpid());
    char hex[17];
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    if (tag && *tag)
        snprintf(out, NAME_LEN, "/psm-%.20s-%d-%s-%s", tag, rank, kind, hex);
    else
        snprintf(out, NAME_LEN, "/psm-p%d-%d-%s-%s", (int)getpid(), rank, kind, hex);
}

static int shm_create(const char *name, size_t size)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        pshm_error("cannot create shared memory object %s: %s", name, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        pshm_error("cannot size shared memory object %s to %zu bytes: %s", name, size,
                   strerror(errno));
        close(fd);
        shm_unlink(name);
        return -1;
    }
    return fd;
}

/* Copies the whole data segment, which under AddressSanitizer holds
 * poisoned redzones between globals: the copy must neither be checked nor
 * call memcpy, which ASan intercepts and checks even from an uninstrumented
 * function.  The volatile load keeps the compiler from turning the loop back
 * into a memcpy call.  Both ends are page-aligned. */
__attribute__((no_sanitize_address)) static void copy_data_segment(void *dst, const void *src,
                                                                   size_t len)
{
    uintptr_t *d = dst;
    const volatile uintptr_t *s = src;
    for (size_t i = 0; i < len / sizeof *d; i++)
        d[i] = s[i];
}

/* Moves the data segment into a shared-memory object mapped at the same
 * address, so peers can map it too: globals become load/store on-node.
 * ASan's view of the globals lives in its shadow memory, elsewhere, so it
 * survives the remapping unchanged. */
static int share_data(const struct data_range *r, char *name, int rank)
{
    size_t len = r->hi - r->lo;
    make_name(name, "d", rank);
    int fd = shm_create(name, len);
    if (fd < 0)
        return -1;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED)
        goto fail;
    copy_data_segment(tmp, (const void *)r->lo, len);
    void *at = mmap((void *)r->lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    munmap(tmp, len);
    if (at == MAP_FAILED)
        goto fail;
    close(fd);
    return 0;
fail:
    pshm_error("cannot share global data (%zu bytes): %s; set SHMEM_GLOBALS=cma", len,
               strerror(errno));
    close(fd);
    shm_unlink(name);
    name[0] = '\0';
    return -1;
}

static char *map_peer(const char *name, size_t size, int pe)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        pshm_error("cannot open PE %d's shared memory %s: %s", pe, name, strerror(errno));
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        pshm_error("cannot map PE %d's shared memory (%zu bytes): %s", pe, size, strerror(errno));
        return NULL;
    }
    return p;
}

/* Maps len bytes (of fd, or anonymous) at a PSHM_HEAP_ALIGN boundary:
 * reserve more address space than needed, map at the aligned spot inside,
 * return the rest. */
static char *map_aligned(size_t len, int fd)
{
    size_t span = len + PSHM_HEAP_ALIGN;
    char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    char *a = (char *)(((uintptr_t)r + PSHM_HEAP_ALIGN - 1) & ~(uintptr_t)(PSHM_HEAP_ALIGN - 1));
    void *m = fd >= 0 ? mmap(a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
                             fd, 0)
                      : mmap(a, len, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        munmap(r, span);
        return MAP_FAILED;
    }
    if (a > r)
        munmap(r, (size_t)(a - r));
    if (r + span > a + len)
        munmap(a + len, (size_t)(r + span - (a + len)));
    return a;
}

int pshm_segments_init(const struct pshm_boot *b, size_t user_size, int map_globals,
                       int map_peers)
{
    size_t total = page_up(user_size) + sizeof(struct pshm_internal);
    int shared = b->n_local > 1 && map_peers;
    struct card mine;
    memset(&mine, 0, sizeof mine);

    if (shared) {
        make_name(mine.heap_name, "h", b->rank);
        int fd = shm_create(mine.heap_name, total);
        if (fd < 0)
            return -1;
        seg.heap = map_aligned(total, fd);
        close(fd);
    } else {
        seg.heap = map_aligned(total, -1);
    }
    if (seg.heap == MAP_FAILED) {
        pshm_error("cannot map a %zu-byte symmetric heap (SHMEM_SYMMETRIC_SIZE=%zu): %s; "
                   "lower SHMEM_SYMMETRIC_SIZE",
                   total, user_size, strerror(errno));
        if (shared)
            shm_unlink(mine.heap_name);
        return -1;
    }
    seg.heap_size = total;
    seg.heap_shared = shared;
    mine.heap_size = total;

    struct data_range dr = {0, 0};
    dl_iterate_phdr(data_cb, &dr);
    if (shared && map_globals && dr.hi > dr.lo && share_data(&dr, mine.data_name, b->rank) == 0)
        mine.data_size = dr.hi - dr.lo;

    pshm_g.heap_lo = (uintptr_t)seg.heap;
    pshm_g.heap_len = total;
    pshm_g.heap_user_len = page_up(user_size);
    pshm_g.data_lo = dr.lo;
    pshm_g.data_len = dr.hi - dr.lo;
    seg.n_pes = b->size;
    pshm_g.peer = calloc((size_t)b->size, sizeof *pshm_g.peer);
    struct card *all = calloc((size_t)b->size, sizeof *all);
    int rc = -1;
    if (!pshm_g.peer || !all) {
        pshm_error("out of memory for %d peers", b->size);
        goto out;
    }
    mine.oversubscribed = (uint64_t)pshm_g.oversubscribed;
    pshm_cpus_mine(mine.cpus);
    if (b->allgather(&mine, all, sizeof mine)) {
        pshm_error("bootstrap exchange of segment names failed");
        goto out;
    }
    pshm_g.oversubscribed_any = 0;
    for (int i = 0; i < b->size; i++)
        pshm_g.oversubscribed_any |= all[i].oversubscribed != 0;
    /* The same union on every PE of the node (an emulated one too), so
     * the same pshm_g.oversubscribed for their algorithms' choices. */
    uint64_t node_cpus[PSHM_CPU_WORDS] = {0};
    int known = 1;
    for (int i = 0; i < b->n_local; i++)
        known &= pshm_cpus_or(node_cpus, all[b->local_ranks[i]].cpus);
    if (known)
        pshm_wait_budget_cpus(node_cpus, b->n_local);
    pshm_g.peer[b->rank].base[PSHM_SEG_HEAP] = seg.heap;
    if (mine.data_size)
        pshm_g.peer[b->rank].base[PSHM_SEG_DATA] = (char *)dr.lo;
    for (int i = 0; shared && i < b->n_local; i++) {
        int r = b->local_ranks[i];
        if (r == b->rank)
            continue;
        if (all[r].heap_size != total) {
            pshm_error("PE %d has a %llu-byte heap, this PE %zu: SHMEM_SYMMETRIC_SIZE differs "
                       "between PEs",
                       r, (unsigned long long)all[r].heap_size, total);
            goto out;
        }
        if (!all[r].heap_name[0]) {
            pshm_error("PE %d on this node did not share its heap: SHMEM_BYPASS or "
                       "SHMEM_EMULATE_NODES differs between PEs?",
                       r);
            goto out;
        }
        if (!(pshm_g.peer[r].base[PSHM_SEG_HEAP] = map_peer(all[r].heap_name, total, r)))
            goto out;
        if (all[r].data_size && mine.data_size) {
            if (all[r].data_size != mine.data_size) {
                pshm_error("PE %d's data segment differs in size (%llu, here %llu): is every PE "
                           "running the same executable?",
                           r, (unsigned long long)all[r].data_size,
                           (unsigned long long)mine.data_size);
                goto out;
            }
            if (!(pshm_g.peer[r].base[PSHM_SEG_DATA] =
                      map_peer(all[r].data_name, all[r].data_size, r)))
                goto out;
        }
    }
    /* Data is load/store on-node only if every local PE shared its data. */
    for (int i = 0; i < b->n_local; i++)
        if (!all[b->local_ranks[i]].data_size)
            for (int j = 0; j < b->n_local; j++)
                pshm_g.peer[b->local_ranks[j]].base[PSHM_SEG_DATA] = NULL;
    /* A 1-PE job reaches its own globals by load/store, as it does its heap:
     * no other PE can target them, and cross-memory attach to oneself may
     * be refused (qemu-user: ENOSYS; seccomp profiles without ptrace). */
    if (b->size == 1 && dr.hi > dr.lo)
        pshm_g.peer[b->rank].base[PSHM_SEG_DATA] = (char *)dr.lo;
    if (!(seg.map = malloc((size_t)b->size * sizeof *seg.map))) {
        pshm_error("out of memory for %d peers", b->size);
        goto out;
    }
    memcpy(seg.map, pshm_g.peer, (size_t)b->size * sizeof *seg.map);
    rc = 0;
out:
    /* Every local peer has mapped (or failed) once all passed this point. */
    if (b->barrier() != 0 && rc == 0) {
        pshm_error("bootstrap barrier failed");
        rc = -1;
    }
    if (mine.heap_name[0])
        shm_unlink(mine.heap_name);
    if (mine.data_name[0])
        shm_unlink(mine.data_name);
    free(all);
    return rc;
}

void pshm_segments_fini(void)
{
    if (seg.map) {
        for (int r = 0; r < seg.n_pes; r++) {
            char *h = seg.map[r].base[PSHM_SEG_HEAP];
            if (h && h != seg.heap)
                munmap(h, seg.heap_size);
            char *d = seg.map[r].base[PSHM_SEG_DATA];
            if (d && r != pshm_g.my_pe)
                munmap(d, pshm_g.data_len);
        }
    }
    free(seg.map);
    seg.map = NULL;
    /* The data segment stays shared: globals must stay readable after
     * shmem_finalize, and their mapping is now the only copy. */
    if (seg.heap)
        munmap(seg.heap, seg.heap_size);
    seg.heap = NULL;
    free(pshm_g.peer);
    pshm_g.peer = NULL;
    pshm_g.heap_lo = 0;
    pshm_g.heap_len = pshm_g.heap_user_len = pshm_g.heap_fast_len = 0;
    pshm_g.data_fast_len = 0;
}

char *pshm_segment_mapping(int pe, int s) { return seg.map ? seg.map[pe].base[s] : NULL; }

char *pshm_segment_new_shared(size_t size, char name[PSHM_SEG_NAME_LEN], int rank)
{
    make_name(name, "s", rank);
    int fd = shm_create(name, size);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        pshm_error("cannot map a %zu-byte memory space: %s", size, strerror(errno));
        shm_unlink(name);
        name[0] = '\0';
        return NULL;
    }
    return p;
}

char *pshm_segment_map_named(const char *name, size_t size, int pe)
{
    return map_peer(name, size, pe);
}
