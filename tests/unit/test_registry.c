/*
 * Unit test of transport discovery, validation and selection
 * (core/registry.c), against the fake plugins of fake_transport.c.
 *
 * Usage: test_registry PLUGIN_DIR SHADOW_DIR
 *   PLUGIN_DIR holds transport-{dummy,unusable,badabi,misnamed,broken,
 *   nosym,small,noquery,silent}.so, SHADOW_DIR transport-{dummy,high}.so
 *   (meson builds them in tests/unit/ and tests/unit/shadow/ of the build
 *   tree and passes both).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_WITHOUT_SHMEM /* these tests call the core directly, not the library */
#include "../common/check.h"
#include "registry.h"

static const char *plugin_dir, *shadow_dir, *ceiling_dir;
static pshm_core_services svc;
static int local_of_one[1] = {0};

static struct pshm_plugin *get(struct pshm_registry *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->p[i].name, name) == 0)
            return &r->p[i];
    return NULL;
}

static int count(struct pshm_registry *r, const char *name)
{
    int n = 0;
    for (int i = 0; i < r->n; i++)
        n += strcmp(r->p[i].name, name) == 0;
    return n;
}

static void scan(struct pshm_registry *r, const char *path)
{
    CHECK_EQ(pshm_registry_scan(r, path), 0);
    pshm_registry_query(r, &svc);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s:%s", a, b);
    return s;
}

static void expect_rejected(struct pshm_registry *r, const char *name)
{
    struct pshm_plugin *p = get(r, name);
    CHECK_NE(p, NULL, "plugin %s not found", name);
    if (!p)
        return;
    CHECK(p->dl == NULL && p->desc == NULL && !p->usable, "%s: dl %p desc %p usable %d", name,
          p->dl, (const void *)p->desc, p->usable);
    CHECK(p->why[0] != '\0', "%s has no reason", name);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_scan_finds_all(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    static const char *const names[] = {"abi1",     "badabi",   "broken",  "dummy",
                                        "misnamed", "newminor", "newsmall", "noquery",
                                        "nosym",    "oldminor", "silent",  "small",
                                        "unusable"};
    CHECK_EQ(r.n, (int)(sizeof names / sizeof *names), "found %d plugins", r.n);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct pshm_plugin *p = get(&r, names[i]);
        CHECK_NE(p, NULL, "%s not found", names[i]);
        if (!p)
            continue;
        CHECK_EQ(count(&r, names[i]), 1, "%s listed %d times", names[i], count(&r, names[i]));
        char want[4096];
        snprintf(want, sizeof want, "%s/transport-%s.so", plugin_dir, names[i]);
        CHECK_STR_EQ(p->path, want, "path %s, want %s", p->path, want);
    }
    /* Sorted by file name: the listing and priority ties are reproducible. */
    for (int i = 1; i < r.n; i++)
        CHECK_LT(strcmp(r.p[i - 1].name, r.p[i].name), 0, "%s before %s", r.p[i - 1].name,
                 r.p[i].name);
    CHECK_HAS(pshm_registry_dirs(&r), plugin_dir);
    CHECK_EQ(strncmp(pshm_registry_dirs(&r), plugin_dir, strlen(plugin_dir)), 0);
    pshm_registry_release(&r, NULL);
    CHECK(r.n == 0 && r.p == NULL);
}

static void test_good_plugin(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    struct pshm_plugin *d = get(&r, "dummy");
    CHECK_NE(d, NULL);
    if (d) {
        CHECK_NE(d->dl, NULL);
        CHECK_NE(d->desc, NULL);
        CHECK_EQ(d->usable, 1);
        CHECK_EQ(d->priority, 5);
        CHECK(d->why[0] == '\0', "usable dummy has a reason: %s", d->why);
        if (d->desc) {
            CHECK_EQ(d->desc->hdr.major, PSHM_TRANSPORT_ABI_MAJOR);
            CHECK_STR_EQ(d->desc->name, "dummy");
            CHECK_HAS(d->desc->description, "primary");
        }
    }
    pshm_registry_release(&r, NULL);
}

