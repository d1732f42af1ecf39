/* Settings tables (pshm_setting, core/transport.h): one per component
 * (core, collectives, each transport), each the single place its variables
 * are written; these check values by type and print the tables for
 * shmem_info and the README. */
#ifndef PSHM_SETTINGS_H
#define PSHM_SETTINGS_H

#include <stdio.h>

#include "transport.h"

/* Checks value (non-NULL) against s's type.  Returns 0, or -1 with one line
 * naming the variable, the value and what is accepted. */
int pshm_setting_check(const pshm_setting *s, const char *value, char *err, size_t len);
/* Checks every set variable of a table (ended by a NULL name). */
int pshm_settings_check(const pshm_setting *table, char *err, size_t len);
/* "  NAME  value-or-default  help" per variable. */
void pshm_settings_print(FILE *f, const pshm_setting *table);
/* One README row per variable: | `NAME` | component | `default` | help | */
void pshm_settings_markdown(FILE *f, const char *component, const pshm_setting *table);

/* The index of v among the '|'-separated choices (any case), or -1. */
int pshm_choice_index(const char *choices, const char *v);
/* "a|b|c" -> "a, b" + last + "c" (last: " or ", ", "). */
void pshm_choices_list(const char *choices, const char *last, char *out, size_t len);
/* The index of a CHOICE setting's value among its choices (a value
 * pshm_setting_check accepted); 0 when unset or empty. */
int pshm_setting_choice(const pshm_setting *s);

/* The typed getters of pshm_core_services (transport.h says what each
 * answers). */
int pshm_setting_get_bool(const char *name, int dflt);
unsigned long pshm_setting_get_uint(const char *name, unsigned long dflt);
size_t pshm_setting_get_size(const char *name, size_t dflt);
int pshm_setting_get_choice(const char *name, const char *const *words, int dflt);
const char *pshm_setting_get_string(const char *name);

#endif
