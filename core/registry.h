/* Transport plugin discovery, validation and selection. */
#ifndef PSHM_REGISTRY_H
#define PSHM_REGISTRY_H

#include <stdio.h>

#include "transport.h"

/* 1 in builds with AddressSanitizer, where plugins stay loaded (RTLD_NODELETE)
 * once opened: ASan keeps an unloaded module's globals in its list and
 * crashes when it later describes an address near a global (that is, in
 * the report of a global-buffer-overflow), and LeakSanitizer cannot name
 * code that is no longer mapped. */
#if defined(__SANITIZE_ADDRESS__)
#define PSHM_PLUGINS_STAY_LOADED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PSHM_PLUGINS_STAY_LOADED 1
#endif
#endif
#ifndef PSHM_PLUGINS_STAY_LOADED
#define PSHM_PLUGINS_STAY_LOADED 0
#endif

struct pshm_plugin {
    char *name; /* from the file name transport-NAME.so */
    char *path;
    void *dl;   /* NULL if it could not be loaded or was rejected */
    const pshm_transport_desc *desc;
    int queried;  /* loaded and asked (plugins are loaded only when needed) */
    int usable;   /* query() succeeded */
    int priority; /* query()'s answer */
    char why[512]; /* why it cannot be loaded or used */
    char *hides;   /* the first file of its name later in the search, or NULL; freed by
                    * pshm_registry_release, keep's too (a copy must not use it) */
    /* Set at load: the file is damaged, or it cannot be loaded and hides
     * another of its name.  Such a plugin is an error wherever it would
     * have been chosen, never passed over for the next transport. */
    int broken;
    int misset;  /* query() refused because of one of its own settings (why says which) */
    int ceiling; /* max_priority(), INT_MAX if unknown; set once loaded for selection */
};

struct pshm_registry {
    struct pshm_plugin *p;
    int n;
};

/* Finds every transport-*.so in SHMEM_TRANSPORT_PATH, then in the install's
 * plugin folder (next to the loaded core library), then in the build tree;
 * the first file of a name wins.  Nothing is loaded yet. */
int pshm_registry_scan(struct pshm_registry *r, const char *extra_path);
/* Loads one plugin (once) and checks its descriptor: 0, or -1 with p->why. */
int pshm_registry_load(struct pshm_plugin *p);
/* Loads every plugin and runs its query() against svc. */
void pshm_registry_query(struct pshm_registry *r, const pshm_core_services *svc);
/* Queries only as many plugins as it takes to know the best usable one:
 * best ceiling (descriptor's max_priority) first, stopping once no
 * unqueried plugin could beat the best found. */
void pshm_registry_query_best(struct pshm_registry *r, const pshm_core_services *svc);
/* The same for the plugins of a "name,name" list only, in its order,
 * stopping at the first usable one: a job that names its transport does
 * not pay for loading the others. */
void pshm_registry_query_list(struct pshm_registry *r, const pshm_core_services *svc,
                              const char *names);
/* Picks a plugin: from the ordered list pref ("ofi,shm") if given, else the
 * usable one of highest priority.  Returns it, or NULL with one line in err.
 * A broken plugin fails the selection when it comes first in pref before a
 * usable one, and always without pref: its priority cannot be known. */
struct pshm_plugin *pshm_registry_select(struct pshm_registry *r, const char *pref, char *err,
                                         size_t errlen);
/* Unloads every plugin except keep (may be NULL) and frees the list. */
void pshm_registry_release(struct pshm_registry *r, struct pshm_plugin *keep);
/* The folder of the loaded core library (0), or -1. */
int pshm_core_lib_dir(char *out, size_t len);
/* Folders searched, in order, ':'-separated (for shmem_info). */
const char *pshm_registry_dirs(void);
/* Settings of the loaded plugins other than chosen that are set in the
 * environment although chosen (and the core) does not read them: one
 * "NAME='value' (transport a, b)" per variable, ", "-separated, into out
 * ("" if none). */
void pshm_registry_unread_settings(const struct pshm_registry *r, const struct pshm_plugin *chosen,
                                   char *out, size_t len);
/* The SHMEM_TRANSPORT_PATH folders of the last scan that could not be
 * opened, ':'-separated ("" if none). */
const char *pshm_registry_missing(void);

#endif
