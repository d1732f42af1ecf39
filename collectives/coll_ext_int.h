/* The core's side of a run-time collectives component (coll_ext.c) and
 * the auto selection (coll_auto.c): declarations shared with the table,
 * the active-set routines and shmem_info. */
#ifndef PSHM_COLL_EXT_INT_H
#define PSHM_COLL_EXT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "coll.h"
#include "coll_ext.h"

/* Every operation on the component (SHMEM_COLLECTIVES=NAME), or by its
 * rules (auto). */
enum { PSHM_CEXT_MODE_NATIVE, PSHM_CEXT_MODE_ALL, PSHM_CEXT_MODE_AUTO };

extern int pshm_cext_mode PSHM_HIDDEN;
extern const struct pshm_coll_ops pshm_coll_ext_ops PSHM_HIDDEN;

/* Finds and opens the component want names (a SHMEM_COLLECTIVES value:
 * NAME for coll-NAME.so, or auto): 0, or -1 with one line in why that
 * starts with the variable. */
int pshm_cext_load(const char *want, char *why, size_t whylen) PSHM_HIDDEN;
const struct pshm_cext *pshm_cext_loaded(const char **path) PSHM_HIDDEN;
void pshm_cext_unload(void) PSHM_HIDDEN;
void pshm_cext_fill_svc(struct pshm_cext_svc *s, int my_pe, int n_pes,
                        int thread_multiple) PSHM_HIDDEN;

/* Active sets (SHMEM_COLLECTIVES=NAME only): the component and the set's
 * communicator, or NULL to run the native pSync algorithms. */
const struct pshm_cext *pshm_cext_as(int start, int logstride, int size, int me,
                                     void **h) PSHM_HIDDEN;
void pshm_cext_as_age(uint64_t world_epoch) PSHM_HIDDEN;
void pshm_cext_as_flush(void) PSHM_HIDDEN;

/* auto: 1 when op on a team of n PEs (all mapped or not, its native
 * algorithms on the transport's messages or not) with this many bytes per
 * PE runs on the component.  The same on every member. */
int pshm_cext_auto_pick(int op, int n, int all_mapped, int msg, size_t bytes) PSHM_HIDDEN;
/* shmem_info's line on the coll-NAME.so files found (nothing is loaded). */
void pshm_cext_list(FILE *out) PSHM_HIDDEN;
/* shmem_info's lines on what each operation resolves to. */
void pshm_cext_info(FILE *out, const char *want) PSHM_HIDDEN;

#endif
