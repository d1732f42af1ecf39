/* The pmix component of a library configured with -Dpmix=disabled (the
 * aarch64 build of tests/portability, a site without libpmix): it still
 * recognizes a PMIx launcher, so that such a job stops with one line
 * instead of running as N singletons.  Under oshrun, which serves PMI-1
 * beside PMIx, the pmi component is chosen and this one stays silent. */
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap.h"

static const char *nopmix_detect(void)
{
    if (pshm_boot_pmi.detect())
        return NULL;
    if (getenv("PMIX_NAMESPACE"))
        return "PMIX_NAMESPACE is set";
    if (getenv("PMIX_RANK"))
        return "PMIX_RANK is set";
    return NULL;
}

static int nopmix_init(struct pshm_boot *b, char *err, size_t errlen)
{
    const char *ns = getenv("PMIX_NAMESPACE");
    (void)b;
    snprintf(err, errlen,
             "bootstrap: started by a PMIx launcher (PMIX_NAMESPACE=%s) but this PlugSHMEM was "
             "built without PMIx (-Dpmix=disabled); use a PMI launcher (MPICH's mpiexec, "
             "srun --mpi=pmi2, oshrun) or a build with PMIx",
             ns ? ns : "(unset)");
    return -1;
}

const struct pshm_boot_component pshm_boot_pmix = {
    .name = "pmix",
    .launcher = "a PMIx launcher (not built in: -Dpmix=disabled)",
    .detect = nopmix_detect,
    .init = nopmix_init,
};
