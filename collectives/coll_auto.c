/*
 * SHMEM_COLLECTIVES=auto: which operations run on the component, and what
 * shmem_info says about the collectives.
 *
 * The rules are the component's (its descriptor's auto_rules, crossovers
 * it measured against the native algorithms; coll-mpi's are in
 * collectives/mpi/coll_mpi_rules.c).  A rule depends only on the
 * operation, the team (its size, whether every member is mapped here) and
 * the bytes per PE, all the same on every member, so members never
 * disagree on the path.  Whether the native algorithms run on the
 * transport's messages is one more such fact (native_msg.h).  collect has
 * per-PE sizes: it is decided by operation and team only.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "coll_ext_int.h"
#include "init.h"

#define NEVER PSHM_CEXT_NEVER

/* Whether the job's transport is the component's kin (coll_ext.h): looked
 * at once per shmem_init, when the transport or the component changes. */
static int over_kin(const struct pshm_cext *x)
{
    static const char *seen;
    static const struct pshm_cext *seen_x;
    static int is_kin;
    if (pshm_transport_in_use != seen || x != seen_x) {
        seen = pshm_transport_in_use;
        seen_x = x;
        is_kin = seen && x->kin_transport && !strcmp(seen, x->kin_transport);
    }
    return is_kin;
}

static const char *const op_names[PSHM_CEXT_OP_N] = {
    "barrier/sync", "broadcast", "reductions", "inscan/exscan", "fcollect", "collect",
    "alltoall", "alltoalls"};

/* The 2.1 rules for teams on messages, or NULL. */
static const size_t *msg_rules(const struct pshm_cext *x)
{
    return x->hdr.size >= offsetof(struct pshm_cext, msg_from) + sizeof x->msg_from ? x->msg_from
                                                                                   : NULL;
}

int pshm_cext_auto_pick(int op, int n, int all_mapped, int msg, size_t bytes)
{
    const struct pshm_cext *x = pshm_cext_loaded(NULL);
    const struct pshm_cext_rule *rule = &x->auto_rules[op];
    int spins = x->flags & PSHM_CEXT_SPINS;
    if (n < 2)
        return 0;
    if (all_mapped && spins && pshm_g.oversubscribed)
        return 0;
    if (all_mapped)
        return bytes >= rule->mapped_from;
    if (over_kin(x))
        /* With more PEs than cores, every call of a native algorithm into
         * the kin transport spins in the library for a time slice; the
         * component's collectives make fewer (coll-mpi over the mpi
         * transport, 4 PEs on 2 cores: 2-50x faster in every cell of
         * coll_bench).  On any node of the job, so that every member
         * decides alike (the team may span nodes). */
        return (spins && pshm_g.oversubscribed_any) ||
               (bytes >= rule->kin_from && bytes < rule->kin_until);
    const size_t *m = msg ? msg_rules(x) : NULL;
    return bytes >= (m ? m[op] : rule->unmapped_from);
}

static void print_from(FILE *out, const char *comp, size_t from)
{
    if (from == NEVER)
        fprintf(out, "native");
    else if (from == 0)
        fprintf(out, "%s", comp);
    else
        fprintf(out, "native below %zu B, %s from there", from, comp);
}

static void print_range(FILE *out, const char *comp, size_t from, size_t until)
{
    if (until == NEVER)
        print_from(out, comp, from);
    else if (from == 0)
        fprintf(out, "%s below %zu B, native from there", comp, until);
    else
        fprintf(out, "%s from %zu B below %zu B, else native", comp, from, until);
}

/* The reductions of the specification's tables (gen/typetables.py:
 * REDUCE_* and TO_ALL_*), by type: bit 0-2 and/or/xor, 3-4 max/min, 5-6
 * sum/prod. */
static const struct {
    const char *type;
    unsigned ops;
} reductions[] = {
    {"char", 0x78},     {"schar", 0x78},    {"short", 0x7f},    {"int", 0x7f},
    {"long", 0x7f},     {"longlong", 0x7f}, {"ptrdiff", 0x78},  {"uchar", 0x7f},
    {"ushort", 0x7f},   {"uint", 0x7f},     {"ulong", 0x7f},    {"ulonglong", 0x7f},
    {"int8", 0x7f},     {"int16", 0x7f},    {"int32", 0x7f},    {"int64", 0x7f},
    {"uint8", 0x7f},    {"uint16", 0x7f},   {"uint32", 0x7f},   {"uint64", 0x7f},
    {"size", 0x7f},     {"float", 0x78},    {"double", 0x78},   {"longdouble", 0x78},
    {"complexf", 0x60}, {"complexd", 0x60},
};

