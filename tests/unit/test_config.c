/*
 * Unit test of the settings parser (core/config.c): pshm_parse_size,
 * pshm_parse_bool, pshm_config_load and pshm_config_print.
 *
 * Build by hand: gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Icore \
 *                    core/config.c tests/unit/test_config.c -o /tmp/test_config
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_config.h"
#include "coll_layer.h"
#include "config.h"
#define CHECK_WITHOUT_SHMEM /* these tests call the core directly, not the library */
#include "../common/check.h"
#include "settings.h"

static const char *const all_vars[] = {
    "SHMEM_SYMMETRIC_SIZE", "SHMEM_TRANSPORT", "SHMEM_TRANSPORT_PATH", "SHMEM_BYPASS",
    "SHMEM_GLOBALS",        "SHMEM_WAIT_SPINS", "SHMEM_DEBUG",         "SHMEM_INFO",
    "SHMEM_VERSION",        "PLUGSHMEM_JOB_TAG", "SHMEM_WAIT_SLEEP",
};
#define NVARS (sizeof all_vars / sizeof all_vars[0])

static void clear_env(void)
{
    for (size_t i = 0; i < NVARS; i++)
        unsetenv(all_vars[i]);
}

/* ---- pshm_parse_size ------------------------------------------------------ */

static void size_ok(const char *s, size_t want, int line)
{
    size_t v = 0xdeadbeef;
    int rc = pshm_parse_size(s, &v);
    check_at(__FILE__, line, rc == 0 && v == want, "pshm_parse_size(\"%s\") = %d, %zu; want 0, %zu",
             s, rc, v, want);
}

static void size_bad(const char *s, int line)
{
    size_t v = 4242;
    int rc = pshm_parse_size(s, &v);
    check_at(__FILE__, line, rc == -1 && v == 4242,
             "pshm_parse_size(\"%s\") = %d (out %zu); want -1 with out untouched", s ? s : "(null)",
             rc, v);
}

#define SIZE_OK(s, v) size_ok((s), (v), __LINE__)
#define SIZE_BAD(s) size_bad((s), __LINE__)

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define TiB ((size_t)1 << 40)

static void test_size_plain(void)
{
    SIZE_OK("0", 0);
    SIZE_OK("1", 1);
    SIZE_OK("4096", 4096);
    SIZE_OK("000123", 123);
    SIZE_OK("100B", 100);
    SIZE_OK("100b", 100);
    SIZE_OK("0B", 0);
    SIZE_OK("268435456", 256 * MiB);
    /* 2^64 - 1 is the largest size_t on LP64 */
    if (SIZE_MAX == UINT64_MAX) {
        SIZE_OK("18446744073709551615", SIZE_MAX);
        SIZE_BAD("18446744073709551616");
        SIZE_BAD("99999999999999999999999");
    }
}

static void test_size_units(void)
{
    SIZE_OK("1K", KiB);
    SIZE_OK("1k", KiB);
    SIZE_OK("64K", 64 * KiB);
    SIZE_OK("2M", 2 * MiB);
    SIZE_OK("2m", 2 * MiB);
    SIZE_OK("512M", 512 * MiB);
    SIZE_OK("3G", 3 * GiB);
    SIZE_OK("3g", 3 * GiB);
    SIZE_OK("1T", TiB);
    SIZE_OK("1t", TiB);
    SIZE_OK("0K", 0);
    SIZE_OK("0G", 0);
    /* B and iB suffixes, any case */
    SIZE_OK("1KB", KiB);
    SIZE_OK("1kb", KiB);
    SIZE_OK("1kB", KiB);
    SIZE_OK("1KiB", KiB);
    SIZE_OK("1kib", KiB);
    SIZE_OK("1KIB", KiB);
    SIZE_OK("512MB", 512 * MiB);
    SIZE_OK("512MiB", 512 * MiB);
    SIZE_OK("512mib", 512 * MiB);
    SIZE_OK("4GB", 4 * GiB);
    SIZE_OK("4GiB", 4 * GiB);
    SIZE_OK("2TB", 2 * TiB);
    SIZE_OK("2TiB", 2 * TiB);
}

