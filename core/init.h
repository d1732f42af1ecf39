/* Library lifetime: initialization, finalization, ending the job. */
#ifndef PSHM_INIT_H
#define PSHM_INIT_H

#include "bootstrap.h"

/* Ends every PE of the job with status; works before and after init. */
void pshm_job_abort(int status) __attribute__((noreturn));
int pshm_is_initialized(void);
/* A configuration error, the same on every PE: one line (PE 0's), then
 * the job ends when fatal; otherwise prints it and returns -1. */
int pshm_config_fail(int rank, const char *msg, int fatal);
/* The bootstrap in use (valid while initialized). */
extern struct pshm_boot pshm_boot;
extern const char *pshm_transport_in_use;
extern int pshm_thread_level;

#endif