static void test_broken(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    expect_rejected(&r, "broken");
    struct pshm_plugin *p = get(&r, "broken");
    if (p) {
        /* the dlerror() text: file and missing symbol */
        CHECK_HAS(p->why, "cannot load");
        CHECK_HAS(p->why, "transport-broken.so");
        CHECK_HAS(p->why, "undefined symbol");
        CHECK_HAS(p->why, "pshm_fake_missing_symbol");
    }
    pshm_registry_release(&r, NULL);
}

static void test_badabi(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    expect_rejected(&r, "badabi");
    struct pshm_plugin *p = get(&r, "badabi");
    if (p) {
        char mine[64];
        snprintf(mine, sizeof mine, "this library speaks ABI %u.%u", PSHM_TRANSPORT_ABI_MAJOR,
                 PSHM_TRANSPORT_ABI_MINOR);
        CHECK_HAS(p->why, "built for transport ABI 999.");
        CHECK_HAS(p->why, mine);
        CHECK_HAS(p->why, "rebuild");
    }
    /* An ABI 1 plugin (version, then size, in 32 bits each) reads as
     * major 1. */
    expect_rejected(&r, "abi1");
    if ((p = get(&r, "abi1")))
        CHECK_HAS(p->why, "built for transport ABI 1.0, this library speaks ABI 2.");
    pshm_registry_release(&r, NULL);
}

/* Minors: an older one is accepted, a newer one too if its table holds
 * ours, which a table shorter than ours cannot. */
static void test_minors(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    struct pshm_plugin *p = get(&r, "oldminor");
    CHECK(p && p->desc && p->usable && p->priority == 4);
    if (p && p->desc)
        CHECK_EQ(p->desc->hdr.minor, 0);
    p = get(&r, "newminor");
    CHECK(p && p->desc && p->usable && p->priority == 2, "newminor: %s", p ? p->why : "absent");
    if (p && p->desc)
        CHECK(p->desc->hdr.minor == 9 && p->desc->hdr.size > sizeof(pshm_transport_desc));
    expect_rejected(&r, "newsmall");
    if ((p = get(&r, "newsmall"))) {
        char want[128];
        snprintf(want, sizeof want, "its descriptor is %zu bytes, but ABI 2.9's is at least %zu",
                 sizeof(pshm_transport_desc) - 8, sizeof(pshm_transport_desc));
        CHECK_HAS(p->why, want);
    }
    pshm_registry_release(&r, NULL);
}

static void test_misnamed(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    expect_rejected(&r, "misnamed");
    struct pshm_plugin *p = get(&r, "misnamed");
    if (p) {
        CHECK_HAS(p->why, "'impostor'");
        CHECK_HAS(p->why, "'misnamed'");
    }
    CHECK_EQ(get(&r, "impostor"), NULL);
    pshm_registry_release(&r, NULL);
}

static void test_other_rejects(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    expect_rejected(&r, "nosym");
    expect_rejected(&r, "small");
    expect_rejected(&r, "noquery");
    struct pshm_plugin *p;
    if ((p = get(&r, "nosym")))
        CHECK_HAS(p->why, PSHM_TRANSPORT_SYMBOL);
    if ((p = get(&r, "small"))) {
        CHECK_HAS(p->why, "8 bytes");
        char want[64];
        snprintf(want, sizeof want, "%zu", sizeof(pshm_transport_desc));
        CHECK_HAS(p->why, want);
    }
    if ((p = get(&r, "noquery")))
        CHECK_HAS(p->why, "its descriptor lacks query, which every transport must provide");
    pshm_registry_release(&r, NULL);
}

static void test_unusable(void)
{
    struct pshm_registry r;
    scan(&r, plugin_dir);
    struct pshm_plugin *p = get(&r, "unusable");
    CHECK_NE(p, NULL);
    if (p) {
        CHECK(p->dl != NULL && p->desc != NULL); /* loaded fine... */
        CHECK(!p->usable);                       /* ...but says no */
        CHECK_LT(p->priority, 0);
        CHECK_HAS(p->why, "the fake hardware is absent");
    }
    p = get(&r, "silent");
    CHECK_NE(p, NULL);
    if (p) {
        CHECK(!p->usable);
        CHECK_HAS(p->why, "not usable here");
    }
    pshm_registry_release(&r, NULL);
}

