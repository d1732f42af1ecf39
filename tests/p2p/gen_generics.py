#!/usr/bin/env python3
"""Generates the C11 generic-selection test from the library's type tables.

  gen_generics.py GEN_DIR run OUT.c        the runtime program (generics.c)
  gen_generics.py GEN_DIR right OUT.c      a unit that must compile: every
                                           generic called with every type of
                                           its table (typedef names too; the
                                           short sets of shmemx.h included)
  gen_generics.py GEN_DIR deprecated OUT.c the deprecated generics
                                           (shmem_add, shmem_fadd, ...)

The runtime program defines its own shmem_[ctx_]TYPENAME_* functions, which
take the place of the library's weak shmem_ names for calls from the
program, record which one was called and forward to the pshmem_ name.  Each
generic call with a base C type (with and without a context) must land in
the function of that type (or of a typedef of the same type).
"""
import os
import sys

sys.path.insert(0, os.path.abspath(sys.argv[1]))
import typetables as T  # noqa: E402

ALL = T.RMA
IDX = {t[0]: i for i, t in enumerate(ALL)}

# (generic, table, C suffix, return kind, params (with TYPE), call args (D: a
# symmetric TYPE *, L: a local TYPE *, F: a local TYPE * fetch, V: a TYPE value),
# has ctx)
P = "TYPE *dest, const TYPE *source, size_t nelems, int pe"
PS = "TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe"
PB = "TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe"
PSIG = "TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe"
FAMS = [
    ("put", T.RMA, "put", "void", P, "D, L, 2, pe", True),
    ("get", T.RMA, "get", "void", P, "L, D, 2, pe", True),
    ("put_nbi", T.RMA, "put_nbi", "void", P, "D, L, 2, pe", True),
    ("get_nbi", T.RMA, "get_nbi", "void", P, "L, D, 2, pe", True),
    ("iput", T.RMA, "iput", "void", PS, "D, L, 1, 1, 2, pe", True),
    ("iget", T.RMA, "iget", "void", PS, "L, D, 1, 1, 2, pe", True),
    ("ibput", T.RMA, "ibput", "void", PB, "D, L, 1, 1, 1, 2, pe", True),
    ("ibget", T.RMA, "ibget", "void", PB, "L, D, 1, 1, 1, 2, pe", True),
    ("p", T.RMA, "p", "void", "TYPE *dest, TYPE value, int pe", "D, V, pe", True),
    ("g", T.RMA, "g", "TYPE", "const TYPE *source, int pe", "D, pe", True),
    ("put_signal", T.RMA, "put_signal", "void", PSIG, "D, L, 2, &gsig, 1, SHMEM_SIGNAL_ADD, pe", True),
    ("put_signal_nbi", T.RMA, "put_signal_nbi", "void", PSIG, "D, L, 2, &gsig, 1, SHMEM_SIGNAL_ADD, pe", True),
    ("atomic_fetch", T.AMO_EXT, "atomic_fetch", "TYPE", "const TYPE *source, int pe", "D, pe", True),
    ("atomic_set", T.AMO_EXT, "atomic_set", "void", "TYPE *dest, TYPE value, int pe", "D, V, pe", True),
    ("atomic_swap", T.AMO_EXT, "atomic_swap", "TYPE", "TYPE *dest, TYPE value, int pe", "D, V, pe", True),
    ("atomic_compare_swap", T.AMO_STD, "atomic_compare_swap", "TYPE", "TYPE *dest, TYPE cond, TYPE value, int pe", "D, V, V, pe", True),
    ("atomic_fetch_inc", T.AMO_STD, "atomic_fetch_inc", "TYPE", "TYPE *dest, int pe", "D, pe", True),
    ("atomic_inc", T.AMO_STD, "atomic_inc", "void", "TYPE *dest, int pe", "D, pe", True),
    ("atomic_fetch_add", T.AMO_STD, "atomic_fetch_add", "TYPE", "TYPE *dest, TYPE value, int pe", "D, V, pe", True),
    ("atomic_add", T.AMO_STD, "atomic_add", "void", "TYPE *dest, TYPE value, int pe", "D, V, pe", True),
]
for op in ("and", "or", "xor"):
    FAMS.append(("atomic_fetch_" + op, T.AMO_BIT, "atomic_fetch_" + op, "TYPE", "TYPE *dest, TYPE value, int pe", "D, V, pe", True))
    FAMS.append(("atomic_" + op, T.AMO_BIT, "atomic_" + op, "void", "TYPE *dest, TYPE value, int pe", "D, V, pe", True))
