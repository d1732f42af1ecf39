#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../collectives/coll_algos.h"
#include "bootstrap.h"
#include "config.h"

struct pshm_config pshm_cfg;

struct var {
    const char *name;
    const char *def; /* shown when unset */
    const char *help;
};

static const struct var vars[] = {
    {"SHMEM_SYMMETRIC_SIZE", "256M",
     "symmetric heap size per PE: bytes, or a number with K, M, G or T (powers of 1024)"},
    {"SHMEM_TRANSPORT", "(highest priority usable)",
     "transport preference list, e.g. ofi,shm; see shmem_info for those installed"},
    {"SHMEM_BOOTSTRAP", "auto",
     "how PEs find each other: auto (the launcher's PMIx, else its PMI, else a single PE), pmix, "
     "pmi or singleton"},
    {"SHMEM_TRANSPORT_PATH", "(none)",
     "extra ':'-separated folders searched for transport-NAME.so before the install's own"},
    {"SHMEM_BYPASS", "1", "on-node PEs by load/store into mapped memory (0: all traffic via the transport)"},
    {"SHMEM_GLOBALS", "map",
     "global/static data: map (shared mapping, load/store on-node) or cma (process_vm_readv/writev)"},
    {"SHMEM_WAIT_SPINS", "auto",
     "polls before a waiting PE yields its CPU (auto: spin while PEs <= cores, else yield soon)"},
    {"SHMEM_EMULATE_NODES", "1",
     "split each node's PEs into N emulated nodes (PE number modulo N) to exercise multi-node "
     "paths on one machine"},
    {"SHMEM_DEBUG", "0", "check every call's arguments and explain failures"},
    {"SHMEM_INFO", "0", "print this information on PE 0 at shmem_init"},
    {"SHMEM_VERSION", "0", "print the library version on PE 0 at shmem_init"},
    {"SHMEM_COLLECTIVES", "native", "collectives component: native (over RMA/AMO, shared-memory aware)"},
    {"SHMEM_BARRIER_ALGORITHM", "auto", "barrier/sync: auto, dissemination, tree or counter"},
    {"SHMEM_BCAST_ALGORITHM", "auto", "broadcast: auto, binomial or scatter_allgather"},
    {"SHMEM_REDUCE_ALGORITHM", "auto",
     "reductions: auto, recursive_doubling, ring or reduce_scatter_allgather"},
    {"SHMEM_COLLECT_ALGORITHM", "auto", "fcollect/collect: auto, ring, recursive_doubling or linear"},
    {"SHMEM_ALLTOALL_ALGORITHM", "auto", "alltoall(s): auto, pairwise or linear"},
    {"PLUGSHMEM_JOB_TAG", "(set by oshrun)", "job identifier used to name shared-memory objects"},
    {"SHMEM_OFI_PROVIDER", "(FI_PROVIDER, else libfabric's first)",
     "ofi transport: libfabric provider, e.g. shm, tcp;ofi_rxm, udp;ofi_rxd"},
    {"SHMEM_OFI_DOMAIN", "(provider's first)", "ofi transport: libfabric domain (NIC), e.g. eth0"},
    {"SHMEM_PROGRESS_THREAD", "auto",
     "ofi and mpi transports: progress thread serving peers while the program computes (auto: "
     "on for providers with manual progress, and for MPI when it provides MPI_THREAD_MULTIPLE; "
     "1 or 0)"},
    {"SHMEM_PROGRESS_INTERVAL", "100",
     "ofi and mpi transports: microseconds between progress-thread polls"},
    {"SHMEM_OFI_DELIVERY_COMPLETE", "auto",
     "ofi transport: FI_DELIVERY_COMPLETE on puts and atomics (auto: where the provider needs it; "
     "0 is unsafe, for measurements)"},
    {"SHMEM_OFI_AMO_CPU_COHERENT", "auto",
     "ofi transport: whether the provider's atomics mix with CPU atomics on-node (auto: per provider)"},
    {"SHMEM_OFI_VERBOSE", "0", "ofi transport: PE 0 prints the provider and modes chosen"},
    {"SHMEM_MPI_CTX_WINDOWS", "0",
     "mpi transport: window pairs made at shmem_init for contexts (0..64); a context without "
     "one shares the default context's windows"},
    {"SHMEM_MPI_STAGE_MAX", "256",
     "mpi transport: puts up to this many bytes are copied and left in flight (0..16384)"},
    {"SHMEM_MPI_AMO_CPU_COHERENT", "0",
     "mpi transport: declare MPI's atomics coherent with CPU atomics (1 is unsafe with MPICH; "
     "for measurements)"},
    {"SHMEM_MPI_VERBOSE", "0", "mpi transport: PE 0 prints the MPI library and modes chosen"},
};