static void test_select_preference(void)
{
    struct pshm_registry r;
    char err[2048];
    scan(&r, plugin_dir);
    static const char *const prefs[] = {"unusable,dummy", "dummy",         "dummy,unusable",
                                        "nope,dummy",     "badabi,dummy",  "broken,misnamed,dummy",
                                        "dummy,dummy",    ",,unusable,,dummy,"};
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++) {
        strcpy(err, "untouched");
        struct pshm_plugin *p = pshm_registry_select(&r, prefs[i], err, sizeof err);
        CHECK(p && strcmp(p->name, "dummy") == 0, "pref '%s' chose %s (%s)", prefs[i],
              p ? p->name : "nothing", p ? "" : err);
    }
    pshm_registry_release(&r, NULL);
}

static void test_select_failures(void)
{
    struct pshm_registry r;
    char err[2048];
    scan(&r, plugin_dir);

    strcpy(err, "untouched");
    CHECK_EQ(pshm_registry_select(&r, "nope", err, sizeof err), NULL);
    CHECK_HAS(err, "SHMEM_TRANSPORT='nope'");
    CHECK_HAS(err, "nope: not installed");
    CHECK_HAS(err, "installed: ");
    static const char *const names[] = {"abi1",     "badabi",   "broken",  "dummy",
                                        "misnamed", "newminor", "newsmall", "noquery",
                                        "nosym",    "oldminor", "silent",  "small",
                                        "unusable"};
    const char *inst = strstr(err, "installed: ");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        CHECK_HAS(inst, names[i]);
    CHECK_HAS(inst, "unusable (unusable)");
    CHECK(!has(inst, "dummy (unusable)"));
    CHECK_EQ(strchr(err, '\n'), NULL);

    /* Each named transport's reason is given. */
    CHECK_EQ(pshm_registry_select(&r, "unusable,broken,badabi,misnamed", err, sizeof err), NULL);
    CHECK_HAS(err, "SHMEM_TRANSPORT='unusable,broken,badabi,misnamed'");
    CHECK_HAS(err, "unusable: unusable: the fake hardware is absent");
    CHECK_HAS(err, "broken: cannot load");
    CHECK_HAS(err, "undefined symbol");
    CHECK_HAS(err, "badabi: built for transport ABI 999.");
    CHECK_HAS(err, "misnamed: descriptor names itself 'impostor'");

    /* A small buffer is truncated, not overrun. */
    char small[16];
    memset(small, 'x', sizeof small);
    CHECK_EQ(pshm_registry_select(&r, "nope", small, 10), NULL);
    CHECK_NE(memchr(small, '\0', 10), NULL);
    CHECK(small[10] == 'x');
    pshm_registry_release(&r, NULL);
}

static void test_select_priority(void)
{
    struct pshm_registry r;
    char err[2048];
    /* Only dummy (5) is usable here. */
    scan(&r, plugin_dir);
    struct pshm_plugin *p = pshm_registry_select(&r, NULL, err, sizeof err);
    CHECK(p && strcmp(p->name, "dummy") == 0, "chose %s", p ? p->name : err);
    pshm_registry_release(&r, NULL);

    /* dummy (5, first folder) shadows dummy (50); high (7) wins. */
    char *path = join(plugin_dir, shadow_dir);
    scan(&r, path);
    p = pshm_registry_select(&r, NULL, err, sizeof err);
    CHECK(p && strcmp(p->name, "high") == 0 && p->priority == 7, "chose %s", p ? p->name : err);
    pshm_registry_release(&r, NULL);
    free(path);

    /* Reversed: dummy (50, shadow) wins over high (7). */
    path = join(shadow_dir, plugin_dir);
    scan(&r, path);
    p = pshm_registry_select(&r, NULL, err, sizeof err);
    CHECK(p && strcmp(p->name, "dummy") == 0 && p->priority == 50, "chose %s prio %d",
          p ? p->name : err, p ? p->priority : -99);
    /* An explicit preference beats priority. */
    p = pshm_registry_select(&r, "high", err, sizeof err);
    CHECK(p && strcmp(p->name, "high") == 0);
    pshm_registry_release(&r, NULL);
    free(path);
}