FAMS += [
    ("atomic_fetch_nbi", T.AMO_EXT, "atomic_fetch_nbi", "void", "TYPE *fetch, const TYPE *source, int pe", "F, D, pe", True),
    ("atomic_swap_nbi", T.AMO_EXT, "atomic_swap_nbi", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe", "F, D, V, pe", True),
    ("atomic_compare_swap_nbi", T.AMO_STD, "atomic_compare_swap_nbi", "void", "TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe", "F, D, V, V, pe", True),
    ("atomic_fetch_inc_nbi", T.AMO_STD, "atomic_fetch_inc_nbi", "void", "TYPE *fetch, TYPE *dest, int pe", "F, D, pe", True),
    ("atomic_fetch_add_nbi", T.AMO_STD, "atomic_fetch_add_nbi", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe", "F, D, V, pe", True),
]
for op in ("and", "or", "xor"):
    FAMS.append(("atomic_fetch_%s_nbi" % op, T.AMO_BIT, "atomic_fetch_%s_nbi" % op, "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe", "F, D, V, pe", True))
W1 = "TYPE *ivar, int cmp, TYPE cmp_value"
FAMS += [
    ("wait_until", T.P2P + T.P2P_DEPRECATED, "wait_until", "void", W1, "I, SHMEM_CMP_EQ, 0", False),
    ("test", T.P2P + T.P2P_DEPRECATED, "test", "int", W1, "I, SHMEM_CMP_EQ, 0", False),
]
for kind in ("all", "any", "some"):
    for vec in ("", "_vector"):
        for w in ("wait_until", "test"):
            idx = "size_t *indices, " if kind == "some" else ""
            cv = "const TYPE *cmp_values" if vec else "TYPE cmp_value"
            ret = {"all": "void" if w == "wait_until" else "int", "any": "size_t", "some": "size_t"}[kind]
            args = "I, 1, %sNULL, SHMEM_CMP_EQ, %s" % ("idx, " if kind == "some" else "", "I0" if vec else "0")
            # short and unsigned short: the extension of shmemx.h.
            FAMS.append(("%s_%s%s" % (w, kind, vec), T.P2P + T.P2P_SET_EXT, "%s_%s%s" % (w, kind, vec), ret,
                         "TYPE *ivars, size_t nelems, %sconst int *status, int cmp, %s" % (idx, cv), args, False))


# Generics checked at compile time only (the run program stands in for the
# shmem_ typed names, not these): (generic, table, call args, has ctx).
# The collectives dispatch on their second argument (D), the shmemx_ ones
# on the first (or the second after a context).
COMPILE_ONLY = [("shmem_broadcast", T.RMA, "team, D, L, 2, 0", False)]
for op in ("collect", "fcollect", "alltoall"):
    COMPILE_ONLY.append(("shmem_" + op, T.RMA, "team, D, L, 2", False))
COMPILE_ONLY.append(("shmem_alltoalls", T.RMA, "team, D, L, 1, 1, 2", False))
for op, tab in T.REDUCE_OPS:
    COMPILE_ONLY.append(("shmem_%s_reduce" % op, tab, "team, D, L, 2", False))
for op, tab in T.SCAN_OPS:
    COMPILE_ONLY.append(("shmem_" + op, tab, "team, D, L, 2", False))
COMPILE_ONLY += [
    ("shmemx_put_nbe", T.RMA, "D, L, 2, pe, &req", True),
    ("shmemx_get_nbe", T.RMA, "L, D, 2, pe, &req", True),
    ("shmemx_atomic_fetch_nbe", T.AMO_EXT, "F, D, pe, &req", True),
    ("shmemx_atomic_swap_nbe", T.AMO_EXT, "F, D, V, pe, &req", True),
    ("shmemx_atomic_compare_swap_nbe", T.AMO_STD, "F, D, V, V, pe, &req", True),
    ("shmemx_atomic_fetch_inc_nbe", T.AMO_STD, "F, D, pe, &req", True),
    ("shmemx_atomic_fetch_add_nbe", T.AMO_STD, "F, D, V, pe, &req", True),
]
for op in ("and", "or", "xor"):
    COMPILE_ONLY.append(("shmemx_atomic_fetch_%s_nbe" % op, T.AMO_BIT, "F, D, V, pe, &req", True))


def params_names(params):
    return ", ".join(p.split()[-1].lstrip("*") for p in params.split(", "))


def run_program():
    out = ["/* Generated by tests/p2p/gen_generics.py from gen/typetables.py: do not edit. */",
           '#include "p2p_test.h"', "#include <pshmem.h>", "#include <shmemx.h>", "",
           "static int hit_fam = -1, hit_type = -1, hit_ctx = -1;", "static uint64_t gsig;", ""]
    # symmetric buffers per type (every table entry: a generic may answer
    # for int32_t through the int32 routine when a table has no int)
    for tn, ty, sz in T.RMA:
        out.append("static %s sym_%s[8] __attribute__((unused));" % (ty, tn))
    out.append("")
    # wrappers
    for fi, (gname, tab, suffix, ret, params, args, has_ctx) in enumerate(FAMS):
        for tn, ty, sz in tab:
            p = params.replace("TYPE", ty)
            r = ty if ret == "TYPE" else ret
            names = params_names(params)
            for c in ((0, 1) if has_ctx else (0,)):
                fname = "%s%s_%s" % ("ctx_" if c else "", tn, suffix)
                pp = ("shmem_ctx_t ctx, " + p) if c else p
                aa = ("ctx, " + names) if c else names
                body = "hit_fam = %d; hit_type = %d; hit_ctx = %d; " % (fi, IDX[tn], c)
                body += ("return pshmem_%s(%s);" if r != "void" else "pshmem_%s(%s);") % (fname, aa)
                out.append("%s shmem_%s(%s) { %s }" % (r, fname, pp, body))
    out.append("")
    # same-type matrix
    out.append("static const unsigned char same_type[%d][%d] = {" % (len(ALL), len(ALL)))
    for a in ALL:
        out.append("    {%s}," % ", ".join("_Generic((%s *)0, %s *: 1, default: 0)" % (a[1], b[1]) for b in ALL))
    out.append("};")
    out.append("static const char *type_names[] = {%s};" % ", ".join('"%s"' % t[0] for t in ALL))
    out.append("static const char *fam_names[] = {%s};" % ", ".join('"%s"' % f[0] for f in FAMS))
    out.append("""
static int ncalls;
static void expect(int fam, int type, int ctx, const char *call)
{
    REQUIRE(hit_fam == fam && hit_type >= 0 && same_type[type][hit_type] && hit_ctx == ctx,
            "%s with %s%s landed in %s%s_%s (expected shmem_%s%s_%s or a same-type name)", call,
            ctx ? "a context and " : "", type_names[type],
            hit_ctx == 1 ? "shmem_ctx_" : hit_ctx == 0 ? "shmem_" : "(nothing) ",
            hit_type >= 0 ? type_names[hit_type] : "?", hit_fam >= 0 ? fam_names[hit_fam] : "?",
            ctx ? "ctx_" : "", type_names[type], fam_names[fam]);
    hit_fam = hit_type = hit_ctx = -1;
    ncalls++;
}
""")
    out.append("static void run_generics(int pe, shmem_ctx_t ctx)\n{")
    out.append("    size_t idx[1];\n    (void)idx;")
    for fi, (gname, tab, suffix, ret, params, args, has_ctx) in enumerate(FAMS):
        for tn, ty, sz in T.generic(tab):
            out.append("    {")
            out.append("        %s *D = sym_%s, L[8] = {0}, F[1] = {0}, V = 0, I[1] = {0}, I0[1] = {0};" % (ty, tn))
            out.append("        (void)D; (void)L; (void)F; (void)V; (void)I; (void)I0;")
            out.append("        shmem_%s(%s);" % (gname, args))
            out.append('        expect(%d, %d, 0, "shmem_%s");' % (fi, IDX[tn], gname))
            if has_ctx:
                out.append("        shmem_%s(ctx, %s);" % (gname, args))
                out.append('        expect(%d, %d, 1, "shmem_%s");' % (fi, IDX[tn], gname))
            out.append("        shmem_quiet();\n        shmem_ctx_quiet(ctx);")
            out.append("    }")
    out.append("}")
    out.append("""
int main(void)
{
    shmem_init();
    check_watchdog(120);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    REQUIRE_EQ(shmem_ctx_create(0, &ctx), 0, "shmem_ctx_create failed");
    check_stage("generic selection");
    run_generics((me + 1) % npes, ctx);
    shmem_ctx_destroy(ctx);
    /* A generic call also moves the data: a typed round trip. */
    check_stage("generic data");
    static int gi[4];
    static long double gld[4];
    int vi[4] = {1, -2, 3, -4};
    long double vld[4] = {1.5L, -2.5L, 3.25L, 1e300L};
    shmem_barrier_all();
    shmem_put(gi, vi, 4, (me + 1) % npes);
    shmem_put(gld, vld, 4, (me + 1) % npes);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        REQUIRE(gi[i] == vi[i] && gld[i] == vld[i], "shmem_put generic data word %d", i);
    REQUIRE_EQ(shmem_g(&gi[3], (me + 1) % npes), -4, "shmem_g generic");
    int status =
        check_done("generics", "%d generic calls selected the right typed routine", ncalls);
    shmem_finalize();
    return status;
}
""")
    return "\n".join(out) + "\n"


def right_unit():
    """Every generic with every type of its table, typedef names included."""
    out = ["/* Generated by tests/p2p/gen_generics.py: must compile with -Werror. */",
           "#include <shmem.h>", "#include <shmemx.h>", "static uint64_t gsig;",
           "void all_generics(shmem_ctx_t ctx, shmem_team_t team, int pe);",
           "void all_generics(shmem_ctx_t ctx, shmem_team_t team, int pe)\n{", "    size_t idx[1];",
           "    shmemx_request_h req = SHMEMX_REQUEST_NULL;", "    (void)idx; (void)team; (void)req;"]
    for fi, (gname, tab, suffix, ret, params, args, has_ctx) in enumerate(FAMS):
        for tn, ty, sz in tab:
            out.append("    { /* shmem_%s %s */" % (gname, ty))
            out.append("        static %s D[8]; %s L[8] = {0}, F[1] = {0}, V = 0, I[1] = {0}, I0[1] = {0};" % (ty, ty))
            out.append("        (void)D; (void)L; (void)F; (void)V; (void)I; (void)I0;")
            out.append("        shmem_%s(%s); /* CHECK shmem_%s %s */" % (gname, args, gname, ty))
            if has_ctx:
                out.append("        shmem_%s(ctx, %s); /* CHECK shmem_%s %s with ctx */" % (gname, args, gname, ty))
            out.append("    }")
    for gname, tab, args, has_ctx in COMPILE_ONLY:
        for tn, ty, sz in tab:
            out.append("    { /* %s %s */" % (gname, ty))
            out.append("        static %s D[8]; %s L[8] = {0}, F[1] = {0}, V = 0;" % (ty, ty))
            out.append("        (void)D; (void)L; (void)F; (void)V;")
            out.append("        %s(%s); /* CHECK %s %s */" % (gname, args, gname, ty))
            if has_ctx:
                out.append("        %s(ctx, %s); /* CHECK %s %s with ctx */" % (gname, args, gname, ty))
            out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"


def deprecated_unit():
    out = ["/* Generated by tests/p2p/gen_generics.py: the deprecated C11 generics. */",
           "#include <shmem.h>", "void dep_generics(int pe);", "void dep_generics(int pe)\n{"]
    for tn, ty in (("int", "int"), ("long", "long"), ("longlong", "long long")):
        out.append("    { static %s d; %s v = 1; (void)v;" % (ty, ty))
        for call in ("shmem_add(&d, v, pe)", "v = shmem_cswap(&d, v, v, pe)", "v = shmem_fadd(&d, v, pe)",
                     "v = shmem_finc(&d, pe)", "shmem_inc(&d, pe)"):
            out.append("        %s; /* CHECK %s %s */" % (call, call.split("(")[0].split()[-1], ty))
        out.append("    }")
    for tn, ty in (("float", "float"), ("double", "double"), ("int", "int"), ("long", "long"), ("longlong", "long long")):
        out.append("    { static %s d; %s v = 1; (void)v;" % (ty, ty))
        for call in ("v = shmem_swap(&d, v, pe)", "v = shmem_fetch(&d, pe)", "shmem_set(&d, v, pe)"):
            out.append("        %s; /* CHECK %s %s */" % (call, call.split("(")[0].split()[-1], ty))
        out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    mode, path = sys.argv[2], sys.argv[3]
    text = {"run": run_program, "right": right_unit, "deprecated": deprecated_unit}[mode]()
    open(path, "w").write(text)
