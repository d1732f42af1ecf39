/*
 * Fake transport plugins for test_registry, one source built several times
 * with -DFAKE_KIND=<n> into transport-<name>.so.  Each is good or broken in
 * one particular way; none can carry traffic (init always fails).
 */
#include <stdio.h>

#include "transport.h"

#define FAKE_DUMMY 1        /* transport-dummy.so: usable, priority 5 */
#define FAKE_UNUSABLE 2     /* transport-unusable.so: query -1 with a reason */
#define FAKE_BADABI 3       /* transport-badabi.so: major 999 */
#define FAKE_MISNAMED 4     /* transport-misnamed.so: calls itself "impostor" */
#define FAKE_BROKEN 5       /* transport-broken.so: undefined symbol, dlopen fails */
#define FAKE_SHADOW_DUMMY 6 /* shadow/transport-dummy.so: usable, priority 50 */
#define FAKE_HIGH 7         /* shadow/transport-high.so: usable, priority 7 */
#define FAKE_NOSYM 8        /* transport-nosym.so: no descriptor symbol */
#define FAKE_SMALL 9        /* transport-small.so: descriptor size too small */
#define FAKE_NOQUERY 10     /* transport-noquery.so: no query function */
#define FAKE_SILENT 11      /* transport-silent.so: query -1 without a reason */
#define FAKE_CAPPED 12      /* ceiling/transport-capped.so: max_priority 1, query 50 */
#define FAKE_FLOOR 13       /* ceiling/transport-floor.so: no max_priority, query 5 */
#define FAKE_ABI1 14        /* transport-abi1.so: an ABI 1 descriptor (version 1, then size) */
#define FAKE_OLDMINOR 15    /* transport-oldminor.so: ABI 2.0, usable, priority 4 */
#define FAKE_NEWMINOR 16    /* transport-newminor.so: a future 2.9 with fields appended, usable */
#define FAKE_NEWSMALL 17    /* transport-newsmall.so: claims 2.9 but is shorter than 2.1 */

#ifndef FAKE_KIND
#error "build with -DFAKE_KIND=<n>"
#endif

#define EXPORT PSHM_TRANSPORT_EXPORT

#if FAKE_KIND == FAKE_BROKEN
/* Defined nowhere: with RTLD_NOW the dynamic linker refuses the file. */
extern int pshm_fake_missing_symbol(int);
EXPORT int pshm_fake_use_missing(int x) { return pshm_fake_missing_symbol(x) + 1; }
#endif

#if FAKE_KIND != FAKE_NOSYM && FAKE_KIND != FAKE_ABI1

