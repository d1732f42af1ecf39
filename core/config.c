#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bootstrap.h"
#include "coll_layer.h"
#include "config.h"
#include "settings.h"

struct pshm_config pshm_cfg;

/* The core's settings: shmem_info and the README's table come from here
 * (the README's is checked against `shmem_info --markdown`). */
const pshm_setting pshm_core_settings[] = {
    {"SHMEM_SYMMETRIC_SIZE", PSHM_SETTING_SIZE, "256M", NULL,
     "symmetric heap size per PE, 1 byte to 64T: bytes, or a number with K, M, G or T (powers of "
     "1024)"},
    {"SHMEM_TRANSPORT", PSHM_SETTING_STRING, "(highest priority usable)", NULL,
     "transport preference list, e.g. ofi,shm; see shmem_info for those installed"},
    {"SHMEM_BOOTSTRAP", PSHM_SETTING_CHOICE, "auto", "auto|pmix|pmi|singleton",
     "how PEs find each other: auto (the launcher's PMIx, else its PMI, else a single PE), pmix, "
     "pmi or singleton"},
    {"SHMEM_TRANSPORT_PATH", PSHM_SETTING_STRING, "(none)", NULL,
     "extra ':'-separated folders searched for transport-NAME.so before the install's own (one "
     "that cannot be opened: a warning on PE 0)"},
    {"SHMEM_BYPASS", PSHM_SETTING_BOOL, "1", NULL,
     "on-node PEs by load/store into mapped memory (0: all traffic via the transport)"},
    {"SHMEM_GLOBALS", PSHM_SETTING_CHOICE, "map", "map|cma",
     "global/static data: map (shared mapping, load/store on-node) or cma (process_vm_readv/writev)"},
    {"SHMEM_WAIT_SPINS", PSHM_SETTING_STRING, "auto", NULL,
     "polls before a waiting PE gives up its CPU (auto: 16384 while PEs x waiting threads <= "
     "cores, else 64, or 2 where a poll calls the transport); it then yields for 100 us, then "
     "sleeps"},
    {"SHMEM_WAIT_SLEEP", PSHM_SETTING_UINT, "500", NULL,
     "longest sleep of a waiting PE in microseconds: how late it may see a write that cannot "
     "wake it (a plain put, a fetching AMO, another node); 0: never sleep, only yield"},
    {"SHMEM_EMULATE_NODES", PSHM_SETTING_UINT, "1", NULL,
     "split each node's PEs into N emulated nodes (PE number modulo N) to exercise multi-node "
     "paths on one machine (needs a network transport, e.g. ofi)"},
    {"SHMEM_DEBUG", PSHM_SETTING_BOOL, "0", NULL, "check every call's arguments and explain failures"},
    {"SHMEM_INFO", PSHM_SETTING_BOOL, "0", NULL, "print the shmem_info report on PE 0 at shmem_init"},
    {"SHMEM_COUNT_OPS", PSHM_SETTING_BOOL, "0", NULL,
     "count the operations handed to the transport and print each PE's counts at shmem_finalize "
     "(what crosses the network; for tests and tuning)"},
    {"SHMEM_VERSION", PSHM_SETTING_BOOL, "0", NULL, "print the library version on PE 0 at shmem_init"},
    {"PLUGSHMEM_JOB_TAG", PSHM_SETTING_STRING, "(set by oshrun)", NULL,
     "job identifier used to name shared-memory objects"},
    {NULL, 0, NULL, NULL, NULL},
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
    int i = pshm_choice_index(choices, s);
    if (i >= 0)
        return *out = i, 0;
    char list[256];
    pshm_choices_list(choices, ", ", list, sizeof list);
    snprintf(err, errlen, "%s='%s' is not known; use one of %s", name, s, list);
    return -1;
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
    /* An empty heap would start and fail every shmem_malloc: say so now. */
    if (c.symmetric_size == 0) {
        snprintf(err, errlen,
                 "SHMEM_SYMMETRIC_SIZE='%s' is an empty heap; use a size from 1 byte to 64T, e.g. "
                 "512M",
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
        load_bool("SHMEM_COUNT_OPS", 0, &c.count_ops, err, errlen) ||
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
    c.wait_sleep_us = PSHM_WAIT_SLEEP_DEFAULT;
    if ((s = getenv("SHMEM_WAIT_SLEEP")) && *s) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || *s == '-' || v > 1000000ul) {
            snprintf(err, errlen,
                     "SHMEM_WAIT_SLEEP='%s' is not a duration; use microseconds, an integer from 0 "
                     "to 1000000", s);
            return -1;
        }
        c.wait_sleep_us = (unsigned)v;
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
    static const char *const boots[] = {"auto", "pmix", "pmi", "singleton"}; /* as PSHM_BOOT_CHOICES */
    int boot;
    if (load_choice("SHMEM_BOOTSTRAP", PSHM_BOOT_CHOICES, &boot, err, errlen))
        return -1;
    c.bootstrap = boots[boot];
    /* The collectives read theirs, a layer above the core. */
    if (pshm_coll_layer.load(err, errlen))
        return -1;
    pshm_cfg = c;
    return 0;
}

void pshm_config_print(FILE *f)
{
    pshm_settings_print(f, pshm_core_settings);
    pshm_settings_print(f, pshm_coll_layer.settings());
}
