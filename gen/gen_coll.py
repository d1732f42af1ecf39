#!/usr/bin/env python3
"""Generates the teams and collectives API from gen/typetables.py.

  gen_coll.py source OUT   C source of every collective entry point

gen/gen_api.py imports this module for the header: declarations(),
generics() and pdeclarations().  Every routine is defined as pshmem_NAME
with shmem_NAME a weak alias; the bodies call the checked entry points of
collectives/coll_api.c and collectives/activeset.c.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import typetables as T  # noqa: E402

COMPLEX_NAMES = {"complexd", "complexf"}

# LP64: what each exact-width and size/ptrdiff name is a typedef of, so a
# _Generic lists every distinct C type once.
BASE = {"int8": "schar", "int16": "short", "int32": "int", "int64": "long",
        "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulong",
        "size": "ulong", "ptrdiff": "long"}
CTYPE = dict((t[0], t[1]) for t in T.RMA + T.COMPLEX)


def AS():
    return "int PE_start, int logPE_stride, int PE_size, long *pSync"


# Each routine: (name, return type, params, body, deprecated, complex)
def team_routines():
    """Hand-written in core/team.c; declared here."""
    return [
        ("team_my_pe", "int", "shmem_team_t team", None, False, False),
        ("team_n_pes", "int", "shmem_team_t team", None, False, False),
        ("team_get_config", "int", "shmem_team_t team, long config_mask, shmem_team_config_t *config",
         None, False, False),
        ("team_translate_pe", "int", "shmem_team_t src_team, int src_pe, shmem_team_t dest_team",
         None, False, False),
        ("team_split_strided", "int",
         "shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, "
         "long config_mask, shmem_team_t *new_team", None, False, False),
        ("team_split_2d", "int",
         "shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, "
         "shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, "
         "shmem_team_t *yaxis_team", None, False, False),
        ("team_destroy", "void", "shmem_team_t team", None, False, False),
    ]


def coll_routines():
    r = []
    q = lambda n: '"shmem_%s"' % n  # noqa: E731
    r.append(("team_sync", "int", "shmem_team_t team", "return pshm_coll_sync(%s, team);" % q("team_sync"),
              False, False))
    types = [(tn, ty) for tn, ty, _ in T.RMA] + [("mem", None)]
    for tn, ty in types:
        mem = ty is None
        ty = "void" if mem else ty
        sz = "1" if mem else "sizeof(%s)" % ty

        def nm(op):
            return op + "mem" if mem else "%s_%s" % (tn, op)
        n = nm("broadcast")
        r.append((n, "int", "shmem_team_t team, %s *dest, const %s *source, size_t nelems, int PE_root" % (ty, ty),
                  "return pshm_coll_broadcast(%s, team, dest, source, nelems * %s, PE_root);" % (q(n), sz), False, False))
        for op, fixed in (("collect", 0), ("fcollect", 1)):
            n = nm(op)
            r.append((n, "int", "shmem_team_t team, %s *dest, const %s *source, size_t nelems" % (ty, ty),
                      "return pshm_coll_collect(%s, team, dest, source, nelems * %s, %d);" % (q(n), sz, fixed),
                      False, False))
        n = nm("alltoall")
        r.append((n, "int", "shmem_team_t team, %s *dest, const %s *source, size_t nelems" % (ty, ty),
                  "return pshm_coll_alltoall(%s, team, dest, source, nelems * %s);" % (q(n), sz), False, False))
        n = nm("alltoalls")
        r.append((n, "int",
                  "shmem_team_t team, %s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems" % (ty, ty),
                  "return pshm_coll_alltoalls(%s, team, dest, source, dst, sst, nelems, %s);" % (q(n), sz),
                  False, False))
    for op, table in T.REDUCE_OPS:
        for tn, ty, _ in table:
            n = "%s_%s_reduce" % (tn, op)
            r.append((n, "int", "shmem_team_t team, %s *dest, const %s *source, size_t nreduce" % (ty, ty),
                      "return pshm_coll_reduce(%s, team, dest, source, nreduce, &R_%s_%s);" % (q(n), tn, op),
                      False, tn in COMPLEX_NAMES))
    for op, table in T.SCAN_OPS:
        for tn, ty, _ in table:
            n = "%s_%s" % (tn, op)
            r.append((n, "int", "shmem_team_t team, %s *dest, const %s *source, size_t nelems" % (ty, ty),
                      "return pshm_coll_scan(%s, team, dest, source, nelems, &R_%s_sum, %d);"
                      % (q(n), tn, 1 if op == "sum_exscan" else 0), False, tn in COMPLEX_NAMES))
    # Deprecated active-set forms.
    r.append(("barrier", "void", AS(), "pshm_as_barrier(%s, PE_start, logPE_stride, PE_size, pSync, 1);" % q("barrier"),
              True, False))
    r.append(("sync", "void", AS(), "pshm_as_barrier(%s, PE_start, logPE_stride, PE_size, pSync, 0);" % q("sync"),
              True, False))
    for bits in (32, 64):
        b = bits // 8
        n = "broadcast%d" % bits
        r.append((n, "void", "void *dest, const void *source, size_t nelems, int PE_root, " + AS(),
                  "pshm_as_broadcast(%s, dest, source, nelems * %d, PE_root, PE_start, logPE_stride, PE_size, pSync);"
                  % (q(n), b), True, False))
        for op, fixed in (("collect", 0), ("fcollect", 1)):
            n = "%s%d" % (op, bits)
            r.append((n, "void", "void *dest, const void *source, size_t nelems, " + AS(),
                      "pshm_as_collect(%s, dest, source, nelems * %d, %d, PE_start, logPE_stride, PE_size, pSync);"
                      % (q(n), b, fixed), True, False))
        n = "alltoall%d" % bits
        r.append((n, "void", "void *dest, const void *source, size_t nelems, " + AS(),
                  "pshm_as_alltoalls(%s, dest, source, 1, 1, nelems, %d, PE_start, logPE_stride, PE_size, pSync);"
                  % (q(n), b), True, False))
        n = "alltoalls%d" % bits
        r.append((n, "void", "void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, " + AS(),
                  "pshm_as_alltoalls(%s, dest, source, dst, sst, nelems, %d, PE_start, logPE_stride, PE_size, pSync);"
                  % (q(n), b), True, False))
    for op, table in T.TO_ALL_OPS:
        for tn, ty, _ in table:
            n = "%s_%s_to_all" % (tn, op)
            r.append((n, "void",
                      "%s *dest, const %s *source, int nreduce, int PE_start, int logPE_stride, int PE_size, "
                      "%s *pWrk, long *pSync" % (ty, ty, ty),
                      "(void)pWrk;\n    pshm_as_reduce(%s, dest, source, nreduce, &R_%s_%s, PE_start, logPE_stride, "
                      "PE_size, pSync);" % (q(n), tn, op), True, tn in COMPLEX_NAMES))
    return r


# ---------------------------------------------------------------- operators

def uint_for(tn, ty, sz):
    return "unsigned long long" if sz == 8 else "unsigned int"


def op_expr(tn, ty, sz, op):
    flt = tn in ("float", "double", "longdouble") or tn in COMPLEX_NAMES
    if op in ("and", "or", "xor"):
        c = {"and": "&", "or": "|", "xor": "^"}[op]
        return "a[i] = (%s)(a[i] %s b[i]);" % (ty, c)
    if op == "max":
        return "if (b[i] > a[i])\n            a[i] = b[i];"
    if op == "min":
        return "if (b[i] < a[i])\n            a[i] = b[i];"
    c = "+" if op == "sum" else "*"
    if flt:
        return "a[i] = a[i] %s b[i];" % c
    u = uint_for(tn, ty, sz)
    # Unsigned arithmetic: wraps instead of overflowing a signed type.
    return "a[i] = (%s)((%s)a[i] %s (%s)b[i]);" % (ty, u, c, u)


OPNUM = {"and": "PSHM_OP_AND", "or": "PSHM_OP_OR", "xor": "PSHM_OP_XOR", "max": "PSHM_OP_MAX",
         "min": "PSHM_OP_MIN", "sum": "PSHM_OP_SUM", "prod": "PSHM_OP_PROD"}


def operators():
    need = {}
    for op, table in T.REDUCE_OPS + T.TO_ALL_OPS:
        for t in table:
            need[(t[0], op)] = t
    out = []
    for (tn, op), (_, ty, sz) in sorted(need.items()):
        e = op_expr(tn, ty, sz, op)
        head = ("static void red_%s_%s(void *a_, const void *b_, size_t n)\n{\n"
                "    %s *a = a_;\n    const %s *b = b_;\n" % (tn, op, ty, ty))
        if tn in COMPLEX_NAMES or tn == "longdouble":
            out.append(head + "    for (size_t i = 0; i < n; i++) {\n        %s\n    }\n}" % e)
        else:
            out.append(block_loop(head, ty, e))
        out.append("static const struct pshm_red R_%s_%s = {red_%s_%s, sizeof(%s), %s, \"%s\"};"
                   % (tn, op, tn, op, ty, OPNUM[op], tn))
    return "\n".join(out)


def block_loop(head, ty, e):
    """b may alias a as far as the compiler knows, which stops -O2 from
    vectorizing a plain loop; a block of b loaded into a local first cannot
    alias, and the block's fixed length lets it use SIMD."""
    blk = e.replace("a[i]", "a[i + j]").replace("b[i]", "t[j]")
    return (head + "    size_t i = 0;\n"
            "    for (; i + 16 <= n; i += 16) {\n        %s t[16];\n"
            "        for (int j = 0; j < 16; j++)\n            t[j] = b[i + j];\n"
            "        for (int j = 0; j < 16; j++) {\n            %s\n        }\n    }\n"
            "    for (; i < n; i++) {\n        %s\n    }\n}" % (ty, blk.replace("\n", "\n    "), e))


