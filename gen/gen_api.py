#!/usr/bin/env python3
"""Generates the typed OpenSHMEM families from gen/types.py.

  gen_api.py header  TEMPLATE OUT   shmem.h: declarations and C11 generics
  gen_api.py source  FAMILY OUT     core source of one family (rma, amo, p2p)

Every routine is defined as pshmem_NAME with shmem_NAME a weak alias, which is
how the profiling interface is offered without a second copy of the code.
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import typetables as T  # noqa: E402

# ---------------------------------------------------------------- routines
# Each routine: (name, return type, params, body, deprecated)
# params is the C parameter list without ctx; body uses C for the context
# expression, PE for the (translated) pe, R for the user-visible name.


def ctx_variants(name, ret, params, body, has_pe=True):
    """The default-context form and the shmem_ctx_ form."""
    out = []
    body = body.replace("(@C,", "(@R, @C,")
    out.append((name, ret, params,
                body.replace("@C", "&pshm_ctx_default").replace("@R", '"shmem_%s"' % name), ""))
    cname = "ctx_" + name
    cparams = "shmem_ctx_t ctx, " + params
    out.append((cname, ret, cparams, body.replace("@C", "ctx").replace("@R", '"shmem_%s"' % cname),
                'pe = PSHM_CTX_PE(ctx, "shmem_%s", pe);' % cname if has_pe else ""))
    return out


def rma_routines():
    r = []
    for tn, ty, sz in T.RMA:
        r += ctx_variants("%s_put" % tn, "void", "%s *dest, const %s *source, size_t nelems, int pe" % (ty, ty),
                          "pshm_put(@C, dest, source, nelems * sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_get" % tn, "void", "%s *dest, const %s *source, size_t nelems, int pe" % (ty, ty),
                          "pshm_get(@C, dest, source, nelems * sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_put_nbi" % tn, "void", "%s *dest, const %s *source, size_t nelems, int pe" % (ty, ty),
                          "pshm_put_nbi(@C, dest, source, nelems * sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_get_nbi" % tn, "void", "%s *dest, const %s *source, size_t nelems, int pe" % (ty, ty),
                          "pshm_get_nbi(@C, dest, source, nelems * sizeof(%s), pe);" % ty)
        # Up to 8 bytes the value travels as its bits, in a register
        # (pshm_p); long double is put from memory.
        r += ctx_variants("%s_p" % tn, ty and "void", "%s *dest, %s value, int pe" % (ty, ty),
                          "pshm_p(@C, dest, pshm_bits(&value, sizeof value), sizeof value, pe);"
                          if sz <= 8 else "pshm_put(@C, dest, &value, sizeof value, pe);")
        r += ctx_variants("%s_g" % tn, ty, "const %s *source, int pe" % ty,
                          "%s v; pshm_get(@C, &v, source, sizeof v, pe); return v;" % ty)
        r += ctx_variants("%s_iput" % tn, "void",
                          "%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe" % (ty, ty),
                          "pshm_strided(@R, @C, 1, dest, source, dst, sst, 1, nelems, sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_iget" % tn, "void",
                          "%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe" % (ty, ty),
                          "pshm_strided(@R, @C, 0, dest, source, dst, sst, 1, nelems, sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_ibput" % tn, "void",
                          "%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe" % (ty, ty),
                          "pshm_strided(@R, @C, 1, dest, source, dst, sst, bsize, nblocks, sizeof(%s), pe);" % ty)
        r += ctx_variants("%s_ibget" % tn, "void",
                          "%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe" % (ty, ty),
                          "pshm_strided(@R, @C, 0, dest, source, dst, sst, bsize, nblocks, sizeof(%s), pe);" % ty)
    for s in T.SIZES:
        b = s // 8
        vp = "void *dest, const void *source, size_t nelems, int pe"
        r += ctx_variants("put%d" % s, "void", vp, "pshm_put(@C, dest, source, nelems * %d, pe);" % b)
        r += ctx_variants("get%d" % s, "void", vp, "pshm_get(@C, dest, source, nelems * %d, pe);" % b)
        r += ctx_variants("put%d_nbi" % s, "void", vp, "pshm_put_nbi(@C, dest, source, nelems * %d, pe);" % b)
        r += ctx_variants("get%d_nbi" % s, "void", vp, "pshm_get_nbi(@C, dest, source, nelems * %d, pe);" % b)
        sp = "void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe"
        r += ctx_variants("iput%d" % s, "void", sp, "pshm_strided(@R, @C, 1, dest, source, dst, sst, 1, nelems, %d, pe);" % b)
        r += ctx_variants("iget%d" % s, "void", sp, "pshm_strided(@R, @C, 0, dest, source, dst, sst, 1, nelems, %d, pe);" % b)
        bp = "void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe"
        r += ctx_variants("ibput%d" % s, "void", bp, "pshm_strided(@R, @C, 1, dest, source, dst, sst, bsize, nblocks, %d, pe);" % b)
        r += ctx_variants("ibget%d" % s, "void", bp, "pshm_strided(@R, @C, 0, dest, source, dst, sst, bsize, nblocks, %d, pe);" % b)
    vp = "void *dest, const void *source, size_t nelems, int pe"
    r += ctx_variants("putmem", "void", vp, "pshm_put(@C, dest, source, nelems, pe);")
    r += ctx_variants("getmem", "void", vp, "pshm_get(@C, dest, source, nelems, pe);")
    r += ctx_variants("putmem_nbi", "void", vp, "pshm_put_nbi(@C, dest, source, nelems, pe);")
    r += ctx_variants("getmem_nbi", "void", vp, "pshm_get_nbi(@C, dest, source, nelems, pe);")
    return r


def width(sz):
    return 32 if sz == 4 else 64


def amo_routines():
    r = []
    # (suffix, table, fetching, params-after-dest, op, operand, compare)
    def U(ty, sz, e):
        return "(uint%d_t)(%s)" % (width(sz), e) if ty not in ("float", "double") else "pshm_bits%d(%s)" % (width(sz), e)

    def back(ty, sz, e):
        if ty in ("float", "double"):
            return "pshm_from_bits_%s(%s)" % (ty, e)
        return "(%s)(%s)" % (ty, e)

    for tn, ty, sz in T.AMO_EXT:
        w = width(sz)
        r += ctx_variants("%s_atomic_fetch" % tn, ty, "const %s *source, int pe" % ty,
                          "return %s;" % back(ty, sz, "pshm_amo_f%d(@C, (void *)source, pe, PSHM_AMO_READ, 0, 0)" % w))
        r += ctx_variants("%s_atomic_set" % tn, "void", "%s *dest, %s value, int pe" % (ty, ty),
                          "pshm_amo_n%d(@C, dest, pe, PSHM_AMO_SET, %s);" % (w, U(ty, sz, "value")))
        r += ctx_variants("%s_atomic_swap" % tn, ty, "%s *dest, %s value, int pe" % (ty, ty),
                          "return %s;" % back(ty, sz, "pshm_amo_f%d(@C, dest, pe, PSHM_AMO_SWAP, %s, 0)" % (w, U(ty, sz, "value"))))
        r += ctx_variants("%s_atomic_fetch_nbi" % tn, "void", "%s *fetch, const %s *source, int pe" % (ty, ty),
                          "pshm_amo_nbi%d(@C, fetch, (void *)source, pe, PSHM_AMO_READ, 0, 0);" % w)
        r += ctx_variants("%s_atomic_swap_nbi" % tn, "void", "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty),
                          "pshm_amo_nbi%d(@C, fetch, dest, pe, PSHM_AMO_SWAP, %s, 0);" % (w, U(ty, sz, "value")))
    for tn, ty, sz in T.AMO_STD:
        w = width(sz)
        r += ctx_variants("%s_atomic_compare_swap" % tn, ty, "%s *dest, %s cond, %s value, int pe" % (ty, ty, ty),
                          "return (%s)pshm_amo_f%d(@C, dest, pe, PSHM_AMO_CSWAP, (uint%d_t)value, (uint%d_t)cond);" % (ty, w, w, w))
        r += ctx_variants("%s_atomic_fetch_inc" % tn, ty, "%s *dest, int pe" % ty,
                          "return (%s)pshm_amo_f%d(@C, dest, pe, PSHM_AMO_ADD, 1, 0);" % (ty, w))
        r += ctx_variants("%s_atomic_inc" % tn, "void", "%s *dest, int pe" % ty,
                          "pshm_amo_n%d(@C, dest, pe, PSHM_AMO_ADD, 1);" % w)
        r += ctx_variants("%s_atomic_fetch_add" % tn, ty, "%s *dest, %s value, int pe" % (ty, ty),
                          "return (%s)pshm_amo_f%d(@C, dest, pe, PSHM_AMO_ADD, (uint%d_t)value, 0);" % (ty, w, w))
        r += ctx_variants("%s_atomic_add" % tn, "void", "%s *dest, %s value, int pe" % (ty, ty),
                          "pshm_amo_n%d(@C, dest, pe, PSHM_AMO_ADD, (uint%d_t)value);" % (w, w))
        r += ctx_variants("%s_atomic_compare_swap_nbi" % tn, "void", "%s *fetch, %s *dest, %s cond, %s value, int pe" % (ty, ty, ty, ty),
                          "pshm_amo_nbi%d(@C, fetch, dest, pe, PSHM_AMO_CSWAP, (uint%d_t)value, (uint%d_t)cond);" % (w, w, w))
        r += ctx_variants("%s_atomic_fetch_inc_nbi" % tn, "void", "%s *fetch, %s *dest, int pe" % (ty, ty),
                          "pshm_amo_nbi%d(@C, fetch, dest, pe, PSHM_AMO_ADD, 1, 0);" % w)
        r += ctx_variants("%s_atomic_fetch_add_nbi" % tn, "void", "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty),
                          "pshm_amo_nbi%d(@C, fetch, dest, pe, PSHM_AMO_ADD, (uint%d_t)value, 0);" % (w, w))
    for tn, ty, sz in T.AMO_BIT:
        w = width(sz)
        for op in ("and", "or", "xor"):
            OP = "PSHM_AMO_" + op.upper()
            r += ctx_variants("%s_atomic_fetch_%s" % (tn, op), ty, "%s *dest, %s value, int pe" % (ty, ty),
                              "return (%s)pshm_amo_f%d(@C, dest, pe, %s, (uint%d_t)value, 0);" % (ty, w, OP, w))
            r += ctx_variants("%s_atomic_%s" % (tn, op), "void", "%s *dest, %s value, int pe" % (ty, ty),
                              "pshm_amo_n%d(@C, dest, pe, %s, (uint%d_t)value);" % (w, OP, w))
            r += ctx_variants("%s_atomic_fetch_%s_nbi" % (tn, op), "void", "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty),
                              "pshm_amo_nbi%d(@C, fetch, dest, pe, %s, (uint%d_t)value, 0);" % (w, OP, w))
    # Deprecated short names: no ctx forms; they call the current ones.
    dep = []
    for tn in ("int", "long", "longlong"):
        ty = dict((a, b) for a, b, _ in T.RMA)[tn]
        dep += [("%s_add" % tn, "void", "%s *dest, %s value, int pe" % (ty, ty), "pshmem_%s_atomic_add(dest, value, pe);" % tn),
                ("%s_cswap" % tn, ty, "%s *dest, %s cond, %s value, int pe" % (ty, ty, ty), "return pshmem_%s_atomic_compare_swap(dest, cond, value, pe);" % tn),
                ("%s_fadd" % tn, ty, "%s *dest, %s value, int pe" % (ty, ty), "return pshmem_%s_atomic_fetch_add(dest, value, pe);" % tn),
                ("%s_finc" % tn, ty, "%s *dest, int pe" % ty, "return pshmem_%s_atomic_fetch_inc(dest, pe);" % tn),
                ("%s_inc" % tn, "void", "%s *dest, int pe" % ty, "pshmem_%s_atomic_inc(dest, pe);" % tn)]
    for tn in ("float", "double", "int", "long", "longlong"):
        ty = dict((a, b) for a, b, _ in T.RMA)[tn]
        dep += [("%s_swap" % tn, ty, "%s *dest, %s value, int pe" % (ty, ty), "return pshmem_%s_atomic_swap(dest, value, pe);" % tn),
                ("%s_fetch" % tn, ty, "const %s *source, int pe" % ty, "return pshmem_%s_atomic_fetch(source, pe);" % tn),
                ("%s_set" % tn, "void", "%s *dest, %s value, int pe" % (ty, ty), "pshmem_%s_atomic_set(dest, value, pe);" % tn)]
    r += [(n, rt, p, b, "") for n, rt, p, b in dep]
    return r


def p2p_routines():
    r = []
    for tn, ty, sz in T.P2P + T.P2P_DEPRECATED:
        r.append(("%s_wait_until" % tn, "void", "%s *ivar, int cmp, %s cmp_value" % (ty, ty),
                  "PSHM_WAIT_UNTIL(%s, \"shmem_%s_wait_until\", ivar, cmp, cmp_value);" % (ty, tn), ""))
        r.append(("%s_test" % tn, "int", "%s *ivar, int cmp, %s cmp_value" % (ty, ty),
                  "return PSHM_TEST(%s, \"shmem_%s_test\", ivar, cmp, cmp_value);" % (ty, tn), ""))
        if (tn, ty, sz) not in T.P2P + T.P2P_SET_EXT:
            continue
        for kind in ("all", "any", "some"):
            for vec in ("", "_vector"):
                cv = "const %s *cmp_values" % ty if vec else "%s cmp_value" % ty
                cvx = "cmp_values" if vec else "&cmp_value"
                vs = "1" if vec else "0"
                idx = "size_t *indices, " if kind == "some" else ""
                ret = {"all": "void", "any": "size_t", "some": "size_t"}[kind]
                ia = "indices" if kind == "some" else "NULL"
                r.append(("%s_wait_until_%s%s" % (tn, kind, vec), ret,
                          "%s *ivars, size_t nelems, %sconst int *status, int cmp, %s" % (ty, idx, cv),
                          "%sPSHM_WAIT_SET(%s, \"shmem_%s_wait_until_%s%s\", PSHM_SET_%s, 1, ivars, nelems, %s, status, cmp, %s, %s);"
                          % ("" if kind == "all" else "return ", ty, tn, kind, vec, kind.upper(), ia, cvx, vs), ""))
                tret = {"all": "int", "any": "size_t", "some": "size_t"}[kind]
                r.append(("%s_test_%s%s" % (tn, kind, vec), tret,
                          "%s *ivars, size_t nelems, %sconst int *status, int cmp, %s" % (ty, idx, cv),
                          "return (%s)PSHM_WAIT_SET(%s, \"shmem_%s_test_%s%s\", PSHM_SET_%s, 0, ivars, nelems, %s, status, cmp, %s, %s);"
                          % (tret, ty, tn, kind, vec, kind.upper(), ia, cvx, vs), ""))
    for tn, ty in (("short", "short"), ("int", "int"), ("long", "long"), ("longlong", "long long")):
        r.append(("%s_wait" % tn, "void", "%s *ivar, %s cmp_value" % (ty, ty),
                  "PSHM_WAIT_UNTIL(%s, \"shmem_%s_wait\", ivar, SHMEM_CMP_NE, cmp_value);" % (ty, tn), ""))
    r.append(("wait_until", "void", "long *ivar, int cmp, long cmp_value",
              "PSHM_WAIT_UNTIL(long, \"shmem_wait_until\", ivar, cmp, cmp_value);", ""))
    r.append(("wait", "void", "long *ivar, long cmp_value",
              "PSHM_WAIT_UNTIL(long, \"shmem_wait\", ivar, SHMEM_CMP_NE, cmp_value);", ""))
    return r


def signal_routines():
    r = []
    for nbi in ("", "_nbi"):
        nb = "1" if nbi else "0"
        sig = "uint64_t *sig_addr, uint64_t signal, int sig_op, int pe"
        for tn, ty, sz in T.RMA:
            r += ctx_variants("%s_put_signal%s" % (tn, nbi), "void",
                              "%s *dest, const %s *source, size_t nelems, %s" % (ty, ty, sig),
                              "pshm_put_signal(@C, dest, source, nelems * sizeof(%s), sig_addr, signal, sig_op, pe, %s);" % (ty, nb))
        for sz in T.SIZES:
            r += ctx_variants("put%d_signal%s" % (sz, nbi), "void",
                              "void *dest, const void *source, size_t nelems, %s" % sig,
                              "pshm_put_signal(@C, dest, source, nelems * %d, sig_addr, signal, sig_op, pe, %s);" % (sz // 8, nb))
        r += ctx_variants("putmem_signal%s" % nbi, "void",
                          "void *dest, const void *source, size_t nelems, %s" % sig,
                          "pshm_put_signal(@C, dest, source, nelems, sig_addr, signal, sig_op, pe, %s);" % nb)
    return r


def nbe_variants(name, params, body):
    """shmemx_NAME and shmemx_ctx_NAME of an explicit non-blocking routine
    (request last); @C is the context, @R the routine's name."""
    out = []
    for cname, cparams, cexpr, pre in (
            (name, params, "&pshm_ctx_default", ""),
            ("ctx_" + name, "shmem_ctx_t ctx, " + params, "ctx",
             'pe = PSHM_CTX_PE(ctx, "shmemx_ctx_%s", pe);' % name)):
        out.append((cname, "void", cparams + ", shmemx_request_h *req",
                    body.replace("@C", cexpr).replace("@R", '"shmemx_%s"' % cname), pre))
    return out


