/* The one component loader: where component files are searched, how a
 * file is opened and its descriptor accepted, and how a refusal is told.
 * Transports (core/registry.c) and collectives components
 * (collectives/coll_ext.c) are two kinds of component; each kind gives
 * its file prefix, its build-tree folder, its symbol and its descriptor
 * check, and the rest is the same for both. */
#ifndef PSHM_LOADER_H
#define PSHM_LOADER_H

#include <stddef.h>

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

/* How every kind's descriptor begins, so that the loader can check the
 * version and the name without knowing the kind: the transport ABI fixed
 * {hdr, name} for its whole major, and coll_ext.h follows it. */
typedef struct pshm_component_head {
    pshm_abi_header hdr;
    const char *name;
} pshm_component_head;

struct pshm_component_kind {
    const char *noun;   /* "transport", in "not a PlugSHMEM transport" */
    const char *prefix; /* files are PREFIX NAME .so, e.g. "transport-" */
    const char *folder; /* in the build tree, FOLDER/NAME/ holds them, e.g. "transports" */
    const char *symbol; /* the descriptor's exported name */
    /* The descriptor's versions, sizes and mandatory fields: 0, or -1 with
     * one line in why (pshm_abi_check_header does the versions). */
    int (*check)(const void *desc, char *why, size_t len);
};

struct pshm_plugin {
    const struct pshm_component_kind *kind;
    char *name; /* from the file name PREFIX NAME .so */
    char *path;
    void *dl;   /* NULL if it could not be loaded or was rejected */
    union {     /* the accepted descriptor, NULL until then */
        const pshm_component_head *head;
        const pshm_transport_desc *desc; /* transports */
    };
    int queried;  /* loaded and asked (plugins are loaded only when needed) */
    int usable;   /* query() succeeded */
    int priority; /* query()'s answer */
    char why[512]; /* why it cannot be loaded or used */
    char *hides;   /* the first file of its name later in the search, or NULL; freed by
                    * pshm_registry_release, keep's too (a copy must not use it) */
    /* Set at load: the file is damaged, or it cannot be loaded and hides
     * another of its name.  Such a plugin is an error wherever it would
     * have been chosen, never passed over for the next one. */
    int broken;
    int misset;  /* query() refused because of one of its own settings (why says which) */
    int ceiling; /* max_priority(), INT_MAX if unknown; set once loaded for selection */
};

struct pshm_registry {
    struct pshm_plugin *p;
    int n;
    char searched[4096]; /* folders searched, ':'-separated */
    char missing[4096];  /* extra_path folders that could not be opened, ", "-separated */
};

/* Finds every file of kind k: in extra_path's ':'-separated folders, then
 * in plugshmem/ beside the loaded core library, or, where that folder does
 * not exist, in every folder of the build tree's k->folder (the core
 * library sits at the top of the build tree).  The first file of a name
 * wins.  Nothing is loaded yet. */
void pshm_loader_scan(struct pshm_registry *r, const struct pshm_component_kind *k,
                      const char *extra_path);
/* The entry of that name, or NULL. */
struct pshm_plugin *pshm_loader_find(struct pshm_registry *r, const char *name);
/* Loads one (once) and checks its descriptor: 0, or -1 with p->why. */
int pshm_registry_load(struct pshm_plugin *p);
/* Unloads every one except keep (may be NULL) and frees the list. */
void pshm_registry_release(struct pshm_registry *r, struct pshm_plugin *keep);
/* The folder of the loaded core library (0), or -1. */
int pshm_core_lib_dir(char *out, size_t len);

#endif