static void test_shadowing(void)
{
    struct pshm_registry r;
    char *path = join(plugin_dir, shadow_dir);
    scan(&r, path);
    CHECK_EQ(count(&r, "dummy"), 1);
    CHECK_EQ(count(&r, "high"), 1);
    struct pshm_plugin *p = get(&r, "dummy");
    if (p) {
        char want[4096];
        snprintf(want, sizeof want, "%s/transport-dummy.so", plugin_dir);
        CHECK_STR_EQ(p->path, want, "dummy from %s", p->path);
        CHECK_EQ(p->priority, 5);
        CHECK(p->desc && has(p->desc->description, "primary"));
    }
    char want_dirs[8192];
    snprintf(want_dirs, sizeof want_dirs, "%s:%s", plugin_dir, shadow_dir);
    CHECK_EQ(strncmp(pshm_registry_dirs(&r), want_dirs, strlen(want_dirs)), 0);
    pshm_registry_release(&r, NULL);
    free(path);

    path = join(shadow_dir, plugin_dir);
    scan(&r, path);
    CHECK_EQ(count(&r, "dummy"), 1);
    p = get(&r, "dummy");
    if (p) {
        CHECK_HAS(p->path, shadow_dir);
        CHECK_EQ(p->priority, 50);
        CHECK(p->desc && has(p->desc->description, "shadow"));
    }
    pshm_registry_release(&r, NULL);
    free(path);
}

static void test_odd_paths(void)
{
    struct pshm_registry r;
    char err[2048];
    /* Missing folders and empty elements are skipped. */
    size_t n = strlen(plugin_dir) + 64;
    char *path = malloc(n);
    snprintf(path, n, "::/nonexistent/plugshmem-test::%s:", plugin_dir);
    scan(&r, path);
    CHECK(get(&r, "dummy") != NULL && get(&r, "dummy")->usable);
    pshm_registry_release(&r, NULL);
    free(path);

    /* Nothing found: the message says so and where it looked. */
    scan(&r, "/nonexistent/plugshmem-test");
    CHECK_EQ(r.n, 0);
    CHECK_EQ(pshm_registry_select(&r, NULL, err, sizeof err), NULL);
    CHECK_HAS(err, "no usable transport");
    CHECK_HAS(err, "none (searched /nonexistent/plugshmem-test");
    CHECK_EQ(pshm_registry_select(&r, "shm", err, sizeof err), NULL);
    CHECK_HAS(err, "SHMEM_TRANSPORT='shm'");
    CHECK_HAS(err, "shm: not installed");
    CHECK_HAS(err, "/nonexistent/plugshmem-test");
    pshm_registry_release(&r, NULL);

    /* No usable one at all, although some are installed. */
    n = strlen(plugin_dir) + 64;
    path = malloc(n);
    snprintf(path, n, "%s", plugin_dir);
    scan(&r, path);
    for (int i = 0; i < r.n; i++)
        r.p[i].usable = 0; /* pretend the usable ones said no */
    CHECK_EQ(pshm_registry_select(&r, NULL, err, sizeof err), NULL);
    CHECK_HAS(err, "no usable transport; installed: ");
    CHECK_HAS(err, "dummy (unusable)");
    pshm_registry_release(&r, NULL);
    free(path);
}

