/* shmemx.h -- PlugSHMEM extensions beyond the OpenSHMEM standard. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <stdio.h>

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints what shmem_info prints: versions, transports found and which one
 * would be selected, and every environment variable the library reads. */
void shmemx_info_print(FILE *out);
/* The README's settings table: one Markdown row per variable of every
 * component found (shmem_info --markdown). */
void shmemx_info_settings_markdown(FILE *out);

/* The name of the transport in use ("shm", "ofi", ...), or NULL before
 * shmem_init. */
const char *shmemx_transport_name(void);

#ifdef __cplusplus
}
#endif

#endif
