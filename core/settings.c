/* Checking and printing settings tables. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "settings.h"

void pshm_choices_list(const char *choices, const char *last, char *out, size_t len)
{
    size_t o = 0;
    const char *final_bar = strrchr(choices, '|');
    out[0] = '\0';
    for (const char *p = choices; *p && o + 5 < len; p++) {
        if (*p != '|') {
            out[o++] = *p;
            continue;
        }
        const char *sep = p == final_bar ? last : ", ";
        size_t n = strlen(sep);
        if (o + n + 1 >= len)
            break;
        memcpy(out + o, sep, n);
        o += n;
    }
    out[o] = '\0';
}

int pshm_choice_index(const char *choices, const char *v)
{
    size_t len = strlen(v);
    int i = 0;
    for (const char *c = choices; *c; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == len && strncasecmp(c, v, len) == 0)
            return i;
        c += cl + (bar != NULL);
    }
    return -1;
}

int pshm_setting_check(const pshm_setting *s, const char *v, char *err, size_t len)
{
    int b;
    size_t z;
    char list[512];
    switch (s->type) {
    case PSHM_SETTING_BOOL:
        if (pshm_parse_bool(v, &b) == 0)
            return 0;
        snprintf(err, len, "%s='%s' is not a boolean; use 1 or 0 (also yes/no, true/false, on/off)",
                 s->name, v);
        return -1;
    case PSHM_SETTING_AUTO_BOOL:
        if (!*v || strcasecmp(v, "auto") == 0 || pshm_parse_bool(v, &b) == 0)
            return 0;
        snprintf(err, len, "%s='%s' is not known; use auto, 1 or 0", s->name, v);
        return -1;
    case PSHM_SETTING_UINT:
        if (!*v || strspn(v, "0123456789") == strlen(v))
            return 0;
        snprintf(err, len, "%s='%s' is not a count; use an integer >= 0", s->name, v);
        return -1;
    case PSHM_SETTING_SIZE:
        if (!*v || pshm_parse_size(v, &z) == 0)
            return 0;
        snprintf(err, len,
                 "%s='%s' is not a size; use bytes or a number with K, M, G or T (powers of "
                 "1024), e.g. 512M",
                 s->name, v);
        return -1;
    case PSHM_SETTING_CHOICE:
        if (!*v || !s->choices || pshm_choice_index(s->choices, v) >= 0)
            return 0;
        pshm_choices_list(s->choices, " or ", list, sizeof list);
        snprintf(err, len, "%s='%s' is not known; use %s", s->name, v, list);
        return -1;
    default:
        return 0;
    }
}

int pshm_settings_check(const pshm_setting *t, char *err, size_t len)
{
    for (; t && t->name; t++) {
        const char *v = getenv(t->name);
        if (v && pshm_setting_check(t, v, err, len))
            return -1;
    }
    return 0;
}

void pshm_settings_print(FILE *f, const pshm_setting *t)
{
    for (; t && t->name; t++) {
        const char *v = getenv(t->name);
        fprintf(f, "  %-26s %-26s %s\n", t->name, v ? v : t->def, t->help);
    }
}

void pshm_settings_markdown(FILE *f, const char *component, const pshm_setting *t)
{
    for (; t && t->name; t++)
        fprintf(f, "| `%s` | %s | %s | %s |\n", t->name, component, t->def, t->help);
}

/* The typed getters of pshm_core_services.  The core checked the form of
 * every set variable of the selected plugin's table before its init(), so
 * a value these cannot read is one nobody checked (shmem_info queries
 * plugins without checking): they answer the default then, rather than
 * failing in a way no plugin could report better. */

const char *pshm_setting_get_string(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int pshm_setting_get_bool(const char *name, int dflt)
{
    const char *v = pshm_setting_get_string(name);
    int b;
    if (!v)
        return dflt;
    if (strcasecmp(v, "auto") == 0)
        return -1;
    return pshm_parse_bool(v, &b) == 0 ? b : dflt;
}

unsigned long pshm_setting_get_uint(const char *name, unsigned long dflt)
{
    const char *v = pshm_setting_get_string(name);
    if (!v || strspn(v, "0123456789") != strlen(v))
        return dflt;
    /* strtoul saturates at ULONG_MAX, which any upper bound a plugin
     * checks then refuses. */
    return strtoul(v, NULL, 10);
}

size_t pshm_setting_get_size(const char *name, size_t dflt)
{
    const char *v = pshm_setting_get_string(name);
    size_t z;
    return v && pshm_parse_size(v, &z) == 0 ? z : dflt;
}

int pshm_setting_choice(const pshm_setting *s)
{
    const char *v = getenv(s->name);
    int i = v && *v && s->choices ? pshm_choice_index(s->choices, v) : 0;
    return i < 0 ? 0 : i;
}

int pshm_setting_get_choice(const char *name, const char *const *words, int dflt)
{
    const char *v = pshm_setting_get_string(name);
    if (!v || !words)
        return dflt;
    for (int i = 0; words[i]; i++)
        if (strcasecmp(words[i], v) == 0)
            return i;
    return dflt;
}
