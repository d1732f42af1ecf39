/* The versioning and completeness rules of core/transport.h, applied to
 * the tables a plugin hands the core. */
#ifndef PSHM_ABI_H
#define PSHM_ABI_H

#include <stddef.h>

#include "transport.h"

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
