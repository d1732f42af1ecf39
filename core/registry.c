/* Transport selection: which of the transports found is queried, and
 * which one the job runs on (the files themselves: core/loader.c). */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "registry.h"

static int check_desc(const void *d, char *why, size_t len)
{
    return pshm_abi_check_desc(d, why, len);
}

_Static_assert(offsetof(pshm_transport_desc, name) == offsetof(pshm_component_head, name),
               "a transport descriptor begins as every component's does");

const struct pshm_component_kind pshm_transport_kind = {
    "transport", "transport-", "transports", PSHM_TRANSPORT_SYMBOL, check_desc};

int pshm_registry_scan(struct pshm_registry *r, const char *extra_path)
{
    pshm_loader_scan(r, &pshm_transport_kind, extra_path);
    return 0;
}

/* The most query() could answer, known without querying (INT_MAX: unknown). */
static int ceiling(struct pshm_plugin *p, const pshm_core_services *svc)
{
    pshm_registry_load(p);
    if (!p->desc)
        return p->ceiling = -1; /* cannot load: its why says so */
    if (!p->desc->max_priority)
        return p->ceiling = INT_MAX;
    return p->ceiling = p->desc->max_priority(svc);
}

/* Whether p's refusal starts with NAME=' of one of its own settings. */
static int names_own_setting(const struct pshm_plugin *p)
{
    for (const pshm_setting *s = p->desc->settings; s && s->name; s++) {
        size_t n = strlen(s->name);
        if (strncmp(p->why, s->name, n) == 0 && strncmp(p->why + n, "='", 2) == 0)
            return 1;
    }
    return 0;
}

/* Loads (once) and asks one plugin whether it can run here. */
static void query_one(struct pshm_plugin *p, const pshm_core_services *svc)
{
    if (p->queried)
        return;
    p->queried = 1;
    ceiling(p, svc);
    if (!p->desc)
        return;
    p->why[0] = '\0';
    p->priority = p->desc->query(svc, p->why, sizeof p->why);
    p->usable = p->priority >= 0;
    if (!p->usable && !p->why[0])
        snprintf(p->why, sizeof p->why, "not usable here");
    p->misset = !p->usable && names_own_setting(p);
}

void pshm_registry_query(struct pshm_registry *r, const pshm_core_services *svc)
{
    for (int i = 0; i < r->n; i++)
        query_one(&r->p[i], svc);
}

void pshm_registry_query_best(struct pshm_registry *r, const pshm_core_services *svc)
{
    int *cap = malloc(sizeof(int) * (size_t)(r->n ? r->n : 1));
    for (int i = 0; i < r->n; i++)
        cap[i] = ceiling(&r->p[i], svc);
    int best = -1;
    for (;;) {
        /* The unqueried plugin with the highest ceiling goes next. */
        int next = -1;
        for (int i = 0; i < r->n; i++)
            if (!r->p[i].queried && (next < 0 || cap[i] > cap[next]))
                next = i;
        if (next < 0 || (best >= 0 && cap[next] <= best))
            break;
        query_one(&r->p[next], svc);
        if (r->p[next].usable && r->p[next].priority > best)
            best = r->p[next].priority;
    }
    free(cap);
}

/* The next name of a "a, b,c" list, blanks trimmed and empty names
 * skipped; NULL at the end.  Modifies the list in place. */
static char *next_name(char **cursor)
{
    while (**cursor) {
        char *n = *cursor;
        char *end = strchr(n, ',');
        *cursor = end ? end + 1 : n + strlen(n);
        if (end)
            *end = '\0';
        while (*n == ' ' || *n == '\t')
            n++;
        char *t = n + strlen(n);
        while (t > n && (t[-1] == ' ' || t[-1] == '\t'))
            *--t = '\0';
        if (*n)
            return n;
    }
    return NULL;
}

void pshm_registry_query_list(struct pshm_registry *r, const pshm_core_services *svc,
                              const char *names)
{
    char *copy = strdup(names), *cur = copy, *n;
    while ((n = next_name(&cur))) {
        struct pshm_plugin *p = pshm_loader_find(r, n);
        if (p) {
            query_one(p, svc);
            if (p->usable || p->broken || p->misset)
                break; /* it decides: no need to load the rest */
        }
    }
    free(copy);
}

static void list_installed(struct pshm_registry *r, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n && u < len; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s%s%s", i ? ", " : "", r->p[i].name,
                              r->p[i].queried && !r->p[i].usable ? " (unusable)" : "");
    if (!r->n)
        snprintf(buf, len, "none (searched %.900s)", r->searched[0] ? r->searched : "nothing");
}

