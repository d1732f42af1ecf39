/* The bootstrap components in order of preference, and the choice. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bootstrap.h"

/* PMIx first: oshrun serves PMIx and PMI to the same process, and PMIx
 * gives locality without an exchange.  The singleton detects always. */
static const struct pshm_boot_component *const components[] = {
    &pshm_boot_pmix,
    &pshm_boot_pmi,
    &pshm_boot_singleton,
};

const struct pshm_boot_component *pshm_boot_choose(const char *forced, const char **why)
{
    size_t n = sizeof components / sizeof *components;
    *why = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct pshm_boot_component *c = components[i];
        if (forced && *forced && strcmp(forced, "auto") != 0) {
            if (strcmp(forced, c->name) == 0) {
                *why = "SHMEM_BOOTSTRAP names it";
                return c;
            }
            continue;
        }
        if ((*why = c->detect()) != NULL)
            return c;
    }
    return NULL; /* only for a name the settings would have refused */
}

int pshm_boot_init(struct pshm_boot *b, const char *forced, char *err, size_t errlen)
{
    const char *why;
    const struct pshm_boot_component *c = pshm_boot_choose(forced, &why);
    if (!c) {
        snprintf(err, errlen, "SHMEM_BOOTSTRAP='%s' is not known; use one of %s", forced,
                 PSHM_BOOT_CHOICES);
        return -1;
    }
    return c->init(b, err, errlen);
}