static void test_size_whitespace(void)
{
    SIZE_OK(" 512M", 512 * MiB);
    SIZE_OK("512M ", 512 * MiB);
    SIZE_OK("\t64K\n", 64 * KiB);
    SIZE_OK("  4096  ", 4096);
    SIZE_OK(" 100B ", 100);
    SIZE_OK(" 512MB ", 512 * MiB);
    SIZE_OK(" 512MiB\n", 512 * MiB);
    SIZE_BAD("   ");
    SIZE_BAD("\t");
}

static void test_size_overflow(void)
{
    SIZE_BAD("99999999999T");
    if (SIZE_MAX == UINT64_MAX) {
        SIZE_OK("16777215T", (size_t)16777215 << 40); /* 2^64 - 2^40 */
        SIZE_BAD("16777216T");                        /* 2^64 */
        SIZE_OK("17179869183G", (size_t)17179869183 << 30);
        SIZE_BAD("17179869184G");
        SIZE_BAD("17592186044416M"); /* 2^44 M = 2^64 */
        SIZE_BAD("18014398509481984K"); /* 2^54 K = 2^64 */
        SIZE_BAD("18446744073709551615K");
        SIZE_BAD("18446744073709551615T");
    }
}

static void test_size_garbage(void)
{
    SIZE_BAD(NULL);
    SIZE_BAD("");
    SIZE_BAD("-1");
    SIZE_BAD("-1M");
    SIZE_BAD(" -5");
    SIZE_BAD("abc");
    SIZE_BAD("M");
    SIZE_BAD("K1");
    SIZE_BAD("12Q");
    SIZE_BAD("12q");
    SIZE_BAD("1.5G");
    SIZE_BAD("1,5G");
    SIZE_BAD("0x10");
    SIZE_BAD("1e3");
    SIZE_BAD("12MM");
    SIZE_BAD("12MBB");
    SIZE_BAD("12MiBx");
    SIZE_BAD("12iB"); /* iB needs a unit before it */
    SIZE_BAD("12Bi");
    SIZE_BAD("12 Q");
    SIZE_BAD("12M junk");
    SIZE_BAD("12P"); /* petabytes are not offered */
    SIZE_BAD("12E");
}

/* ---- pshm_parse_bool ------------------------------------------------------ */

static void bool_is(const char *s, int want, int line)
{
    int v = 77;
    int rc = pshm_parse_bool(s, &v);
    check_at(__FILE__, line, rc == 0 && v == want, "pshm_parse_bool(\"%s\") = %d, %d; want 0, %d",
             s, rc, v, want);
}

static void bool_bad(const char *s, int line)
{
    int v = 77;
    int rc = pshm_parse_bool(s, &v);
    check_at(__FILE__, line, rc == -1 && v == 77,
             "pshm_parse_bool(\"%s\") = %d (out %d); want -1, out untouched", s, rc, v);
}

static void test_bool(void)
{
    static const char *const yes[] = {"1", "yes", "YES", "Yes", "y", "Y", "true", "TRUE", "True",
                                      "on", "ON", "On"};
    static const char *const no[] = {"0", "no", "NO", "n", "N", "false", "FALSE", "off", "OFF", ""};
    static const char *const bad[] = {"2",    "-1",  "10",    "01",   "maybe", "yess",
                                      "nope", "tru", "enable", "oui", "1 ",   " 0", "on off"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        bool_is(yes[i], 1, __LINE__);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        bool_is(no[i], 0, __LINE__);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        bool_bad(bad[i], __LINE__);
}

/* ---- pshm_config_load ----------------------------------------------------- */

static void test_load_defaults(void)
{
    char err[1024] = "untouched";
    clear_env();
    memset(&pshm_cfg, 0x5a, sizeof pshm_cfg);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.symmetric_size, PSHM_DEFAULT_HEAP_SIZE);
    CHECK_EQ(PSHM_DEFAULT_HEAP_SIZE, 256 * MiB);
    CHECK_EQ(pshm_cfg.transport, NULL);
    CHECK_EQ(pshm_cfg.transport_path, NULL);
    CHECK(pshm_cfg.globals && strcmp(pshm_cfg.globals, "map") == 0);
    CHECK_EQ(pshm_cfg.debug, 0);
    CHECK_EQ(pshm_cfg.info, 0);
    CHECK_EQ(pshm_cfg.version, 0);
    CHECK_EQ(pshm_cfg.bypass, 1);
    CHECK_EQ(pshm_cfg.wait_spins, PSHM_WAIT_SPINS_AUTO);
    CHECK_EQ(pshm_cfg.wait_sleep_us, PSHM_WAIT_SLEEP_DEFAULT);
    /* Empty values mean "unset" where a default exists. */
    setenv("SHMEM_TRANSPORT", "", 1);
    setenv("SHMEM_GLOBALS", "", 1);
    setenv("SHMEM_WAIT_SPINS", "", 1);
    setenv("SHMEM_WAIT_SLEEP", "", 1);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.transport, NULL);
    CHECK(pshm_cfg.globals && strcmp(pshm_cfg.globals, "map") == 0);
    CHECK_EQ(pshm_cfg.wait_spins, PSHM_WAIT_SPINS_AUTO);
    CHECK_EQ(pshm_cfg.wait_sleep_us, PSHM_WAIT_SLEEP_DEFAULT);
    clear_env();
}