static void test_release_keep(void)
{
    struct pshm_registry r;
    char err[2048];
    scan(&r, plugin_dir);
    struct pshm_plugin *p = pshm_registry_select(&r, "dummy", err, sizeof err);
    CHECK_NE(p, NULL);
    if (!p) {
        pshm_registry_release(&r, NULL);
        return;
    }
    struct pshm_plugin kept = *p;
    pshm_registry_release(&r, p);
    /* The kept plugin stays loaded and owned by the caller. */
    CHECK(kept.dl != NULL && kept.desc != NULL);
    CHECK_STR_EQ(kept.name, "dummy");
    char why[64] = "";
    if (kept.desc)
        CHECK_EQ(kept.desc->query(&svc, why, sizeof why), 5);
    void *again = dlopen(kept.path, RTLD_NOW | RTLD_NOLOAD);
    CHECK_NE(again, NULL);
    if (again)
        dlclose(again);
    dlclose(kept.dl);
    free(kept.name);
    free(kept.path);
    /* Rejected plugins were unloaded (except under ASan: registry.h). */
    char path[4096];
    snprintf(path, sizeof path, "%s/transport-badabi.so", plugin_dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    CHECK_NE((h == NULL), PSHM_PLUGINS_STAY_LOADED);
    if (h)
        dlclose(h);
}

static void test_rescan(void)
{
    /* Scanning twice gives the same answer (nothing cached between). */
    for (int k = 0; k < 3; k++) {
        struct pshm_registry r;
        char *path = join(shadow_dir, plugin_dir);
        scan(&r, path);
        CHECK_EQ(r.n, 14);
        CHECK_EQ(count(&r, "dummy"), 1);
        pshm_registry_release(&r, NULL);
        free(path);
    }
}

/* Querying by ceiling: a plugin whose max_priority cannot beat a usable
 * one already found is not queried (nor would it be selected); querying
 * everything shows what its query would have said. */
static void test_query_best(void)
{
    struct pshm_registry r;
    char err[2048];
    CHECK_EQ(pshm_registry_scan(&r, ceiling_dir), 0);
    pshm_registry_query_best(&r, &svc);
    struct pshm_plugin *capped = get(&r, "capped"), *floor_ = get(&r, "floor");
    CHECK(capped != NULL && floor_ != NULL);
    if (capped && floor_) {
        CHECK(floor_->queried && floor_->usable && floor_->priority == 5);
        CHECK(!capped->queried, "capped was queried although its ceiling is 1 < 5");
        struct pshm_plugin *p = pshm_registry_select(&r, NULL, err, sizeof err);
        CHECK_EQ(p, floor_);
    }
    pshm_registry_release(&r, NULL);

    CHECK_EQ(pshm_registry_scan(&r, ceiling_dir), 0);
    pshm_registry_query(&r, &svc);
    struct pshm_plugin *p = pshm_registry_select(&r, NULL, err, sizeof err);
    CHECK(p && strcmp(p->name, "capped") == 0 && p->priority == 50);
    pshm_registry_release(&r, NULL);
}

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK_NE(f, NULL, "cannot write %s", path);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n || n == 0);
        fclose(f);
    }
}

/* The first n bytes of a real plugin, or (cut) a whole header and less
 * than its segments. */
static size_t head_of(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(buf, 1, n, f) : 0;
    if (f)
        fclose(f);
    return got;
}

/* A damaged file (empty, random bytes, cut short) is told apart from one
 * short of a symbol, and is an error wherever it would have been chosen;
 * so is any file that cannot load and hides another of its name. */
