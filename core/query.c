/* Setup queries, accessibility, shmem_ptr, and ending the job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "error.h"
#include "init.h"
#include "team.h"

PSHM_API int pshmem_my_pe(void) { return pshm_is_initialized() ? pshm_g.my_pe : -1; }
#pragma weak shmem_my_pe = pshmem_my_pe
PSHM_API int pshmem_n_pes(void) { return pshm_is_initialized() ? pshm_g.n_pes : -1; }
#pragma weak shmem_n_pes = pshmem_n_pes
PSHM_API int p_my_pe(void) { return pshmem_my_pe(); }
#pragma weak _my_pe = p_my_pe
PSHM_API int p_num_pes(void) { return pshmem_n_pes(); }
#pragma weak _num_pes = p_num_pes

PSHM_API void pstart_pes(int npes)
{
    (void)npes; /* the launcher decides; finalization happens at exit */
    if (!pshm_is_initialized())
        pshmem_init();
}
#pragma weak start_pes = pstart_pes

PSHM_API void pshmem_query_initialized(int *initialized)
{
    if (initialized)
        *initialized = pshm_is_initialized();
}
#pragma weak shmem_query_initialized = pshmem_query_initialized

PSHM_API void pshmem_query_thread(int *provided)
{
    if (provided)
        *provided = pshm_thread_level;
}
#pragma weak shmem_query_thread = pshmem_query_thread

PSHM_API void pshmem_global_exit(int status)
{
    pshm_job_abort(status);
}
#pragma weak shmem_global_exit = pshmem_global_exit

PSHM_API int pshmem_pe_accessible(int pe)
{
    PSHM_CHECK_INIT("shmem_pe_accessible");
    return pshm_is_initialized() && pe >= 0 && pe < pshm_g.n_pes;
}
#pragma weak shmem_pe_accessible = pshmem_pe_accessible

PSHM_API int pshmem_addr_accessible(const void *addr, int pe)
{
    PSHM_CHECK_INIT("shmem_addr_accessible");
    size_t off;
    return pshmem_pe_accessible(pe) && addr && pshm_seg_of(addr, &off) >= 0;
}
#pragma weak shmem_addr_accessible = pshmem_addr_accessible

PSHM_API void *pshmem_ptr(const void *dest, int pe)
{
    PSHM_CHECK_INIT("shmem_ptr");
    if (!pshmem_pe_accessible(pe))
        return NULL;
    if (pe == pshm_g.my_pe) {
        size_t off;
        return pshm_seg_of(dest, &off) >= 0 ? (void *)dest : NULL;
    }
    return pshm_mapped(dest, pe);
}
#pragma weak shmem_ptr = pshmem_ptr

PSHM_API void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    PSHM_CHECK_INIT("shmem_team_ptr");
    if (!team || pe < 0 || pe >= team->n_pes)
        return NULL;
    return pshmem_ptr(dest, team->world ? team->world[pe] : pe);
}
#pragma weak shmem_team_ptr = pshmem_team_ptr

PSHM_API void pshmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}
#pragma weak shmem_info_get_version = pshmem_info_get_version

PSHM_API void pshmem_info_get_name(char *name)
{
    if (!name)
        return;
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
#pragma weak shmem_info_get_name = pshmem_info_get_name

PSHM_API const char *pshmemx_transport_name(void) { return pshm_transport_in_use; }
#pragma weak shmemx_transport_name = pshmemx_transport_name