/* The collectives' part of the layer table, the part configuration uses:
 * their real settings and parser, without the rest of the library. */
const struct pshm_coll_layer pshm_coll_layer = {.settings = pshm_coll_settings,
                                                .load = pshm_coll_config_load};

/* The table's defaults are the parser's: setting a variable to the
 * default the table shows changes nothing.  Also, every value the
 * table's type refuses, the parser refuses too. */
static void same_config(const struct pshm_config *a, const struct pshm_coll_config *ca,
                        const struct pshm_config *b, const struct pshm_coll_config *cb,
                        const char *var)
{
    CHECK(a->symmetric_size == b->symmetric_size && a->debug == b->debug && a->info == b->info &&
              a->version == b->version && a->bypass == b->bypass &&
              a->wait_spins == b->wait_spins && a->emulate_nodes == b->emulate_nodes &&
              !strcmp(a->globals, b->globals) && !strcmp(ca->component, cb->component) &&
              ca->node_aware == cb->node_aware && !memcmp(ca->algo, cb->algo, sizeof ca->algo),
          "%s set to its table default parses differently from unset", var);
}

static void test_table_matches_parser(void)
{
    const pshm_setting *tables[] = {pshm_core_settings, pshm_coll_settings()};
    char err[1024];
    clear_env();
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    struct pshm_config unset = pshm_cfg;
    struct pshm_coll_config coll_unset = pshm_coll_cfg;
    int n = 0;
    for (size_t t = 0; t < 2; t++)
        for (const pshm_setting *v = tables[t]; v->name; v++) {
            if (v->def[0] == '(') /* a description, not a value */
                continue;
            setenv(v->name, v->def, 1);
            CHECK_EQ(pshm_config_load(err, sizeof err), 0, "%s=%s: %s", v->name, v->def, err);
            same_config(&unset, &coll_unset, &pshm_cfg, &pshm_coll_cfg, v->name);
            CHECK_EQ(pshm_setting_check(v, v->def, err, sizeof err), 0, "%s", err);
            if (v->type != PSHM_SETTING_STRING) {
                setenv(v->name, "bogus-value", 1);
                CHECK_NE(pshm_setting_check(v, "bogus-value", err, sizeof err), 0, "%s", v->name);
                CHECK_NE(pshm_config_load(err, sizeof err), 0, "%s=bogus-value accepted", v->name);
            }
            unsetenv(v->name);
            n++;
        }
    CHECK_GE(n, 14, "only %d settings with a literal default", n);
    clear_env();
}

