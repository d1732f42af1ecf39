/* Native collectives by the transport's messages (native_msg.c), on
 * teams whose members reach each other only through the transport. */
#ifndef PSHM_NATIVE_MSG_H
#define PSHM_NATIVE_MSG_H

#include <stddef.h>

#include "coll.h"
#include "team.h"

/* Whether t could run on messages: the transport has them, they are not
 * turned off, and no other member of t is mapped here.  Callers make sure
 * every member answers alike (pshm_coll_team_attach, hier.c). */
int pshm_coll_msg_usable(const struct pshm_team *t) PSHM_HIDDEN;

/* What the barrier, reductions and fcollect of t do on messages, in a
 * few words for shmem_info. */
const char *pshm_msg_shape(const struct pshm_team *t) PSHM_HIDDEN;

int pshm_msg_barrier(struct pshm_team *t) PSHM_HIDDEN;
int pshm_msg_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes,
                       int root) PSHM_HIDDEN;
int pshm_msg_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                    const struct pshm_red *r) PSHM_HIDDEN;
int pshm_msg_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
/* Block i of len[i] bytes at buf + off[i] from member i to every member
 * (this PE's own block in place). */
void pshm_msg_fcollectv(struct pshm_team *t, void *buf, const size_t *off,
                        const size_t *len) PSHM_HIDDEN;
int pshm_msg_collect(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
int pshm_msg_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;
/* The same with the blocks of members mapped here stored into their dest
 * by load/store, for a caller that entered t for writing and closes with
 * a barrier of those members. */
void pshm_msg_alltoalls_direct(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;

#endif