# ---------------------------------------------------------------- output

# shmem.h defines PSHM_HAVE_COMPLEX and the two typedefs (C: _Complex, C++:
# std::complex) that the complex forms are declared with.
COMPLEX_GUARD = "#ifdef PSHM_HAVE_COMPLEX"
DECL_CTYPE = {"float _Complex": "pshm_complexf", "double _Complex": "pshm_complexd"}


def decl_params(params):
    for c, t in DECL_CTYPE.items():
        params = params.replace(c, t)
    return params


# shmem.h defines PSHM_HAVE_C99_COMPLEX_CXX and pshm_c99_complexf/d (the C
# types, float/double _Complex) where a C++ compiler knows them.
C99_CXX_GUARD = "#ifdef PSHM_HAVE_C99_COMPLEX_CXX"
C99_CXX_CTYPE = {"float _Complex": "pshm_c99_complexf", "double _Complex": "pshm_c99_complexd"}


def c99_overload(prefix, name, ret, params, dep):
    """A C++ inline overload of a complex routine for C99 complex pointers:
    a C++ program built with GCC or Clang may hold its data as float/double
    _Complex (shared with C code), which std::complex pointers do not take.
    The types have the same layout, so the overload only casts."""
    ps, args = [], []
    for p in params.split(", "):
        pname = p.split()[-1].lstrip("*")
        for c, t in C99_CXX_CTYPE.items():
            if c in p:
                ps.append(p.replace(c, t))
                args.append("reinterpret_cast<%s>(%s)" % (decl_params(p[:-len(pname)].strip()), pname))
                break
        else:
            ps.append(p)
            args.append(pname)
    body = "%s%s%s(%s);" % ("" if ret == "void" else "return ", prefix, name, ", ".join(args))
    return "%sinline %s %s%s(%s)\n{\n    %s\n}" % (dep, ret, prefix, name, ", ".join(ps), body)