static void test_load_values(void)
{
    char err[1024];
    clear_env();
    setenv("SHMEM_SYMMETRIC_SIZE", "64M", 1);
    setenv("SHMEM_TRANSPORT", "ofi,shm", 1);
    setenv("SHMEM_TRANSPORT_PATH", "/a:/b", 1);
    setenv("SHMEM_GLOBALS", "cma", 1);
    setenv("SHMEM_DEBUG", "yes", 1);
    setenv("SHMEM_INFO", "on", 1);
    setenv("SHMEM_VERSION", "TRUE", 1);
    setenv("SHMEM_BYPASS", "0", 1);
    setenv("SHMEM_WAIT_SPINS", "1000", 1);
    setenv("SHMEM_WAIT_SLEEP", "250", 1);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.symmetric_size, 64 * MiB);
    CHECK(pshm_cfg.transport && strcmp(pshm_cfg.transport, "ofi,shm") == 0);
    CHECK(pshm_cfg.transport_path && strcmp(pshm_cfg.transport_path, "/a:/b") == 0);
    CHECK(pshm_cfg.globals && strcmp(pshm_cfg.globals, "cma") == 0);
    CHECK_EQ(pshm_cfg.debug, 1);
    CHECK_EQ(pshm_cfg.info, 1);
    CHECK_EQ(pshm_cfg.version, 1);
    CHECK_EQ(pshm_cfg.bypass, 0);
    CHECK_EQ(pshm_cfg.wait_spins, 1000);
    CHECK_EQ(pshm_cfg.wait_sleep_us, 250);

    setenv("SHMEM_SYMMETRIC_SIZE", "1", 1);
    setenv("SHMEM_GLOBALS", "map", 1);
    setenv("SHMEM_WAIT_SPINS", "0", 1);
    setenv("SHMEM_BYPASS", "on", 1);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.symmetric_size, 1);
    CHECK_STR_EQ(pshm_cfg.globals, "map");
    CHECK_EQ(pshm_cfg.wait_spins, 0);
    CHECK_EQ(pshm_cfg.bypass, 1);
    setenv("SHMEM_WAIT_SPINS", "1000000000", 1);
    setenv("SHMEM_WAIT_SLEEP", "0", 1);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.wait_spins, 1000000000u);
    CHECK_EQ(pshm_cfg.wait_sleep_us, 0);
    setenv("SHMEM_WAIT_SLEEP", "1000000", 1);
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    CHECK_EQ(pshm_cfg.wait_sleep_us, 1000000u);
    clear_env();
}

/* Loading with NAME=value fails; the one-line message names the variable,
 * the value and contains `accepted` (what may be used instead).  The
 * previous configuration is kept. */
static void load_fails(const char *name, const char *value, const char *accepted, int line)
{
    char err[1024];
    clear_env();
    CHECK_EQ(pshm_config_load(err, sizeof err), 0);
    struct pshm_config before = pshm_cfg;
    setenv(name, value, 1);
    memset(err, 0, sizeof err);
    int rc = pshm_config_load(err, sizeof err);
    char quoted[600];
    snprintf(quoted, sizeof quoted, "%s='%s'", name, value);
    int kept = memcmp(&before, &pshm_cfg, sizeof before) == 0;
    check_at(__FILE__, line,
             rc == -1 && has(err, quoted) && has(err, accepted) && !strchr(err, '\n') && kept,
             "%s: pshm_config_load = %d, err \"%s\"; want -1, one line naming %s and containing "
             "\"%s\", pshm_cfg unchanged (%s)",
             quoted, rc, err, quoted, accepted, kept ? "unchanged" : "changed");
    clear_env();
}

#define LOAD_FAILS(n, v, a) load_fails((n), (v), (a), __LINE__)

