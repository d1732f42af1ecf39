/* pmix_intruder: a PMIx client of another user trying to join a job.
 *
 * Run with the PMIx environment it could have (PMIX_SERVER_URI*, and a
 * PMIX_NAMESPACE/PMIX_RANK it guessed or stole), as another uid. It
 * calls PMIx_Init; should that succeed it reads the job's keys, publishes
 * oshrun's finalize report and aborts the job, printing what worked.
 * Prints "refused: ERROR" and exits 0 when PMIx_Init fails; exits 1 when
 * it got in. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);

    if (rc != PMIX_SUCCESS) {
        printf("refused: %s\n", PMIx_Error_string(rc));
        return 0;
    }
    printf("joined as %s rank %u\n", me.nspace, me.rank);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        printf("read %s\n", PMIX_JOB_SIZE);
        PMIX_VALUE_RELEASE(v);
    }
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, "plugshmem.finalized", &yes, PMIX_BOOL);
    if (PMIx_Publish(&info, 1) == PMIX_SUCCESS)
        printf("published the finalize report\n");
    PMIX_INFO_DESTRUCT(&info);
    PMIx_Abort(42, "intruder", NULL, 0);
    return 1;
}