#if FAKE_KIND == FAKE_DUMMY
#define NAME "dummy"
#define PRIO 5
#define DESC "fake dummy transport (primary)"
#elif FAKE_KIND == FAKE_UNUSABLE
#define NAME "unusable"
#define PRIO -1
#define WHY "unusable: the fake hardware is absent (reason from the test plugin)"
#define DESC "fake transport that is never usable"
#elif FAKE_KIND == FAKE_BADABI
#define NAME "badabi"
#define PRIO 3
#define ABI 999u
#define DESC "fake transport built for a future ABI"
#elif FAKE_KIND == FAKE_MISNAMED
#define NAME "impostor"
#define PRIO 3
#define DESC "fake transport whose descriptor names another"
#elif FAKE_KIND == FAKE_BROKEN
#define NAME "broken"
#define PRIO 3
#define DESC "fake transport that cannot be loaded"
#elif FAKE_KIND == FAKE_SHADOW_DUMMY
#define NAME "dummy"
#define PRIO 50
#define DESC "fake dummy transport (shadow)"
#elif FAKE_KIND == FAKE_HIGH
#define NAME "high"
#define PRIO 7
#define DESC "fake transport of priority 7"
#elif FAKE_KIND == FAKE_SMALL
#define NAME "small"
#define PRIO 3
#define SIZE 8u
#define DESC "fake transport with a truncated descriptor"
#elif FAKE_KIND == FAKE_NOQUERY
#define NAME "noquery"
#define PRIO 3
#define NO_QUERY 1
#define DESC "fake transport without query"
#elif FAKE_KIND == FAKE_CAPPED
#define NAME "capped"
#define PRIO 50 /* contradicts its ceiling: it shows whether query ran */
#define CEILING 1
#define DESC "fake transport whose ceiling says it cannot win"
#elif FAKE_KIND == FAKE_FLOOR
#define NAME "floor"
#define PRIO 5
#define DESC "fake transport without a ceiling"
#elif FAKE_KIND == FAKE_OLDMINOR
#define NAME "oldminor"
#define PRIO 4
#define MINOR 0u
#define DESC "fake transport built for ABI 2.0"
#elif FAKE_KIND == FAKE_NEWMINOR
#define NAME "newminor"
#define PRIO 2
#define MINOR 9u
#define APPENDED 1
#define DESC "fake transport built for a future ABI 2.9"
#elif FAKE_KIND == FAKE_NEWSMALL
#define NAME "newsmall"
#define PRIO 2
#define MINOR 9u
#define SIZE ((uint32_t)sizeof(pshm_transport_desc) - 8)
#define DESC "fake transport claiming ABI 2.9 with a short descriptor"
#elif FAKE_KIND == FAKE_SILENT
#define NAME "silent"
#define PRIO -1
#define DESC "fake transport unusable without saying why"
#else
#error "unknown FAKE_KIND"
#endif

#ifndef ABI
#define ABI PSHM_TRANSPORT_ABI_MAJOR
#endif
#ifndef MINOR
#define MINOR PSHM_TRANSPORT_ABI_MINOR
#endif
#ifdef APPENDED
/* What a later minor would append; the core must ignore it. */
struct future_desc {
    pshm_transport_desc base;
    void *later[4];
};
#define SIZE ((uint32_t)sizeof(struct future_desc))
#endif
#ifndef SIZE
#define SIZE ((uint32_t)sizeof(pshm_transport_desc))
#endif

#ifdef CEILING
static int fake_ceiling(const pshm_core_services *svc)
{
    (void)svc;
    return CEILING;
}
#endif

__attribute__((unused)) static int fake_query(const pshm_core_services *svc, char *why,
                                              size_t whylen)
{
    (void)svc;
#ifdef WHY
    snprintf(why, whylen, "%s", WHY);
#else
    (void)why;
    (void)whylen;
#endif
    return PRIO;
}

static int fake_init(const pshm_core_services *svc, const pshm_transport_ops **ops)
{
    (void)svc;
    *ops = NULL;
    return 1; /* carries no traffic */
}

static void fake_fini(void) {}

#ifdef APPENDED
EXPORT const struct future_desc plugshmem_transport = {.base = {
#else
EXPORT const pshm_transport_desc plugshmem_transport = {
#endif
    .hdr = {ABI, MINOR, SIZE},
    .name = NAME,
    .description = DESC,
#ifdef NO_QUERY
    .query = NULL,
#else
    .query = fake_query,
#endif
    .init = fake_init,
    .fini = fake_fini,
#ifdef CEILING
    .max_priority = fake_ceiling,
#endif
#ifdef APPENDED
}, .later = {(void *)1, (void *)2, (void *)3, (void *)4}
#endif
};

#elif FAKE_KIND == FAKE_ABI1
/* The descriptor as ABI 1 laid it out. */
EXPORT const struct {
    uint32_t abi_version, size;
    const char *name, *description;
    void *query, *init, *fini;
} plugshmem_transport = {1, 7 * 8, "abi1", "fake transport built for ABI 1", 0, 0, 0};

#else /* FAKE_NOSYM */
EXPORT int pshm_fake_not_a_transport = 1;
#endif