static void test_load_errors(void)
{
    static const char *const sizes[] = {"12Q", "1.5G", "abc", "-1", "", "99999999999T", "512 M"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        LOAD_FAILS("SHMEM_SYMMETRIC_SIZE", sizes[i], "K, M, G or T");
        LOAD_FAILS("SHMEM_SYMMETRIC_SIZE", sizes[i], "e.g. 512M");
    }
    /* An empty heap would start and fail every shmem_malloc. */
    LOAD_FAILS("SHMEM_SYMMETRIC_SIZE", "0", "is an empty heap; use a size from 1 byte to 64T");
    LOAD_FAILS("SHMEM_SYMMETRIC_SIZE", "0K", "from 1 byte to 64T");
    LOAD_FAILS("SHMEM_GLOBALS", "xyz", "map or cma");
    LOAD_FAILS("SHMEM_GLOBALS", "MAP", "map or cma");
    static const char *const bools[] = {"SHMEM_DEBUG", "SHMEM_INFO", "SHMEM_VERSION",
                                        "SHMEM_BYPASS"};
    for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
        LOAD_FAILS(bools[i], "maybe", "1 or 0");
        LOAD_FAILS(bools[i], "2", "yes/no, true/false, on/off");
    }
    static const char *const spins[] = {"-1", "abc", "10x", "1000000001", "99999999999999999999",
                                        " -1", "1.5", "5 5"};
    for (size_t i = 0; i < sizeof spins / sizeof *spins; i++)
        LOAD_FAILS("SHMEM_WAIT_SPINS", spins[i], "integer from 0 to 1000000000");
    static const char *const sleeps[] = {"-1", "1ms", "1000001", "0.5", " -1", "99999999999999999999"};
    for (size_t i = 0; i < sizeof sleeps / sizeof *sleeps; i++)
        LOAD_FAILS("SHMEM_WAIT_SLEEP", sleeps[i], "integer from 0 to 1000000");
}