struct pshm_plugin *pshm_registry_select(struct pshm_registry *r, const char *pref, char *err,
                                         size_t errlen)
{
    char installed[1024];
    list_installed(r, installed, sizeof installed);
    if (pref) {
        char *copy = strdup(pref), *cur = copy, *n;
        char reasons[4096] = "";
        size_t ru = 0;
        while ((n = next_name(&cur))) {
            struct pshm_plugin *p = pshm_loader_find(r, n);
            if (p && p->usable) {
                free(copy);
                return p;
            }
            if (p && p->misset) {
                snprintf(err, errlen, "SHMEM_TRANSPORT='%s': transport '%s' refused: %s", pref,
                         p->name, p->why);
                free(copy);
                return NULL;
            }
            if (p && p->broken) {
                snprintf(err, errlen, "SHMEM_TRANSPORT='%s': transport '%s' (%s) cannot be used: %s; repair or "
                         "remove the file",
                         pref, p->name, p->path, p->why);
                free(copy);
                return NULL;
            }
            if (ru < sizeof reasons)
                ru += (size_t)snprintf(reasons + ru, sizeof reasons - ru, "%s%s: %s",
                                       ru ? "; " : "", n,
                                       !p ? "not installed" : p->why[0] ? p->why : "not tried");
        }
        free(copy);
        if (!ru) {
            snprintf(err, errlen, "SHMEM_TRANSPORT='%s' names no transport; installed: %.1000s",
                     pref, installed);
            return NULL;
        }
        snprintf(err, errlen, "SHMEM_TRANSPORT='%s': no usable transport (%.1500s); installed: %.1000s",
                 pref, reasons, installed);
        return NULL;
    }
    struct pshm_plugin *best = NULL;
    for (int i = 0; i < r->n; i++)
        if (r->p[i].broken) {
            snprintf(err, errlen, "transport '%s' (%s) cannot be used: %.600s; it might have been chosen: "
                     "repair or remove the file, or name the transport with SHMEM_TRANSPORT "
                     "(installed: %.900s)",
                     r->p[i].name, r->p[i].path, r->p[i].why, installed);
            return NULL;
        }
    for (int i = 0; i < r->n; i++)
        if (r->p[i].usable && (!best || r->p[i].priority > best->priority))
            best = &r->p[i];
    /* Queried and refused for a setting, it could have beaten the choice
     * (query_best asks only those that can): the setting decides. */
    for (int i = 0; i < r->n; i++)
        if (r->p[i].misset && (!best || r->p[i].ceiling > best->priority)) {
            snprintf(err, errlen, "transport '%s' refused: %.900s", r->p[i].name, r->p[i].why);
            return NULL;
        }
    if (!best)
        snprintf(err, errlen, "no usable transport; installed: %s", installed);
    return best;
}

const char *pshm_registry_dirs(const struct pshm_registry *r) { return r->searched; }

const char *pshm_registry_missing(const struct pshm_registry *r) { return r->missing; }

static int reads(const pshm_setting *t, const char *name)
{
    for (; t && t->name; t++)
        if (strcmp(t->name, name) == 0)
            return 1;
    return 0;
}

void pshm_registry_unread_settings(const struct pshm_registry *r, const struct pshm_plugin *chosen,
                                   char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (int i = 0; i < r->n; i++) {
        const struct pshm_plugin *p = &r->p[i];
        if (p == chosen || !p->desc)
            continue;
        for (const pshm_setting *s = p->desc->settings; s && s->name; s++) {
            const char *v = getenv(s->name);
            int seen = 0;
            /* Once per variable: the first plugin listing it names it. */
            for (int k = 0; k < i && !seen; k++)
                seen = &r->p[k] != chosen && r->p[k].desc && reads(r->p[k].desc->settings, s->name);
            if (!v || seen || (chosen && chosen->desc && reads(chosen->desc->settings, s->name)))
                continue;
            u += (size_t)snprintf(out + u, u < len ? len - u : 0, "%s%s='%s' (transport %s", u ? ", " : "",
                                  s->name, v, p->name);
            for (int k = i + 1; k < r->n; k++)
                if (&r->p[k] != chosen && r->p[k].desc && reads(r->p[k].desc->settings, s->name))
                    u += (size_t)snprintf(out + u, u < len ? len - u : 0, ", %s", r->p[k].name);
            u += (size_t)snprintf(out + u, u < len ? len - u : 0, ")");
        }
    }
}