int pshm_parse_size(const char *s, size_t *out)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    /* Accept "512MB" and "512MiB" as people write both. */
    if (shift && toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
        end += 2;
    else if (toupper((unsigned char)*end) == 'B')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    if (shift && v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int pshm_parse_bool(const char *s, int *out)
{
    static const char *yes[] = {"1", "yes", "y", "true", "on"};
    static const char *no[] = {"0", "no", "n", "false", "off", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (strcasecmp(s, yes[i]) == 0)
            return *out = 1, 0;
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (strcasecmp(s, no[i]) == 0)
            return *out = 0, 0;
    return -1;
}

static int load_bool(const char *name, int def, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    *out = def;
    if (s && pshm_parse_bool(s, out)) {
        snprintf(err, errlen, "%s='%s' is not a boolean; use 1 or 0 (also yes/no, true/false, on/off)",
                 name, s);
        return -1;
    }
    return 0;
}

/* A choice among '|'-separated words: out = the index of s in choices. */
static int load_choice(const char *name, const char *choices, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    *out = 0;
    if (!s || !*s)
        return 0;
    size_t len = strlen(s);
    int i = 0;
    for (const char *c = choices; *c; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == len && strncasecmp(c, s, len) == 0)
            return *out = i, 0;
        c += cl + (bar != NULL);
    }
    char list[256];
    size_t o = 0;
    for (const char *p = choices; *p && o + 3 < sizeof list; p++) {
        if (*p == '|') {
            list[o++] = ',';
            list[o++] = ' ';
        } else {
            list[o++] = *p;
        }
    }
    list[o] = '\0';
    snprintf(err, errlen, "%s='%s' is not known; use one of %s", name, s, list);
    return -1;
}

static int load_collectives(struct pshm_config *c, char *err, size_t errlen)
{
    static const struct {
        const char *name, *choices;
    } algo[PSHM_COP_N] = PSHM_COLL_ALGO_VARS;
    int comp;
    if (load_choice("SHMEM_COLLECTIVES", PSHM_COLL_COMPONENTS, &comp, err, errlen))
        return -1;
    c->collectives = "native";
    for (int i = 0; i < PSHM_COP_N; i++)
        if (load_choice(algo[i].name, algo[i].choices, &c->coll_algo[i], err, errlen))
            return -1;
    return 0;
}

int pshm_config_load(char *err, size_t errlen)
{
    struct pshm_config c = {0};
    const char *s;

    c.symmetric_size = PSHM_DEFAULT_HEAP_SIZE;
    if ((s = getenv("SHMEM_SYMMETRIC_SIZE")) && pshm_parse_size(s, &c.symmetric_size)) {
        snprintf(err, errlen,
                 "SHMEM_SYMMETRIC_SIZE='%s' is not a size; use bytes or a number with K, M, G or T "
                 "(powers of 1024), e.g. 512M",
                 s);
        return -1;
    }
    if (c.symmetric_size > PSHM_MAX_HEAP_SIZE) {
        snprintf(err, errlen, "SHMEM_SYMMETRIC_SIZE='%s' is too large; at most 64T per PE", s);
        return -1;
    }
    c.transport = getenv("SHMEM_TRANSPORT");
    if (c.transport && !*c.transport)
        c.transport = NULL;
    c.transport_path = getenv("SHMEM_TRANSPORT_PATH");
    c.globals = "map";
    if ((s = getenv("SHMEM_GLOBALS")) && *s) {
        if (strcmp(s, "map") && strcmp(s, "cma")) {
            snprintf(err, errlen, "SHMEM_GLOBALS='%s' is not known; use map or cma", s);
            return -1;
        }
        c.globals = s;
    }
    if (load_bool("SHMEM_DEBUG", 0, &c.debug, err, errlen) ||
        load_bool("SHMEM_INFO", 0, &c.info, err, errlen) ||
        load_bool("SHMEM_VERSION", 0, &c.version, err, errlen) ||
        load_bool("SHMEM_BYPASS", 1, &c.bypass, err, errlen))
        return -1;
    c.wait_spins = PSHM_WAIT_SPINS_AUTO;
    if ((s = getenv("SHMEM_WAIT_SPINS")) && *s && strcmp(s, "auto")) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || *s == '-' || v > 1000000000ul) {
            snprintf(err, errlen,
                     "SHMEM_WAIT_SPINS='%s' is not a count; use auto or an integer from 0 to 1000000000", s);
            return -1;
        }
        c.wait_spins = (unsigned)v;
    }
    c.emulate_nodes = 1;
    if ((s = getenv("SHMEM_EMULATE_NODES")) && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end || v < 1 || v > 1 << 20) {
            snprintf(err, errlen, "SHMEM_EMULATE_NODES='%s' is not a node count; use an integer >= 1", s);
            return -1;
        }
        c.emulate_nodes = (int)v;
    }
    if (load_collectives(&c, err, errlen))
        return -1;
    static const char *const boots[] = {"auto", "pmix", "pmi", "singleton"}; /* as PSHM_BOOT_CHOICES */
    int boot;
    if (load_choice("SHMEM_BOOTSTRAP", PSHM_BOOT_CHOICES, &boot, err, errlen))
        return -1;
    c.bootstrap = boots[boot];
    pshm_cfg = c;
    return 0;
}

void pshm_config_print(FILE *f)
{
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i].name);
        fprintf(f, "  %-26s %-26s %s\n", vars[i].name, v ? v : vars[i].def, vars[i].help);
    }
}