static void test_load_error_buffer(void)
{
    /* A tiny buffer is truncated, never overrun. */
    char buf[32];
    memset(buf, 'x', sizeof buf);
    clear_env();
    setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
    CHECK_EQ(pshm_config_load(buf, 8), -1);
    CHECK_NE(memchr(buf, '\0', 8), NULL);
    CHECK(buf[8] == 'x');
    /* A huge value still yields a terminated message. */
    static char big[8192];
    memset(big, 'Q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    setenv("SHMEM_SYMMETRIC_SIZE", big, 1);
    char err[1024];
    memset(err, 'x', sizeof err);
    CHECK_EQ(pshm_config_load(err, sizeof err), -1);
    CHECK_NE(memchr(err, '\0', sizeof err), NULL);
    CHECK(has(err, "SHMEM_SYMMETRIC_SIZE="));
    clear_env();
}

static void test_print(void)
{
    char *text = NULL;
    size_t len = 0;
    clear_env();
    setenv("SHMEM_SYMMETRIC_SIZE", "3G", 1);
    setenv("SHMEM_TRANSPORT", "custom-transport-value", 1);
    FILE *f = open_memstream(&text, &len);
    CHECK_NE(f, NULL);
    if (!f)
        return;
    pshm_config_print(f);
    fclose(f);
    for (size_t i = 0; i < NVARS; i++)
        CHECK_HAS(text, all_vars[i]);
    CHECK_HAS(text, "3G");
    CHECK_HAS(text, "custom-transport-value");
    CHECK_HAS(text, "(none)"); /* SHMEM_TRANSPORT_PATH unset: its default shows */
    /* one line per variable: "  NAME  value  help" */
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        CHECK(strncmp(line, "  SHMEM_", 8) == 0 || strncmp(line, "  PLUGSHMEM_", 12) == 0,
              "not a variable line: %.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
    }
    free(text);
    clear_env();
}

/* Every variable pshm_config_print lists, except those taking free text,
 * rejects a nonsense value with a message naming the variable and value. */
static void test_every_variable_checked(void)
{
    /* SHMEM_COLLECTIVES names a component, known once the collectives
     * look for it at init (tests/collmpi's mpicoll-bogus checks there). */
    static const char *const free_text[] = {"SHMEM_TRANSPORT", "SHMEM_TRANSPORT_PATH",
                                            "PLUGSHMEM_JOB_TAG", "SHMEM_COLLECTIVES"};
    char *text = NULL;
    size_t len = 0;
    clear_env();
    FILE *f = open_memstream(&text, &len);
    CHECK_NE(f, NULL);
    if (!f)
        return;
    pshm_config_print(f);
    fclose(f);
    int nvars = 0;
    for (char *line = text; line && *line;) {
        char name[128];
        if (sscanf(line, " %127[A-Z0-9_]", name) == 1) {
            nvars++;
            int is_free = 0;
            for (size_t i = 0; i < sizeof free_text / sizeof *free_text; i++)
                is_free |= strcmp(name, free_text[i]) == 0;
            /* Read and checked by the ofi plugin when it starts. */
            is_free |= !strncmp(name, "SHMEM_OFI_", 10) || !strncmp(name, "SHMEM_PROGRESS_", 15);
            if (!is_free) {
                char err[1024] = "", want[256];
                setenv(name, "bogus-value", 1);
                int rc = pshm_config_load(err, sizeof err);
                unsetenv(name);
                snprintf(want, sizeof want, "%s='bogus-value'", name);
                CHECK(rc == -1 && has(err, want), "%s=bogus-value: rc %d, err \"%s\"", name, rc,
                      err);
            }
        }
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    CHECK_GE(nvars, (int)NVARS, "only %d variables listed", nvars);
    free(text);
    clear_env();
}

/* The services' typed getters (ABI 2.3) read what pshm_setting_check
 * accepts, the same way: a plugin never parses a setting again. */
static void test_getters(void)
{
    static const char *const words[] = {"lazy", "eager", NULL};
    unsetenv("PSHM_TEST_G");
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", -1), -1);
    CHECK_EQ(pshm_setting_get_uint("PSHM_TEST_G", 7), 7);
    CHECK_EQ(pshm_setting_get_size("PSHM_TEST_G", 9), 9);
    CHECK_EQ(pshm_setting_get_choice("PSHM_TEST_G", words, 0), 0);
    CHECK_EQ(pshm_setting_get_string("PSHM_TEST_G"), NULL);
    setenv("PSHM_TEST_G", "", 1); /* empty is unset, for every type */
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", 1), 1);
    CHECK_EQ(pshm_setting_get_uint("PSHM_TEST_G", 7), 7);
    CHECK_EQ(pshm_setting_get_string("PSHM_TEST_G"), NULL);
    setenv("PSHM_TEST_G", "AUTO", 1);
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", 0), -1);
    setenv("PSHM_TEST_G", "On", 1);
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", -1), 1);
    setenv("PSHM_TEST_G", "n", 1);
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", -1), 0);
    setenv("PSHM_TEST_G", "250", 1);
    CHECK_EQ(pshm_setting_get_uint("PSHM_TEST_G", 7), 250);
    /* Beyond unsigned long: the largest, which a plugin's bound refuses. */
    setenv("PSHM_TEST_G", "999999999999999999999999999", 1);
    CHECK_EQ(pshm_setting_get_uint("PSHM_TEST_G", 7), ULONG_MAX);
    setenv("PSHM_TEST_G", "64K", 1);
    CHECK_EQ(pshm_setting_get_size("PSHM_TEST_G", 9), 65536);
    setenv("PSHM_TEST_G", "EAGER", 1);
    CHECK_EQ(pshm_setting_get_choice("PSHM_TEST_G", words, 0), 1);
    CHECK_STR_EQ(pshm_setting_get_string("PSHM_TEST_G"), "EAGER");
    /* Unchecked values (shmem_info queries without checking): the default. */
    setenv("PSHM_TEST_G", "maybe", 1);
    CHECK_EQ(pshm_setting_get_bool("PSHM_TEST_G", -1), -1);
    CHECK_EQ(pshm_setting_get_uint("PSHM_TEST_G", 7), 7);
    CHECK_EQ(pshm_setting_get_size("PSHM_TEST_G", 9), 9);
    CHECK_EQ(pshm_setting_get_choice("PSHM_TEST_G", words, 0), 0);
    unsetenv("PSHM_TEST_G");
}

int main(void)
{
    static const struct unit_test tests[] = {
        {"getters", test_getters},
        {"size_plain", test_size_plain},
        {"size_units", test_size_units},
        {"size_whitespace", test_size_whitespace},
        {"size_overflow", test_size_overflow},
        {"size_garbage", test_size_garbage},
        {"bool", test_bool},
        {"load_defaults", test_load_defaults},
        {"table_matches_parser", test_table_matches_parser},
        {"load_values", test_load_values},
        {"load_errors", test_load_errors},
        {"load_error_buffer", test_load_error_buffer},
        {"print", test_print},
        {"every_variable_checked", test_every_variable_checked},
    };
    return RUN_TESTS(tests);
}
