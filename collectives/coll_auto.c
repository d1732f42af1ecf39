/*
 * SHMEM_COLLECTIVES=auto: which operations run on MPI, and what shmem_info
 * says about the collectives.
 *
 * The rules are crossovers measured with bench/coll/coll_bench (native
 * and mpi side by side; docs/collectives.md, "auto").  A rule depends only
 * on the operation, the team (its size, whether every member is mapped
 * here) and the bytes per PE, all the same on every member, so members
 * never disagree on the path.  collect has per-PE sizes: it is decided
 * by operation and team only.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "coll_ext_int.h"
#include "init.h"

#define NEVER SIZE_MAX

struct rule {
    /* Every member mapped (one node, bypass on) and no more PEs on the
     * node than cores: MPI from this many bytes.  With more PEs than
     * cores, native always: MPICH spins while it waits. */
    size_t mapped_from;
    size_t unmapped_from; /* some member reached through the transport */
    /* Over the mpi transport, where the native algorithms move data by
     * MPICH's RMA: MPI in [from, until) bytes, native outside. */
    size_t over_mpi_from, over_mpi_until;
};

/* Indexed by PSHM_CEXT_OP_*.  Measured on 2 cores (docs/collectives.md,
 * "auto"): with every member mapped the native algorithms (loads and
 * stores) beat MPICH at every size (the 32 KiB sum reduction at 2 PEs:
 * native 1.08 us, MPI 43 us and more), by 1.3x to 6x when the cores were free
 * and by orders of magnitude when PEs waited for a core, since MPICH
 * spins where native waits yield; with a member reached through a
 * transport (bypass off, other nodes) MPICH's own shared memory beat the
 * native algorithms over the transport at every size, by 10x or more. */
/* Over the mpi transport (2 PEs, bypass off, an idle machine, five runs,
 * then nine interleaved rounds): the native scans beat MPICH's at every
 * size (1.1-10x), the native broadcast, fcollect and alltoall from 32 KiB
 * (1.1-2.8x), MPI's reductions from 4 KiB; below those MPI wins.  The
 * barrier is level (0.87-1.0 us either way) and stays native: an MPI
 * barrier between native collectives left them 5-15% slower than in a
 * job of native collectives only (the PEs leave MPICH's barrier further
 * apart than the native one's).  alltoalls follows alltoall. */
static const struct rule rules[PSHM_CEXT_OP_N] = {
    [PSHM_CEXT_OP_BARRIER] = {NEVER, 0, NEVER, NEVER},
    [PSHM_CEXT_OP_BCAST] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_REDUCE] = {NEVER, 0, 0, NEVER},
    [PSHM_CEXT_OP_SCAN] = {NEVER, 0, NEVER, NEVER},
    [PSHM_CEXT_OP_FCOLLECT] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_COLLECT] = {NEVER, 0, 0, NEVER},
    [PSHM_CEXT_OP_ALLTOALL] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_ALLTOALLS] = {NEVER, 0, 0, 32768},
};

/* Whether the job's transport is the mpi plugin; the name is looked at
 * once per shmem_init (it changes only there). */
static int over_mpi(void)
{
    static const char *seen;
    static int is_mpi;
    if (pshm_transport_in_use != seen) {
        seen = pshm_transport_in_use;
        is_mpi = seen && !strcmp(seen, "mpi");
    }
    return is_mpi;
}

static const char *const op_names[PSHM_CEXT_OP_N] = {
    "barrier/sync", "broadcast", "reductions", "inscan/exscan", "fcollect", "collect",
    "alltoall", "alltoalls"};

int pshm_cext_auto_pick(int op, int n, int all_mapped, size_t bytes)
{
    if (n < 2)
        return 0;
    if (all_mapped && pshm_g.oversubscribed)
        return 0;
    if (all_mapped)
        return bytes >= rules[op].mapped_from;
    if (over_mpi())
        /* With more PEs than cores, every MPI call of a native algorithm
         * spins in MPICH for a time slice; MPI's collectives make fewer
         * (4 PEs on 2 cores: MPI 2-50x faster in every cell).  On any node
         * of the job, so that every member decides alike (the team may
         * span nodes here). */
        return pshm_g.oversubscribed_any ||
               (bytes >= rules[op].over_mpi_from && bytes < rules[op].over_mpi_until);
    return bytes >= rules[op].unmapped_from;
}

static void print_from(FILE *out, size_t from)
{
    if (from == NEVER)
        fprintf(out, "native");
    else if (from == 0)
        fprintf(out, "mpi");
    else
        fprintf(out, "native below %zu B, mpi from there", from);
}

static void print_range(FILE *out, size_t from, size_t until)
{
    if (until == NEVER)
        print_from(out, from);
    else if (from == 0)
        fprintf(out, "mpi below %zu B, native from there", until);
    else
        fprintf(out, "mpi from %zu B below %zu B, else native", from, until);
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
                    fprintf(out, "%s %s_%s", missing ? "," : "  reductions MPI has no type for, run natively:",
                            reductions[i].type, opn[op]);
                    missing++;
                }
            }
    if (missing)
        fprintf(out, "\n");
    fprintf(out, "  reductions on MPI: %d of the %d type x operator pairs of the tables\n",
            total - missing, total);
}

void pshm_cext_info(FILE *out, const char *want)
{
    fprintf(out, "Collectives: %s\n", want);
    if (!strcmp(want, "native")) {
        fprintf(out, "  every operation native (SHMEM_COLLECTIVES=mpi or auto would load coll-mpi.so)\n");
        return;
    }
    char why[1024];
    const char *path = NULL;
    int loaded_here = !pshm_cext_loaded(NULL);
    if (pshm_cext_load("mpi", why, sizeof why)) {
        fprintf(out, "  not usable: %s\n", why);
        return;
    }
    const struct pshm_cext *x = pshm_cext_loaded(&path);
    fprintf(out, "  component %s\n", path);
    if (pshm_is_initialized() && pshm_cext_mode != PSHM_CEXT_MODE_NATIVE) {
        fprintf(out, "  MPI: %s\n", x->describe());
    } else {
        struct pshm_cext_svc svc;
        pshm_cext_fill_svc(&svc, pshm_is_initialized() ? pshm_g.my_pe : 0,
                           pshm_is_initialized() ? pshm_g.n_pes : 1, 0);
        if (x->query(&svc, why, sizeof why))
            fprintf(out, "  not usable in this job: %s\n", why);
    }
    for (int op = 0; op < PSHM_CEXT_OP_N; op++) {
        fprintf(out, "  %-14s ", op_names[op]);
        if (!strcmp(want, "mpi")) {
            fprintf(out, "mpi\n");
            continue;
        }
        fprintf(out, "one node, bypass on: ");
        print_from(out, rules[op].mapped_from);
        if (rules[op].mapped_from != NEVER)
            fprintf(out, " (native when PEs outnumber cores)");
        fprintf(out, "; through a transport: ");
        print_from(out, rules[op].unmapped_from);
        fprintf(out, "; over the mpi transport: ");
        print_range(out, rules[op].over_mpi_from, rules[op].over_mpi_until);
        if (rules[op].over_mpi_from != 0 || rules[op].over_mpi_until != NEVER)
            fprintf(out, " (mpi when PEs outnumber cores)");
        fprintf(out, "\n");
    }
    fprintf(out, "  active-set routines: %s\n",
            !strcmp(want, "mpi") ? "mpi (a communicator per set, cached)" : "native");
    fprintf(out, "  counts past MPI's int (2^31-1 per PE): native\n");
    print_fallbacks(out, x);
    if (loaded_here)
        pshm_cext_unload();
}
