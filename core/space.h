/* Memory spaces (shmemx_space_*): extra symmetric heaps, each a segment
 * of its own (PSHM_NSEGS and up) that the transport registers through
 * seg_register.  docs/extensions.md has the rules. */
#ifndef PSHM_SPACE_H
#define PSHM_SPACE_H

struct pshm_space;
struct pshm_ctx;

/* shmem_free of space memory: 1 if ptr is in a space (then freed). */
int pshm_space_free(void *ptr) PSHM_HIDDEN;
/* shmem_ctx_destroy of a space's context: the space forgets it, so that
 * detach and destroy never touch it again. */
void pshm_space_forget_ctx(struct pshm_space *sp, struct pshm_ctx *ctx) PSHM_HIDDEN;
/* At shmem_finalize: detaches nothing (that is collective), forgets all. */
void pshm_spaces_fini(void) PSHM_HIDDEN;

#endif
