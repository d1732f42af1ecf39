/* What shmem_info and SHMEM_INFO=1 print. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "coll_layer.h"
#include "config.h"
#include "error.h"
#include "info.h"
#include "init.h"
#include "registry.h"
#include "settings.h"

/* query() may read settings and report errors, as at shmem_init. */
static const char *info_getenv(const char *name) { return getenv(name); }

static void info_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_verror(fmt, ap);
    va_end(ap);
}

__attribute__((noreturn)) static void info_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_vfatal(fmt, ap);
}

PSHM_API void pshmemx_info_print(FILE *out)
{
    char err[1024];
    /* Parse the environment afresh without disturbing a running job's
     * settings (some are resolved at init, e.g. SHMEM_WAIT_SPINS=auto). */
    struct pshm_config running = pshm_cfg;
    int cfg_ok = pshm_config_load(err, sizeof err) == 0;
    if (pshm_is_initialized())
        pshm_cfg = running;

    fprintf(out, "PlugSHMEM %s, implementing OpenSHMEM %d.%d\n", PLUGSHMEM_VERSION_STRING,
            SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    fprintf(out, "Transport plugin ABI %u.%u\n\n", PSHM_TRANSPORT_ABI_MAJOR,
            PSHM_TRANSPORT_ABI_MINOR);

    /* Query plugins as a single-node job of this size would. */
    struct pshm_registry reg;
    pshm_registry_scan(&reg, getenv("SHMEM_TRANSPORT_PATH"));
    int n = pshm_is_initialized() ? pshm_g.n_pes : 1;
    int *local_of = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
        local_of[i] = i;
    pshm_core_services svc = {.hdr = PSHM_ABI_HEADER(pshm_core_services),
                              .my_pe = pshm_is_initialized() ? pshm_g.my_pe : 0,
                              .n_pes = n,
                              .n_local = n,
                              .local_of = local_of,
                              .getenv = info_getenv,
                              .error = info_error,
                              .fatal = info_fatal,
                              .debug = cfg_ok ? pshm_cfg.debug : 0,
                              .get_bool = pshm_setting_get_bool,
                              .get_uint = pshm_setting_get_uint,
                              .get_size = pshm_setting_get_size,
                              .get_choice = pshm_setting_get_choice,
                              .get_string = pshm_setting_get_string};
    pshm_registry_query(&reg, &svc);
    fprintf(out, "Transports (searched %s):\n", pshm_registry_dirs(&reg));
    if (*pshm_registry_missing(&reg))
        fprintf(out, "  warning: SHMEM_TRANSPORT_PATH: cannot open %s\n", pshm_registry_missing(&reg));
    for (int i = 0; i < reg.n; i++) {
        struct pshm_plugin *p = &reg.p[i];
        fprintf(out, "  %-6s %s\n", p->name, p->path);
        if (p->desc)
            fprintf(out, "         ABI %u.%u, %s; %s\n", p->desc->hdr.major, p->desc->hdr.minor,
                    p->desc->description,
                    p->usable ? "usable" : "not usable:");
        if (!p->usable)
            fprintf(out, "         %s\n", p->why);
        else
            fprintf(out, "         priority %d\n", p->priority);
        if (p->desc && p->usable)
            fprintf(out, "         explicit requests (shmemx_*_nbe) complete by %s\n",
                    PSHM_ABI_HAS(p->desc, pshm_transport_desc, nbe_completion) &&
                            p->desc->nbe_completion
                        ? p->desc->nbe_completion
                        : "a quiet of the context (no per-request completion in this transport)");
    }
    if (!reg.n)
        fprintf(out, "  none found\n");
    char why[2048];
    struct pshm_plugin *sel =
        pshm_registry_select(&reg, cfg_ok ? pshm_cfg.transport : getenv("SHMEM_TRANSPORT"), why,
                             sizeof why);
    if (pshm_is_initialized())
        fprintf(out, "Transport in use: %s\n", pshm_transport_in_use);
    else if (sel)
        fprintf(out, "Transport that would be selected: %s\n", sel->name);
    else
        fprintf(out, "Transport that would be selected: none: %s\n", why);
    const char *boot_why;
    const struct pshm_boot_component *boot =
        pshm_boot_choose(cfg_ok ? pshm_cfg.bootstrap : NULL, &boot_why);
    if (pshm_is_initialized())
        fprintf(out, "Bootstrap in use: %s\n", pshm_boot.name);
    else if (boot)
        fprintf(out, "Bootstrap that would be selected: %s, for %s (%s)\n", boot->name,
                boot->launcher, boot_why);

    fprintf(out, "\n");
    pshm_coll_layer.info(out, pshm_is_initialized() || cfg_ok);

    fprintf(out, "\nEnvironment (name, current value or default, meaning):\n");
    pshm_config_print(out);
    for (int i = 0; i < reg.n; i++)
        if (reg.p[i].desc)
            pshm_settings_print(out, reg.p[i].desc->settings);
    pshm_registry_release(&reg, NULL);
    free(local_of);
    if (!cfg_ok)
        fprintf(out, "\nConfiguration error: %s\n", err);
}

/* The README's settings table: every component's rows (shmem_info
 * --markdown); tests/unit/check_readme_settings.sh compares them. */
PSHM_API void pshmemx_info_settings_markdown(FILE *out)
{
    pshm_settings_markdown(out, "core", pshm_core_settings);
    pshm_settings_markdown(out, "collectives", pshm_coll_layer.settings());
    struct pshm_registry reg;
    pshm_registry_scan(&reg, getenv("SHMEM_TRANSPORT_PATH"));
    for (int i = 0; i < reg.n; i++) {
        char component[300];
        snprintf(component, sizeof component, "transport %s", reg.p[i].name);
        if (pshm_registry_load(&reg.p[i]) == 0) /* the descriptor holds the table */
            pshm_settings_markdown(out, component, reg.p[i].desc->settings);
    }
    pshm_registry_release(&reg, NULL);
}
#pragma weak shmemx_info_settings_markdown = pshmemx_info_settings_markdown
#pragma weak shmemx_info_print = pshmemx_info_print
