/* Transport plugin discovery, validation and selection. */
#ifndef PSHM_REGISTRY_H
#define PSHM_REGISTRY_H

#include <stdio.h>

#include "loader.h"

/* The transport kind of component (core/loader.c loads them). */
extern const struct pshm_component_kind pshm_transport_kind;

/* Finds every transport-*.so (pshm_loader_scan): in extra_path
 * (SHMEM_TRANSPORT_PATH), then the install's plugin folder, else the build
 * tree's transports/NAME/.  Nothing is loaded yet. */
int pshm_registry_scan(struct pshm_registry *r, const char *extra_path);
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
/* Folders searched, in order, ':'-separated (for shmem_info). */
const char *pshm_registry_dirs(const struct pshm_registry *r);
/* Settings of the loaded plugins other than chosen that are set in the
 * environment although chosen (and the core) does not read them: one
 * "NAME='value' (transport a, b)" per variable, ", "-separated, into out
 * ("" if none). */
void pshm_registry_unread_settings(const struct pshm_registry *r, const struct pshm_plugin *chosen,
                                   char *out, size_t len);
/* The SHMEM_TRANSPORT_PATH folders of r's scan that could not be opened,
 * ", "-separated ("" if none). */
const char *pshm_registry_missing(const struct pshm_registry *r);

#endif