def _decls(prefix, with_dep):
    out = []
    rs = team_routines() + coll_routines()
    plain = [x for x in rs if not x[5]]
    cplx = [x for x in rs if x[5]]
    for name, ret, params, body, dep, _ in plain:
        d = "PSHM_DEPRECATED " if dep and with_dep else ""
        out.append("%s%s %s%s(%s);" % (d, ret, prefix, name, params))
    out.append(COMPLEX_GUARD)
    for name, ret, params, body, dep, _ in cplx:
        d = "PSHM_DEPRECATED " if dep and with_dep else ""
        out.append("%s%s %s%s(%s);" % (d, ret, prefix, name, decl_params(params)))
    out.append(C99_CXX_GUARD)
    # The overloads of deprecated routines call them: no warning of their
    # own under -DSHMEM_WARN_DEPRECATED, only where a program calls them.
    out.append("#pragma GCC diagnostic push")
    out.append('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    out.append('extern "C++" {')
    for name, ret, params, body, dep, _ in cplx:
        d = "PSHM_DEPRECATED " if dep and with_dep else ""
        out.append(c99_overload(prefix, name, ret, params, d))
    out.append("}")
    out.append("#pragma GCC diagnostic pop")
    out.append("#endif")
    out.append("#endif")
    return "\n".join(out)


def declarations():
    return _decls("shmem_", True)


def pdeclarations():
    return _decls("pshmem_", False)


def assoc(table, fmt):
    """(C type, routine) pairs with each distinct C type once: a table's own
    base-named entry wins over a typedef of the same type."""
    names = [t[0] for t in table]
    seen = {}
    for tn in names:
        base = BASE.get(tn, tn)
        if base in seen or (base != tn and base in names):
            continue
        seen[base] = tn
    return ["%s *: shmem_%s" % (CTYPE[base], fmt % tn) for base, tn in seen.items()]


def generic(macro, table, fmt):
    a = assoc(table, fmt) + ["default: pshm_generic_type_error"]
    return "#define %s(...) _Generic(PSHM_ARG1(__VA_ARGS__, 0, 0), \\\n    %s)(__VA_ARGS__)" % (
        macro, ", \\\n    ".join(a))


def generics():
    g = []
    for op in ("broadcast", "collect", "fcollect", "alltoall", "alltoalls"):
        g.append(generic("shmem_" + op, T.RMA, "%s_" + op))
    for op, table in T.REDUCE_OPS:
        g.append(generic("shmem_%s_reduce" % op, table, "%s_" + op + "_reduce"))
    for op, table in T.SCAN_OPS:
        g.append(generic("shmem_" + op, table, "%s_" + op))
    # shmem_sync is also the deprecated active-set C function: a team
    # argument selects shmem_team_sync, anything else the function.
    g.append("#define shmem_sync(...) _Generic(PSHM_ARG0(__VA_ARGS__, 0), \\\n"
             "    shmem_team_t: shmem_team_sync, default: shmem_sync)(__VA_ARGS__)")
    return "\n\n".join(g)


def emit_source(out):
    lines = ["/* Generated by gen/gen_coll.py from gen/typetables.py: do not edit. */",
             '#include "api.h"', '#include "coll.h"', "", operators(), ""]
    for name, ret, params, body, dep, cplx in coll_routines():
        lines.append("PSHM_API %s pshmem_%s(%s)\n{\n    %s\n}" % (ret, name, params, body))
        lines.append("#pragma weak shmem_%s = pshmem_%s" % (name, name))
    open(out, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "source":
        emit_source(sys.argv[2])
    else:
        sys.exit("usage: gen_coll.py source OUT")
