/*
 * The settings every network plugin reads alike, over the core's typed
 * getters (pshm_core_services, ABI 2.3).  In-tree only: it includes the
 * core's transport.h by the in-tree path, which the SDK layout lacks.
 */
#ifndef PSHM_SETTINGS_KIT_H
#define PSHM_SETTINGS_KIT_H

#include "transport.h"

#define PSHM_PROGRESS_INTERVAL_DEFAULT 100ul
#define PSHM_PROGRESS_INTERVAL_MAX 10000000ul

/* 0, or -1 with one line in why: a plugin of this tree loaded by an older
 * core (SHMEM_TRANSPORT_PATH) would otherwise call getters it lacks.  For
 * query() (why is its refusal) and init() alike. */
int pshm_kit_ready(const pshm_core_services *svc, char *why, size_t whylen);

/* The rows of a plugin's settings table that pshm_kit_progress reads, with
 * the same names in every plugin: one job runs one network transport, and
 * users set them alike for each.  who: "ofi transport"; when_auto: what
 * auto means for this plugin.  The default is PSHM_PROGRESS_INTERVAL_DEFAULT
 * spelt as a string. */
#define PSHM_KIT_PROGRESS_SETTINGS(who, when_auto)                                                 \
    {"SHMEM_PROGRESS_THREAD", PSHM_SETTING_AUTO_BOOL, "auto", NULL,                                \
     who ": progress thread serving peers while the program computes (auto: " when_auto            \
     "; 1 or 0)"},                                                                                 \
    {"SHMEM_PROGRESS_INTERVAL", PSHM_SETTING_UINT, "100", NULL,                                    \
     who ": microseconds between progress-thread polls (1 to 10000000)"}

/* SHMEM_PROGRESS_THREAD (*want_thread: 1, 0, or -1 for auto) and
 * SHMEM_PROGRESS_INTERVAL (microseconds, 1 to PSHM_PROGRESS_INTERVAL_MAX).
 * 0, or -1 having reported a value out of range. */
int pshm_kit_progress(const pshm_core_services *svc, int *want_thread, unsigned *interval_us);

/* SHMEM_PROGRESS_THREAD alone (1, 0, or -1 for auto), checking nothing:
 * for query(), which must not report what init() will. */
int pshm_kit_progress_thread(const pshm_core_services *svc);

#endif
