/* Memory spaces (shmemx_space_*): extra symmetric heaps, each a segment
 * of its own (PSHM_NSEGS and up) that the transport registers through
 * seg_register.  docs/extensions.md has the rules. */
#ifndef PSHM_SPACE_H
#define PSHM_SPACE_H

/* shmem_free of space memory: 1 if ptr is in a space (then freed). */
int pshm_space_free(void *ptr) PSHM_HIDDEN;
/* At shmem_finalize: detaches nothing (that is collective), forgets all. */
void pshm_spaces_fini(void) PSHM_HIDDEN;

#endif