def nbe_routines():
    """shmemx_*_nbe: RMA and fetching AMOs joined to a request."""
    r = []
    vp = "%s *dest, const %s *source, size_t nelems, int pe"
    for tn, ty, sz in T.RMA:
        r += nbe_variants("%s_put_nbe" % tn, vp % (ty, ty),
                          "pshm_nbe_rma(@R, @C, dest, source, nelems * sizeof(%s), pe, 1, req);" % ty)
        r += nbe_variants("%s_get_nbe" % tn, vp % (ty, ty),
                          "pshm_nbe_rma(@R, @C, dest, source, nelems * sizeof(%s), pe, 0, req);" % ty)
    for s in T.SIZES:
        r += nbe_variants("put%d_nbe" % s, vp % ("void", "void"),
                          "pshm_nbe_rma(@R, @C, dest, source, nelems * %d, pe, 1, req);" % (s // 8))
        r += nbe_variants("get%d_nbe" % s, vp % ("void", "void"),
                          "pshm_nbe_rma(@R, @C, dest, source, nelems * %d, pe, 0, req);" % (s // 8))
    r += nbe_variants("putmem_nbe", vp % ("void", "void"),
                      "pshm_nbe_rma(@R, @C, dest, source, nelems, pe, 1, req);")
    r += nbe_variants("getmem_nbe", vp % ("void", "void"),
                      "pshm_nbe_rma(@R, @C, dest, source, nelems, pe, 0, req);")

    def bits(ty, sz, e):
        if ty == "float":
            return "pshm_bits32(%s)" % e
        if ty == "double":
            return "pshm_bits64(%s)" % e
        return "(uint64_t)(uint%d_t)(%s)" % (width(sz), e)

    def amo(tn, ty, sz, name, params, op, v, cmp="0"):
        tc = "PSHM_T_U32" if sz == 4 else "PSHM_T_U64"
        return nbe_variants("%s_atomic_%s_nbe" % (tn, name), params,
                            "pshm_nbe_amo(@R, @C, fetch, %s, pe, %s, %s, %s, %s, req);"
                            % ("(void *)source" if name == "fetch" else "dest", op, tc, v, cmp))
    for tn, ty, sz in T.AMO_EXT:
        r += amo(tn, ty, sz, "fetch", "%s *fetch, const %s *source, int pe" % (ty, ty), "PSHM_AMO_READ", "0")
        r += amo(tn, ty, sz, "swap", "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty), "PSHM_AMO_SWAP",
                 bits(ty, sz, "value"))
    for tn, ty, sz in T.AMO_STD:
        r += amo(tn, ty, sz, "compare_swap", "%s *fetch, %s *dest, %s cond, %s value, int pe" % (ty, ty, ty, ty),
                 "PSHM_AMO_CSWAP", bits(ty, sz, "value"), bits(ty, sz, "cond"))
        r += amo(tn, ty, sz, "fetch_inc", "%s *fetch, %s *dest, int pe" % (ty, ty), "PSHM_AMO_ADD", "1")
        r += amo(tn, ty, sz, "fetch_add", "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty), "PSHM_AMO_ADD",
                 bits(ty, sz, "value"))
    for tn, ty, sz in T.AMO_BIT:
        for op in ("and", "or", "xor"):
            r += amo(tn, ty, sz, "fetch_" + op, "%s *fetch, %s *dest, %s value, int pe" % (ty, ty, ty),
                     "PSHM_AMO_" + op.upper(), bits(ty, sz, "value"))
    return r


FAMILIES = {"rma": rma_routines, "amo": amo_routines, "p2p": p2p_routines,
            "signal": signal_routines, "nbe": nbe_routines}
# Families of extensions: shmemx_ names (pshmemx_ for profiling).
X_FAMILIES = ("nbe",)

DEPRECATED = set()


# The set forms of point-to-point synchronization, by suffix.
P2P_SETS = ["%s_%s%s" % (w, k, v) for w in ("wait_until", "test") for k in ("all", "any", "some")
            for v in ("", "_vector")]


def extension_names():
    """Routines with shmem_ names that the standard lacks: shmem.h leaves
    them out, shmemx.h declares them (and their pshmem_ names)."""
    return set("%s_%s" % (tn, s) for tn, _, _ in T.P2P_SET_EXT for s in P2P_SETS)


def deprecated_names():
    names = set()
    for tn in ("int", "long", "longlong"):
        for s in ("add", "cswap", "fadd", "finc", "inc"):
            names.add("%s_%s" % (tn, s))
    for tn in ("float", "double", "int", "long", "longlong"):
        for s in ("swap", "fetch", "set"):
            names.add("%s_%s" % (tn, s))
    for tn in ("short", "ushort"):
        names.add("%s_wait_until" % tn)
        names.add("%s_test" % tn)
    for tn in ("short", "int", "long", "longlong"):
        names.add("%s_wait" % tn)
    names.add("wait")
    names.add("wait_until")
    return names


# ---------------------------------------------------------------- output

def emit_source(family, out):
    rs = FAMILIES[family]()
    lines = ["/* Generated by gen/gen_api.py from gen/typetables.py: do not edit. */",
             '#include "api.h"', ""]
    if family in X_FAMILIES:
        lines.insert(2, '#include "request.h"')
    px = "shmemx_" if family in X_FAMILIES else "shmem_"
    for name, ret, params, body, pre in rs:
        lines.append("PSHM_API %s p%s%s(%s)\n{\n    %s%s\n}" % (ret, px, name, params, pre + "\n    " if pre else "", body))
        lines.append("#pragma weak %s%s = p%s%s" % (px, name, px, name))
    open(out, "w").write("\n".join(lines) + "\n")


def declarations():
    dep = deprecated_names()
    ext = extension_names()
    out = []
    for fam in ("rma", "amo", "p2p", "signal"):
        out.append("/* %s */" % fam)
        for name, ret, params, body, pre in FAMILIES[fam]():
            if name in ext:
                continue
            d = "PSHM_DEPRECATED " if name in dep else ""
            out.append("%s%s shmem_%s(%s);" % (d, ret, name, params))
    return "\n".join(out)


def pdeclarations():
    ext = extension_names()
    out = []
    for fam in ("rma", "amo", "p2p", "signal"):
        for name, ret, params, body, pre in FAMILIES[fam]():
            if name not in ext:
                out.append("%s pshmem_%s(%s);" % (ret, name, params))
    return "\n".join(out)


def gen_generic(macro, table, fmt, ctx=True, const_too=False, extra=None, px="shmem_"):
    """A C11 generic dispatching on the first argument's type, and on the
    second one's when the first is a context."""
    base = [t for t in T.generic(table)]

    def assoc(prefix, argconst):
        a = []
        for tn, ty, sz in base:
            a.append("%s *: %s%s%s" % (ty, px, prefix, fmt % tn))
            if argconst:
                a.append("const %s *: %s%s%s" % (ty, px, prefix, fmt % tn))
        return a
    plain = assoc("", const_too)
    if ctx:
        inner = assoc("ctx_", const_too)
        inner.append("default: pshm_generic_type_error")
        plain = ["shmem_ctx_t: _Generic(PSHM_ARG1(__VA_ARGS__, 0), %s)" % ", ".join(inner)] + plain
    if extra:
        plain += extra
    plain.append("default: pshm_generic_type_error")
    return "#define %s(...) _Generic(PSHM_ARG0(__VA_ARGS__, 0), %s)(__VA_ARGS__)" % (macro, ", \\\n    ".join(plain))


def generics():
    g = []
    for fam in ("put", "get", "put_nbi", "get_nbi", "iput", "iget", "ibput", "ibget",
                "put_signal", "put_signal_nbi"):
        g.append(gen_generic("shmem_" + fam, T.RMA, "%s_" + fam, const_too=fam.startswith(("get", "iget", "ibget")) and False))
    g.append(gen_generic("shmem_p", T.RMA, "%s_p"))
    g.append(gen_generic("shmem_g", T.RMA, "%s_g", const_too=True))
    for op, tab, cst in (("fetch", T.AMO_EXT, True), ("set", T.AMO_EXT, False), ("swap", T.AMO_EXT, False),
                         ("compare_swap", T.AMO_STD, False), ("fetch_inc", T.AMO_STD, False), ("inc", T.AMO_STD, False),
                         ("fetch_add", T.AMO_STD, False), ("add", T.AMO_STD, False),
                         ("fetch_and", T.AMO_BIT, False), ("and", T.AMO_BIT, False), ("fetch_or", T.AMO_BIT, False),
                         ("or", T.AMO_BIT, False), ("fetch_xor", T.AMO_BIT, False), ("xor", T.AMO_BIT, False)):
        g.append(gen_generic("shmem_atomic_" + op, tab, "%s_atomic_" + op, const_too=cst))
    for op, tab in (("fetch_nbi", T.AMO_EXT), ("swap_nbi", T.AMO_EXT), ("compare_swap_nbi", T.AMO_STD),
                    ("fetch_inc_nbi", T.AMO_STD), ("fetch_add_nbi", T.AMO_STD), ("fetch_and_nbi", T.AMO_BIT),
                    ("fetch_or_nbi", T.AMO_BIT), ("fetch_xor_nbi", T.AMO_BIT)):
        g.append(gen_generic("shmem_atomic_" + op, tab, "%s_atomic_" + op))
    g.append(gen_generic("shmem_test", T.P2P + T.P2P_DEPRECATED, "%s_test", ctx=False))
    for op in P2P_SETS:
        g.append(gen_generic("shmem_" + op, T.P2P, "%s_" + op, ctx=False))
    # Deprecated generics over the deprecated short AMO names.
    ints = [t for t in T.RMA if t[0] in ("int", "long", "longlong")]
    fl = [t for t in T.RMA if t[0] in ("float", "double")] + ints
    for op, tab, cst in (("add", ints, False), ("cswap", ints, False), ("fadd", ints, False),
                         ("finc", ints, False), ("inc", ints, False), ("swap", fl, False),
                         ("fetch", fl, True), ("set", fl, False)):
        g.append(gen_generic("shmem_" + op, tab, "%s_" + op, ctx=False, const_too=cst))
    # shmem_wait_until is also the deprecated long C function: the macro
    # keeps calls type-generic while the symbol stays exported.
    g.append(gen_generic("shmem_wait_until", T.P2P + T.P2P_DEPRECATED, "%s_wait_until", ctx=False))
    return "\n\n".join(g)


def x_declarations():
    out = []
    for fam in X_FAMILIES:
        for name, ret, params, body, pre in FAMILIES[fam]():
            out.append("%s shmemx_%s(%s);" % (ret, name, params))
            out.append("%s pshmemx_%s(%s);" % (ret, name, params))
    ext = extension_names()
    out.append("/* short and unsigned short sets: shmem_ names, as the types' other\n"
               " * point-to-point routines have, so only the declarations are extra. */")
    for name, ret, params, body, pre in p2p_routines():
        if name in ext:
            out.append("%s shmem_%s(%s);" % (ret, name, params))
            out.append("%s pshmem_%s(%s);" % (ret, name, params))
    return "\n".join(out)


def x_generics():
    g = []
    # The set generics of shmem.h again, with short and unsigned short:
    # a program that includes shmemx.h opts into the extension.
    for op in P2P_SETS:
        g.append("#undef shmem_%s\n%s" % (op, gen_generic("shmem_" + op, T.P2P + T.P2P_SET_EXT, "%s_" + op,
                                                            ctx=False)))
    for fam in ("put_nbe", "get_nbe"):
        g.append(gen_generic("shmemx_" + fam, T.RMA, "%s_" + fam, px="shmemx_"))
    for op, tab in (("fetch_nbe", T.AMO_EXT), ("swap_nbe", T.AMO_EXT), ("compare_swap_nbe", T.AMO_STD),
                    ("fetch_inc_nbe", T.AMO_STD), ("fetch_add_nbe", T.AMO_STD), ("fetch_and_nbe", T.AMO_BIT),
                    ("fetch_or_nbe", T.AMO_BIT), ("fetch_xor_nbe", T.AMO_BIT)):
        g.append(gen_generic("shmemx_atomic_" + op, tab, "%s_atomic_" + op, px="shmemx_"))
    return "\n\n".join(g)


def emit_xheader(template, out):
    text = open(template).read()
    text = text.replace("@SHMEMX_TYPED_DECLARATIONS@", x_declarations())
    text = text.replace("@SHMEMX_GENERICS@", x_generics())
    open(out, "w").write(text)


def collectives():
    """Declarations and generics of the teams and collectives, from
    gen/gen_coll.py (which also generates their sources)."""
    try:
        import gen_coll
    except ImportError:
        return "", "", ""
    return gen_coll.declarations(), gen_coll.generics(), gen_coll.pdeclarations()


def emit_header(template, out, version):
    text = open(template).read().replace("@VERSION@", version)
    cdecl, cgen, _ = collectives()
    text = text.replace("@SHMEM_COLLECTIVE_DECLARATIONS@", cdecl)
    text = text.replace("@SHMEM_COLLECTIVE_GENERICS@", cgen)
    text = text.replace("@SHMEM_TYPED_DECLARATIONS@", declarations())
    text = text.replace("@SHMEM_GENERICS@", generics())
    open(out, "w").write(text)


def emit_pheader(template, out):
    text = open(template).read()
    text = text.replace("@PSHMEM_TYPED_DECLARATIONS@", pdeclarations())
    text = text.replace("@PSHMEM_COLLECTIVE_DECLARATIONS@", collectives()[2])
    open(out, "w").write(text)


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "header":
        emit_header(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "pheader":
        emit_pheader(sys.argv[2], sys.argv[3])
    elif what == "xheader":
        emit_xheader(sys.argv[2], sys.argv[3])
    elif what == "source":
        emit_source(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: gen_api.py header|pheader|source ...")