static void print_fallbacks(FILE *out, const struct pshm_cext *x)
{
    static const char *const opn[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
    int total = 0, missing = 0;
    for (size_t i = 0; i < sizeof reductions / sizeof *reductions; i++)
        for (int op = 0; op < PSHM_OP_N; op++)
            if (reductions[i].ops >> op & 1) {
                total++;
                if (!x->has_reduction(reductions[i].type, op)) {
                    fprintf(out, "%s%s%s %s_%s", missing ? "," : "  reductions ",
                            missing ? "" : x->name, missing ? "" : " has no type for, run natively:",
                            reductions[i].type, opn[op]);
                    missing++;
                }
            }
    if (missing)
        fprintf(out, "\n");
    fprintf(out, "  reductions on %s: %d of the %d type x operator pairs of the tables\n", x->name,
            total - missing, total);
}

/* What auto does with op, from the component's rule. */
static void print_rule(FILE *out, const struct pshm_cext *x, int op)
{
    const struct pshm_cext_rule *r = &x->auto_rules[op];
    int spins = x->flags & PSHM_CEXT_SPINS;
    fprintf(out, "one node, bypass on: ");
    print_from(out, x->name, r->mapped_from);
    if (spins && r->mapped_from != NEVER)
        fprintf(out, " (native when PEs outnumber cores)");
    fprintf(out, "; through a transport: ");
    const size_t *m = msg_rules(x);
    if (m && m[op] != r->unmapped_from) {
        print_from(out, x->name, m[op]);
        fprintf(out, " where it has messages, else ");
    }
    print_from(out, x->name, r->unmapped_from);
    if (x->kin_transport) {
        fprintf(out, "; over the %s transport: ", x->kin_transport);
        print_range(out, x->name, r->kin_from, r->kin_until);
        if (spins && (r->kin_from != 0 || r->kin_until != NEVER))
            fprintf(out, " (%s when PEs outnumber cores)", x->name);
    }
    fprintf(out, "\n");
}

void pshm_cext_info(FILE *out, const char *want)
{
    fprintf(out, "Collectives: %s\n", want);
    pshm_cext_list(out);
    if (!strcasecmp(want, "native")) {
        fprintf(out, "  every operation native (SHMEM_COLLECTIVES=NAME or auto would load a "
                     "coll-NAME.so)\n");
        return;
    }
    int all = strcasecmp(want, "auto") != 0;
    char why[1024];
    const char *path = NULL;
    int loaded_here = !pshm_cext_loaded(NULL);
    if (pshm_cext_load(want, why, sizeof why)) {
        fprintf(out, "  not usable: %s\n", why);
        return;
    }
    const struct pshm_cext *x = pshm_cext_loaded(&path);
    fprintf(out, "  component %s\n", path);
    if (pshm_is_initialized() && pshm_cext_mode != PSHM_CEXT_MODE_NATIVE) {
        fprintf(out, "  %s: %s\n", x->name, x->describe());
    } else {
        struct pshm_cext_svc svc;
        pshm_cext_fill_svc(&svc, pshm_is_initialized() ? pshm_g.my_pe : 0,
                           pshm_is_initialized() ? pshm_g.n_pes : 1, 0);
        if (x->query(&svc, why, sizeof why))
            fprintf(out, "  not usable in this job: %s\n", why);
    }
    for (int op = 0; op < PSHM_CEXT_OP_N; op++) {
        fprintf(out, "  %-14s ", op_names[op]);
        if (all)
            fprintf(out, "%s\n", x->name);
        else
            print_rule(out, x, op);
    }
    fprintf(out, "  active-set routines: ");
    if (all)
        fprintf(out, "%s (a team of the component per set, cached)\n", x->name);
    else
        fprintf(out, "native\n");
    if (x->declines)
        fprintf(out, "  %s: native\n", x->declines);
    print_fallbacks(out, x);
    if (loaded_here)
        pshm_cext_unload();
}
