/* The versioning and completeness rules of core/transport.h, applied to
 * the tables a plugin hands the core. */
#ifndef PSHM_ABI_H
#define PSHM_ABI_H

#include <stddef.h>

#include "transport.h"

/* A kind of component's versioning: transport.h's rule (same major; a
 * table at least as large as its minor, or as ours for a newer minor),
 * with the kind's own numbers and words. */
struct pshm_abi_rule {
    const char *abi;     /* "transport ABI", in "built for transport ABI 1.0" */
    const char *what;    /* "plugin": "the plugin was built inconsistently" */
    const char *rebuild; /* what to do about another major */
    unsigned major, minor;
};

/* h against rule; sizes[m] is the table's size in minor m of the major
 * (m from 0 to rule->minor).  0, or -1 with one line in why naming both
 * versions (and both sizes for a short table). */
int pshm_abi_check_header(const struct pshm_abi_rule *rule, const char *table,
                          const pshm_abi_header *h, const uint32_t *sizes, char *why, size_t len);

/* The descriptor, at load.  Returns 0, or -1 with the reason in why (one
 * line, without the plugin's name: the registry adds it). */
int pshm_abi_check_desc(const pshm_transport_desc *d, char *why, size_t len);

/* The ops table init() returned.  Returns 0 having copied it into *out as
 * this core's table: fields the plugin's size lacks are NULL, optional ops
 * it left NULL are replaced by what the core does without them (put_nbi ->
 * put, get_nbi -> get), so callers test nothing.  Returns -1 with the
 * reason in why if a version, the size or a mandatory op is wrong. */
int pshm_abi_adopt_ops(const pshm_transport_ops *in, pshm_transport_ops *out, char *why,
                       size_t len);

#endif