static void test_damaged(void)
{
    char tmp[] = "/tmp/test_registry.XXXXXX", err[2048], buf[2048], path[4096];
    CHECK_NE(mkdtemp(tmp), NULL);
    write_file(tmp, "transport-dummy.so", "", 0); /* hides plugin_dir's */
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)(i * 131 + 7);
    write_file(tmp, "transport-noise.so", buf, sizeof buf);
    snprintf(path, sizeof path, "%s/transport-high.so", shadow_dir);
    size_t n = head_of(path, buf, 1024);
    CHECK_EQ(n, 1024);
    write_file(tmp, "transport-cut.so", buf, n);

    struct pshm_registry r;
    char *dirs = join(tmp, plugin_dir);
    char *all = join(dirs, shadow_dir);
    scan(&r, all);
    struct pshm_plugin *p;
    if ((p = get(&r, "dummy"))) {
        CHECK(p->broken && !p->usable);
        CHECK_HAS(p->why, "damaged: empty file");
        snprintf(path, sizeof path, "it hides %s/transport-dummy.so", plugin_dir);
        CHECK_HAS(p->why, path);
    }
    if ((p = get(&r, "noise"))) {
        CHECK(p->broken);
        CHECK_HAS(p->why, "damaged: not an ELF file");
    }
    if ((p = get(&r, "cut"))) {
        CHECK(p->broken);
        CHECK_HAS(p->why, "damaged: cut short (1024 bytes)");
    }
    /* Short of a symbol, hiding nothing: not usable here, no more. */
    if ((p = get(&r, "broken")))
        CHECK(!p->broken && has(p->why, "cannot load"));

    /* Without a preference a damaged plugin's priority is unknown. */
    CHECK_EQ(pshm_registry_select(&r, NULL, err, sizeof err), NULL);
    CHECK_HAS(err, "transport 'cut' (");
    CHECK_HAS(err, "cannot be used: damaged: cut short");
    CHECK_HAS(err, "name the transport with SHMEM_TRANSPORT");
    /* Reached in the list: an error, not the next one. */
    CHECK_EQ(pshm_registry_select(&r, "unusable,dummy,high", err, sizeof err), NULL);
    CHECK_HAS(err, "SHMEM_TRANSPORT='unusable,dummy,high': transport 'dummy'");
    CHECK_HAS(err, "damaged: empty file");
    CHECK_EQ(strchr(err, '\n'), NULL);
    /* Not reached: no matter. */
    p = pshm_registry_select(&r, "high,dummy", err, sizeof err);
    CHECK(p && strcmp(p->name, "high") == 0, "chose %s", p ? p->name : err);
    pshm_registry_release(&r, NULL);
    CHECK(*pshm_registry_missing(&r) == '\0');

    /* A plugin that loads fine and hides another is just the one used. */
    free(all);
    all = join(shadow_dir, plugin_dir);
    scan(&r, all);
    if ((p = get(&r, "dummy")))
        CHECK(p->usable && !p->broken);
    pshm_registry_release(&r, NULL);

    /* Folders of SHMEM_TRANSPORT_PATH that cannot be opened are noted. */
    free(all);
    all = join("/nonexistent-plugshmem", plugin_dir);
    scan(&r, all);
    CHECK_HAS(pshm_registry_missing(&r), "/nonexistent-plugshmem (No such file or directory)");
    CHECK(!has(pshm_registry_missing(&r), plugin_dir));
    pshm_registry_release(&r, NULL);

    static const char *const names[] = {"dummy", "noise", "cut"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/transport-%s.so", tmp, names[i]);
        unlink(path);
    }
    rmdir(tmp);
    free(dirs);
    free(all);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PLUGIN_DIR SHADOW_DIR CEILING_DIR\n", argv[0]);
        return 2;
    }
    plugin_dir = argv[1];
    shadow_dir = argv[2];
    ceiling_dir = argv[3];
    svc.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_core_services);
    svc.my_pe = 0;
    svc.n_pes = 1;
    svc.n_local = 1;
    svc.local_of = local_of_one;

    static const struct unit_test tests[] = {
        {"scan_finds_all", test_scan_finds_all},
        {"good_plugin", test_good_plugin},
        {"broken", test_broken},
        {"badabi", test_badabi},
        {"minors", test_minors},
        {"misnamed", test_misnamed},
        {"other_rejects", test_other_rejects},
        {"unusable", test_unusable},
        {"select_preference", test_select_preference},
        {"select_failures", test_select_failures},
        {"select_priority", test_select_priority},
        {"shadowing", test_shadowing},
        {"odd_paths", test_odd_paths},
        {"release_keep", test_release_keep},
        {"damaged", test_damaged},
        {"rescan", test_rescan},
        {"query_best", test_query_best},
    };
    return RUN_TESTS(tests);
}
