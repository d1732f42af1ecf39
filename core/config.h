/* The library's settings: every environment variable it reads, parsed once,
 * with its default and one line of help (shmem_info prints the table). */
#ifndef PSHM_CONFIG_H
#define PSHM_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "transport.h"

#define PSHM_DEFAULT_HEAP_SIZE ((size_t)256 << 20) /* the one place the default lives */
#define PSHM_WAIT_SPINS_AUTO (~0u) /* decided at init from PEs per core */
#define PSHM_WAIT_SLEEP_DEFAULT 500u /* microseconds */
#define PSHM_MAX_HEAP_SIZE ((size_t)64 << 40)     /* keeps size arithmetic far from overflow */

struct pshm_config {
    size_t symmetric_size;
    const char *transport;      /* preference list, NULL if unset */
    const char *transport_path; /* extra plugin folders, ':'-separated */
    const char *bootstrap;      /* "auto" or a bootstrap component's name */
    const char *globals;        /* "map" or "cma" */
    int debug;
    int info;
    int count_ops; /* SHMEM_COUNT_OPS (core/opcount.c) */
    int version;
    int bypass;
    unsigned wait_spins;
    unsigned wait_sleep_us; /* longest futex sleep of a wait; 0: never sleep, yield */
    int emulate_nodes; /* >1: PEs of a node with different (PE % n) act as on other nodes */
};

extern struct pshm_config pshm_cfg;

/* Parses every variable; on a bad value writes one line naming the
 * variable, the value and what is accepted into err and returns -1. */
int pshm_config_load(char *err, size_t errlen);
/* Prints "NAME  value  help" for every variable of the core and of the
 * collectives (their table, through core/coll_layer.h). */
void pshm_config_print(FILE *f);
/* The core's settings table. */
extern const pshm_setting pshm_core_settings[];
/* "512M" -> 536870912. Returns 0, or -1 if s is not a size. */
int pshm_parse_size(const char *s, size_t *out);
/* 1/0, yes/no, true/false, on/off. Returns 0, or -1. */
int pshm_parse_bool(const char *s, int *out);

#endif
