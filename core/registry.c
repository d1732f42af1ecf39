#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "abi.h"
#include "plugin_file.h"
#include "registry.h"

#define PLUGIN_PREFIX "transport-"
#define PLUGIN_SUFFIX ".so"

static char dirs_searched[4096];
static char dirs_missing[4096];

/* The folder holding the loaded core library, so that a relocated install
 * still finds its plugins. */
int pshm_core_lib_dir(char *out, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)pshm_core_lib_dir, &info) || !info.dli_fname)
        return -1;
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real))
        return -1;
    char *slash = strrchr(real, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(out, len, "%s", real);
    return 0;
}

static struct pshm_plugin *find(struct pshm_registry *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->p[i].name, name) == 0)
            return &r->p[i];
    return NULL;
}

/* A file put first in the search to replace another of its name was meant
 * to be used: failing, it must not hand the job to another transport. */
static int rejected(struct pshm_plugin *p)
{
    if (p->hides) {
        p->broken = 1;
        size_t u = strlen(p->why);
        snprintf(p->why + u, sizeof p->why - u, "; it hides %s", p->hides);
    }
    return -1;
}

int pshm_registry_load(struct pshm_plugin *p)
{
    if (p->desc || p->why[0])
        return p->desc ? 0 : -1;
    /* libfabric pulls in libpsm_infinipath, whose constructor installs a
     * SIGSEGV handler that prints a backtrace and then blocks: a PE that
     * crashes would hang the job instead of dying. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    /* Checked before dlopen, which maps a file cut short beyond its end
     * and dies of SIGBUS touching it. */
    char what[300];
    if (pshm_plugin_file_check(p->path, what, sizeof what)) {
        p->broken = 1;
        snprintf(p->why, sizeof p->why, "damaged: %s", what);
        return rejected(p);
    }
    dlerror();
    p->dl = dlopen(p->path,
                   RTLD_NOW | RTLD_LOCAL | (PSHM_PLUGINS_STAY_LOADED ? RTLD_NODELETE : 0));
    if (!p->dl) {
        const char *e = dlerror();
        snprintf(p->why, sizeof p->why, "cannot load: %s", e ? e : "unknown dlopen error");
        return rejected(p);
    }
    const pshm_transport_desc *d = dlsym(p->dl, PSHM_TRANSPORT_SYMBOL);
    if (!d)
        snprintf(p->why, sizeof p->why, "not a PlugSHMEM transport: no symbol '%s'",
                 PSHM_TRANSPORT_SYMBOL);
    else if (pshm_abi_check_desc(d, p->why, sizeof p->why) == 0) {
        if (d->name && strcmp(d->name, p->name) == 0) {
            p->desc = d;
            return 0;
        }
        snprintf(p->why, sizeof p->why, "descriptor names itself '%s' but the file says '%s'",
                 d->name ? d->name : "(null)", p->name);
    }
    dlclose(p->dl);
    p->dl = NULL;
    return rejected(p);
}

static void scan_dir(struct pshm_registry *r, const char *dir, int from_user)
{
    size_t used = strlen(dirs_searched);
    snprintf(dirs_searched + used, sizeof dirs_searched - used, "%s%s", used ? ":" : "", dir);
    DIR *d = opendir(dir);
    if (!d) {
        used = strlen(dirs_missing);
        if (from_user)
            snprintf(dirs_missing + used, sizeof dirs_missing - used, "%s%s (%s)",
                     used ? ", " : "", dir, strerror(errno));
        return;
    }
    struct dirent *e;
    char **names = NULL;
    size_t nn = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        size_t pl = strlen(PLUGIN_PREFIX), sl = strlen(PLUGIN_SUFFIX);
        if (l <= pl + sl || strncmp(e->d_name, PLUGIN_PREFIX, pl) ||
            strcmp(e->d_name + l - sl, PLUGIN_SUFFIX))
            continue;
        char **nw = realloc(names, (nn + 1) * sizeof *names);
        if (!nw)
            break;
        names = nw;
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    /* Sorted so that the listing and ties in priority are reproducible. */
    for (size_t i = 1; i < nn; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t i = 0; i < nn; i++) {
        const char *f = names[i];
        size_t l = strlen(f), pl = strlen(PLUGIN_PREFIX), sl = strlen(PLUGIN_SUFFIX);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(l - pl - sl), f + pl);
        struct pshm_plugin *first = find(r, name);
        if (first && !first->hides) {
            size_t plen = strlen(dir) + l + 2;
            if ((first->hides = malloc(plen)))
                snprintf(first->hides, plen, "%s/%s", dir, f);
        }
        if (!first) {
            struct pshm_plugin *np = realloc(r->p, (size_t)(r->n + 1) * sizeof *np);
            if (np) {
                r->p = np;
                struct pshm_plugin *p = &r->p[r->n++];
                memset(p, 0, sizeof *p);
                p->name = strdup(name);
                size_t plen = strlen(dir) + l + 2;
                p->path = malloc(plen);
                snprintf(p->path, plen, "%s/%s", dir, f);
            }
        }
        free(names[i]);
    }
    free(names);
}

int pshm_registry_scan(struct pshm_registry *r, const char *extra_path)
{
    r->p = NULL;
    r->n = 0;
    dirs_searched[0] = '\0';
    dirs_missing[0] = '\0';
    if (extra_path && *extra_path) {
        char *copy = strdup(extra_path), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            scan_dir(r, d, 1);
        free(copy);
    }
    char libdir[PATH_MAX], dir[PATH_MAX + 64];
    if (pshm_core_lib_dir(libdir, sizeof libdir) == 0) {
        snprintf(dir, sizeof dir, "%s/plugshmem", libdir);
        struct stat st;
        if (stat(dir, &st) == 0) {
            scan_dir(r, dir, 0);
        } else {
            /* The build tree: the core library sits at the top of it and
             * each plugin in transports/NAME/. */
            static const char *const builtin[] = {"shm", "ofi", "ucx", "mpi"};
            for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
                snprintf(dir, sizeof dir, "%s/transports/%s", libdir, builtin[i]);
                if (stat(dir, &st) == 0)
                    scan_dir(r, dir, 0);
            }
        }
    }
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
        struct pshm_plugin *p = find(r, n);
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
        snprintf(buf, len, "none (searched %.900s)", dirs_searched[0] ? dirs_searched : "nothing");
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
            struct pshm_plugin *p = find(r, n);
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

void pshm_registry_release(struct pshm_registry *r, struct pshm_plugin *keep)
{
    for (int i = 0; i < r->n; i++) {
        struct pshm_plugin *p = &r->p[i];
        if (p != keep && p->dl)
            dlclose(p->dl);
        if (p != keep) {
            free(p->name);
            free(p->path);
        }
        free(p->hides);
        p->hides = NULL;
    }
    free(r->p);
    r->p = NULL;
    r->n = 0;
}

const char *pshm_registry_dirs(void) { return dirs_searched; }

const char *pshm_registry_missing(void) { return dirs_missing; }

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
