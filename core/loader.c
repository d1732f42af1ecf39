/* The one component loader (loader.h): the search, opening and acceptance
 * of transport-NAME.so and coll-NAME.so files alike. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader.h"
#include "plugin_file.h"

#define PLUGIN_SUFFIX ".so"

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

struct pshm_plugin *pshm_loader_find(struct pshm_registry *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->p[i].name, name) == 0)
            return &r->p[i];
    return NULL;
}

/* A file put first in the search to replace another of its name was meant
 * to be used: failing, it must not hand the job to another component. */
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
    if (p->head || p->why[0])
        return p->head ? 0 : -1;
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
    const pshm_component_head *d = dlsym(p->dl, p->kind->symbol);
    if (!d)
        snprintf(p->why, sizeof p->why, "not a PlugSHMEM %s: no symbol '%s'", p->kind->noun,
                 p->kind->symbol);
    else if (p->kind->check(d, p->why, sizeof p->why) == 0) {
        if (d->name && strcmp(d->name, p->name) == 0) {
            p->head = d;
            return 0;
        }
        snprintf(p->why, sizeof p->why, "descriptor names itself '%s' but the file says '%s'",
                 d->name ? d->name : "(null)", p->name);
    }
    dlclose(p->dl);
    p->dl = NULL;
    return rejected(p);
}

static void append(char *buf, size_t size, const char *sep, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", used ? sep : "", text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir's entries that keep() accepts, in name order (so that listings and
 * ties in priority are reproducible); closes dir.  *out is freed by the
 * caller, entries and array. */
static size_t sorted_entries(DIR *d, int (*keep)(const char *name, const void *arg),
                             const void *arg, char ***out)
{
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!keep(e->d_name, arg))
            continue;
        char **nw = realloc(names, (n + 1) * sizeof *names);
        if (!nw)
            break;
        names = nw;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    *out = names;
    return n;
}

/* A plugin file of kind arg: PREFIX-NAME.so. */
static int plugin_file(const char *f, const void *arg)
{
    const struct pshm_component_kind *k = arg;
    size_t l = strlen(f), pl = strlen(k->prefix), sl = strlen(PLUGIN_SUFFIX);
    return l > pl + sl && !strncmp(f, k->prefix, pl) && !strcmp(f + l - sl, PLUGIN_SUFFIX);
}

static int not_hidden(const char *f, const void *arg)
{
    (void)arg;
    return f[0] != '.';
}

/* Adds dir's files of the kind, in name order so that the listing and
 * ties in priority are reproducible. */
static void scan_dir(struct pshm_registry *r, const struct pshm_component_kind *k, const char *dir,
                     int from_user)
{
    append(r->searched, sizeof r->searched, ":", dir);
    DIR *d = opendir(dir);
    if (!d) {
        if (from_user) {
            char line[PATH_MAX + 64];
            snprintf(line, sizeof line, "%s (%s)", dir, strerror(errno));
            append(r->missing, sizeof r->missing, ", ", line);
        }
        return;
    }
    size_t pl = strlen(k->prefix), sl = strlen(PLUGIN_SUFFIX);
    char **names;
    size_t nn = sorted_entries(d, plugin_file, k, &names);
    for (size_t i = 0; i < nn; i++) {
        const char *f = names[i];
        size_t l = strlen(f), plen = strlen(dir) + l + 2;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(l - pl - sl), f + pl);
        struct pshm_plugin *first = pshm_loader_find(r, name);
        if (first && !first->hides && (first->hides = malloc(plen)))
            snprintf(first->hides, plen, "%s/%s", dir, f);
        struct pshm_plugin *np = first ? NULL : realloc(r->p, (size_t)(r->n + 1) * sizeof *np);
        if (np) {
            r->p = np;
            struct pshm_plugin *p = &r->p[r->n++];
            memset(p, 0, sizeof *p);
            p->kind = k;
            p->name = strdup(name);
            if ((p->path = malloc(plen)))
                snprintf(p->path, plen, "%s/%s", dir, f);
        }
        free(names[i]);
    }
    free(names);
}

/* The build tree keeps each component in a folder of its own
 * (transports/shm/transport-shm.so): every folder of k->folder is
 * searched, in name order, so that a new one needs no list here. */
static void scan_build_tree(struct pshm_registry *r, const struct pshm_component_kind *k,
                            const char *libdir)
{
    char top[PATH_MAX + 64], dir[2 * PATH_MAX + 64];
    snprintf(top, sizeof top, "%s/%s", libdir, k->folder);
    DIR *d = opendir(top);
    if (!d)
        return;
    char **subs;
    size_t n = sorted_entries(d, not_hidden, NULL, &subs);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", top, subs[i]);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            scan_dir(r, k, dir, 0);
        free(subs[i]);
    }
    free(subs);
}

void pshm_loader_scan(struct pshm_registry *r, const struct pshm_component_kind *k,
                      const char *extra_path)
{
    r->p = NULL;
    r->n = 0;
    r->searched[0] = '\0';
    r->missing[0] = '\0';
    if (extra_path && *extra_path) {
        char *copy = strdup(extra_path), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            scan_dir(r, k, d, 1);
        free(copy);
    }
    char libdir[PATH_MAX], dir[PATH_MAX + 64];
    if (pshm_core_lib_dir(libdir, sizeof libdir))
        return;
    snprintf(dir, sizeof dir, "%s/plugshmem", libdir);
    struct stat st;
    if (stat(dir, &st) == 0)
        scan_dir(r, k, dir, 0);
    else
        scan_build_tree(r, k, libdir);
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
