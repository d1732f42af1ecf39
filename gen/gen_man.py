#!/usr/bin/env python3
"""Section 3 man pages of the API, one per routine family, from the same
routine lists the header is generated from (gen/gen_api.py, gen/gen_coll.py
over gen/typetables.py; the hand-written routines from include/shmem.h.in).

  gen_man.py list  TEMPLATE                  "page NAME" and "link NAME PAGE" lines
  gen_man.py pages TEMPLATE VERSION OUTDIR   writes OUTDIR/NAME.3 for every page

A page is named after its family's generic name (shmem_put, shmem_atomic_add,
shmem_sum_reduce, ...); every other routine of the family is a link to it.
The prose is in gen/man_text.py.  A routine no family claims, or a family
without prose, stops the generation with its name.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_api  # noqa: E402
import gen_coll  # noqa: E402
import man_text  # noqa: E402
import typetables as T  # noqa: E402

TYPENAMES = sorted([t[0] for t in T.RMA + T.COMPLEX], key=len, reverse=True)
# Deprecated short AMO names (shmem_int_fadd, ...) -> the current family.
OLD_AMO = {"add": "atomic_add", "cswap": "atomic_compare_swap", "fadd": "atomic_fetch_add",
           "finc": "atomic_fetch_inc", "inc": "atomic_inc", "swap": "atomic_swap",
           "fetch": "atomic_fetch", "set": "atomic_set"}
# Routines whose family is not their own name with the type, size, ctx_ and
# mem parts taken off.
OWN_PAGE = {
    "shmem_ctx_destroy": "ctx_create", "shmem_ctx_session_stop": "ctx_session_start",
    "shmem_query_thread": "init_thread", "start_pes": "init", "_my_pe": "my_pe",
    "_num_pes": "n_pes", "shmem_free": "malloc", "shmem_realloc": "malloc", "shmem_align": "malloc",
    "shmalloc": "malloc", "shfree": "malloc", "shrealloc": "malloc", "shmemalign": "malloc",
    "shmem_clear_lock": "set_lock", "shmem_test_lock": "set_lock", "shmem_team_sync": "sync",
    "shmem_barrier": "barrier_all", "shmem_wait": "wait_until",
    "shmem_ctx_create": "ctx_create", "shmem_ctx_get_team": "ctx_get_team",
    "shmem_ctx_session_start": "ctx_session_start",
}
SIZED = re.compile(r"^(put|get|iput|iget|ibput|ibget|broadcast|collect|fcollect|alltoalls?)"
                   r"(?:8|16|32|64|128|mem)(?=_|$)")
DECL = re.compile(r"^((?:PSHM_\w+ )*)([A-Za-z_][\w ]*?[\s*]+)(\w+)\(([^;]*?)\);", re.M | re.S)


def family(name):
    if name in OWN_PAGE:
        return OWN_PAGE[name]
    core = name[len("shmem_"):]
    if core.startswith("ctx_"):
        core = core[4:]
    typed = False
    for tn in TYPENAMES:
        if core.startswith(tn + "_"):
            core, typed = core[len(tn) + 1:], True
            break
    core = SIZED.sub(r"\1", core)
    if typed and core in OLD_AMO:
        core = OLD_AMO[core]
    if core == "wait":
        core = "wait_until"
    if core.startswith("atomic_") and core.endswith("_nbi"):
        core = core[:-4]
    return core


def routines(template):
    """(name, return type, parameters, deprecated) of every routine of shmem.h."""
    out = []
    dep = gen_api.deprecated_names()
    for fam in ("rma", "amo", "p2p", "signal"):
        for name, ret, params, _, _ in gen_api.FAMILIES[fam]():
            out.append(("shmem_" + name, ret, params, name in dep))
    for name, ret, params, _, d, _ in gen_coll.team_routines() + gen_coll.coll_routines():
        out.append(("shmem_" + name, ret, params, d))
    text = open(template).read()
    text = text[:text.index("/* ---- C11 type-generic")]
    for m in DECL.finditer(text):
        attrs, ret, name, params = m.groups()
        if "@" in name or not re.match(r"shmem_|start_pes|_my_pe|_num_pes|sh", name):
            continue
        ret = " ".join(ret.split())
        if ret.endswith("*"):
            ret = ret[:-1].rstrip() + " *"
        out.append((name, ret, " ".join(params.split()), "PSHM_DEPRECATED" in attrs))
    return out


def generic_names():
    text = gen_api.generics() + gen_coll.generics()
    return set(re.findall(r"#define (shmem_\w+)\(", text))


def pages(template):
    """page core -> list of routines, in declaration order."""
    out = {}
    for r in routines(template):
        core = family(r[0])
        if core not in man_text.PAGES:
            sys.exit("gen_man.py: %s belongs to family '%s', which has no text in gen/man_text.py"
                     % (r[0], core))
        out.setdefault(core, []).append(r)
    missing = sorted(set(man_text.PAGES) - set(out))
    if missing:
        sys.exit("gen_man.py: text for families without routines: %s" % ", ".join(missing))
    return out


def page_name(core):
    return "shmem_" + core


def roff_escape(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return s


def decl(r):
    name, ret, params, _ = r
    sep = "" if ret.endswith("*") else " "
    return roff_escape("%s%s%s(%s);" % (ret, sep, name, params))


CTYPE = dict((t[0], t[1]) for t in T.RMA + T.COMPLEX)


def typed(name):
    """(TYPENAME, C type) of a typed routine (shmem_long_put: long), else None."""
    base = name.replace("shmem_ctx_", "shmem_", 1)
    for tn in TYPENAMES:
        if base.startswith("shmem_%s_" % tn):
            return tn, CTYPE[tn]
    return None


def generic_decls(rs):
    """The C11 generic forms of a family, each from its first typed routine
    with the C type written TYPE: (generic names, declarations)."""
    known = generic_names()
    forms, names = {}, []
    for name, ret, params, dep in rs:
        t = typed(name)
        # A type that other parameters also have (int pe, size_t nelems,
        # long *pSync) would be ambiguous as TYPE.
        if dep or not t or t[1] in ("int", "long", "size_t"):
            continue
        ctx = name.startswith("shmem_ctx_")
        gname = "shmem_" + name.replace("shmem_ctx_", "shmem_", 1)[len("shmem_%s_" % t[0]):]
        if gname not in known or (gname, ctx) in forms:
            continue

        def sub(s):
            return re.sub(r"(?<!\w)%s(?!\w)" % re.escape(t[1]), "TYPE", s)
        r2 = sub(ret)
        forms[(gname, ctx)] = "%s%s%s(%s);" % (r2, "" if r2.endswith("*") else " ", gname, sub(params))
        if gname not in names:
            names.append(gname)
    out = []
    for g in names:
        out += [roff_escape(forms[k]) for k in ((g, False), (g, True)) if k in forms]
    return names, out


def see_also(core):
    """Up to 8 pages of the same group, those sharing a word of the name
    first (shmem_sum_reduce: the other reductions)."""
    group = man_text.PAGES[core][3]
    words = set(core.split("_")) - {"shmem", "atomic"}
    others = [c for c, v in man_text.PAGES.items() if v[3] == group and c != core]
    others.sort(key=lambda c: -len(words & set(c.split("_"))))
    return others[:8]


def render(core, rs, version):
    summary, desc, ret, _ = man_text.PAGES[core]
    name = page_name(core)
    ext = set("shmem_" + n for n in gen_api.extension_names())
    current = [r for r in rs if not r[3] and r[0] not in ext]
    xs = [r for r in rs if r[0] in ext]
    old = [r for r in rs if r[3]]
    gnames, gen = generic_decls(rs)
    names = [name] + [n for n in gnames + [n for n, _, _, _ in current if not typed(n)] if n != name]
    names = list(dict.fromkeys(names))
    L = ['.\\" Generated by gen/gen_man.py from gen/man_text.py and the API tables: do not edit.',
         '.TH %s 3 "" "PlugSHMEM %s" "OpenSHMEM 1.6"' % (name.upper().replace("_", "\\_"), version),
         ".nh", ".ad l", ".SH NAME", roff_escape(", ".join(names)) + " \\- " + summary,
         ".SH SYNOPSIS", ".nf", "#include <shmem.h>"]
    if gen:
        L += ["", "C11 generic (C only):"] + [x for g in gen for x in wrap(g)]
    if current:
        L += ["", "C and C++:"] + [x for r in current for x in wrap(decl(r))]
    if xs:
        L += ["", "PlugSHMEM extension (#include <shmemx.h>):"] + [x for r in xs for x in wrap(decl(r))]
    if old:
        L += ["", "Deprecated:"] + [x for r in old for x in wrap(decl(r))]
    L += [".fi"]
    if any("_Complex" in r[2] for r in rs):
        L += [".PP", "In C++ the complex types are \\fBstd::complex<float>\\fR and "
              "\\fBstd::complex<double>\\fR, which have the same layout; with GCC and Clang, "
              "inline overloads take \\fBfloat _Complex\\fR and \\fBdouble _Complex\\fR "
              "pointers too."]
    if xs:
        L += [".PP", "The forms for \\fBshort\\fR and \\fBunsigned short\\fR are a PlugSHMEM "
              "extension: \\fB<shmemx.h>\\fR declares them and adds the two types to the C11 "
              "generic."]
    if gen:
        L += [".PP", "TYPE is any C type of the typed forms above."]
    L += [".SH DESCRIPTION"]
    L += paras(desc or "Returns %s." % summary)
    L += [".SH RETURN VALUES"] + paras(ret)
    notes = []
    if any(r[0].startswith("shmem_ctx_") and r[0] not in OWN_PAGE for r in rs):
        notes.append("The \\fBshmem_ctx_\\fR forms act on the context \\fIctx\\fR (see "
                     "\\fBshmem_ctx_create\\fR(3)), the others on \\fBSHMEM_CTX_DEFAULT\\fR.")
    if old:
        notes.append("The deprecated names remain for old programs; they warn when compiled with "
                     "\\fB\\-DSHMEM_WARN_DEPRECATED\\fR.")
    notes.append("Each \\fBshmem_\\fR routine also exists as \\fBpshmem_\\fR... (e.g. \\fBp%s\\fR) "
                 "for profiling tools (\\fB<pshmem.h>\\fR)." % roff_escape(rs[0][0]))
    L += [".SH NOTES"]
    for i, n in enumerate(notes):
        L += ([".PP"] if i else []) + paras(n)
    also = ["\\fB%s\\fR(3)" % roff_escape(page_name(c)) for c in see_also(core)]
    also.append("\\fBoshcc\\fR(1), \\fBoshrun\\fR(1), \\fBshmem_info\\fR(1)")
    L += [".SH SEE ALSO", ",\n".join(also)]
    return "\n".join(L) + "\n"


def wrap(d, width=72):
    """A declaration indented by 4, broken after "(" or a comma to fit an
    80-column terminal (man indents by 7); continuation lines by 8."""
    out, line = [], "    "
    for part in re.split(r"(?<=, )|(?<=\()", d):
        if len(line) + len(part) > width and line.strip():
            out.append(line.rstrip())
            line = "        "
        line += part
    out.append(line.rstrip())
    return out


def paras(text):
    out = []
    for i, p in enumerate(text.strip().split("\n\n")):
        if i:
            out.append(".PP")
        out += [line for line in p.strip().split("\n")]
    return out


def main():
    what = sys.argv[1]
    ps = pages(sys.argv[2])
    if what == "list":
        for core in sorted(ps):
            print("page " + page_name(core))
        for core in sorted(ps):
            for r in ps[core]:
                if r[0] != page_name(core):
                    print("link %s %s" % (r[0], page_name(core)))
    elif what == "pages":
        version, outdir = sys.argv[3], sys.argv[4]
        for core, rs in ps.items():
            with open(os.path.join(outdir, page_name(core) + ".3"), "w") as f:
                f.write(render(core, rs, version))
    else:
        sys.exit("usage: gen_man.py list|pages TEMPLATE [VERSION OUTDIR]")


if __name__ == "__main__":
    main()
