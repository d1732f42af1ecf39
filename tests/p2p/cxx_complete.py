#!/usr/bin/env python3
"""Every routine the headers declare for C is declared for C++ too, with C
linkage, so a C++ program can call and link it.

  cxx_complete.py --cc CC --cxx CXX --lib LIBPLUGSHMEM.so --functions TSV -I DIR ...

1. shmem.h, shmemx.h and pshmem.h are preprocessed as C11 and as C++: the
   routine names declared in the C output and missing from the C++ output
   are failures (the complex reductions used to be such names).
2. The headers compile as C++ inside extern "C" { } (old code does that).
3. A C++ program takes the address of every shmem_ function of the
   OpenSHMEM 1.6 function list (TSV: family, name, since, status) and of
   its pshmem_ alias, and is linked against the library: an undeclared
   name fails to compile, a name declared without extern "C" fails to link.
   The list is tests/data/openshmem-1.6-functions.tsv; without it the test
   fails rather than falling back to the headers' own names, which would
   only check the headers against themselves.  The complex routines
   are overloaded in C++ (GCC, Clang), so their address is taken through
   the std::complex signature, as a program must.
4. A C++ program calls every routine with a complex parameter (shmem_ and
   pshmem_) with std::complex pointers and, where the compiler has C99
   complex types in C++ (GCC, Clang), with float/double _Complex pointers,
   and is linked against the library.
Prints one line per check; exits 1 if any failed, 77 without a C++ compiler.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HEADERS = "#include <shmem.h>\n#include <shmemx.h>\n#include <pshmem.h>\n"
# Names of the API: shmem_, pshmem_, shmemx_ and the old unprefixed ones.
API = re.compile(r"\b((?:p?shmemx?_\w+)|start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc"
                 r"|shmemalign)\s*\(")


def declared(compiler, flags, incs, suffix):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t" + suffix)
        with open(path, "w") as f:
            f.write(HEADERS)
        cmd = [compiler] + flags + ["-I" + i for i in incs] + ["-E", "-P", path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit("FAIL preprocessing as %s: %s\n%s" % (suffix, " ".join(cmd), p.stderr))
        return set(m.group(1) for m in API.finditer(p.stdout)), p.stdout


# A C-linkage declaration with a complex parameter, as the C++ preprocessor
# output has it (one line; the inline overloads start with "inline").
COMPLEX_DECL = re.compile(r"^\s*(int|void)\s+(p?shmem_\w+)\(([^;{}()]*\bpshm_complex[fd]\b[^;{}()]*)\);", re.M)


def complex_decls(text):
    return [m.groups() for m in COMPLEX_DECL.finditer(text)]


def complex_calls(decls, c99):
    """Calls of every complex routine with std::complex (c99 False) or C99
    complex (c99 True) pointers; the other arguments are placeholders."""
    calls = []
    for ret, name, params in decls:
        args = []
        for p in params.split(","):
            if "pshm_complexf" in p:
                args.append("xf" if c99 else "sf")
            elif "pshm_complexd" in p:
                args.append("xd" if c99 else "sd")
            elif "shmem_team_t" in p:
                args.append("SHMEM_TEAM_WORLD")
            elif "long *" in p or "long*" in p:
                args.append("ps")
            else:
                args.append("0")
        calls.append("    %s(%s);" % (name, ", ".join(args)))
    return calls


def tsv_names(path):
    names = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        names.append(line.split("\t")[1].strip())
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--cxx")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--functions", required=True)
    ap.add_argument("-I", dest="incs", action="append", default=[])
    a = ap.parse_args()
    if not a.cxx:
        print("SKIP: no C++ compiler")
        return 77
    fails = 0
    c, _ = declared(a.cc, ["-std=c11"], a.incs, ".c")
    cxx, cxx_text = declared(a.cxx, ["-std=c++11"], a.incs, ".cpp")
    cdecls = complex_decls(cxx_text)
    overloaded = dict((name, (ret, params)) for ret, name, params in cdecls)
    missing = sorted(c - cxx)
    for n in missing:
        print("FAIL declared for C, not for C++: %s" % n)
    fails += len(missing)
    if not missing:
        print("ok: all %d routine names declared for C are declared for C++" % len(c))

    # Old C++ code includes C headers inside extern "C" { }: shmem.h's own
    # C++ includes (<complex>) must survive that.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "externc.cpp")
        with open(path, "w") as f:
            f.write('extern "C" {\n' + HEADERS + '}\nint main() { return 0; }\n')
        cmd = [a.cxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"] + \
            ["-I" + i for i in a.incs] + [path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        fails += 1
        print("FAIL the headers do not compile inside extern \"C\" { }:\n%s" % p.stdout[:2000])
    else:
        print("ok: the headers compile inside extern \"C\" { }")

    if not os.path.exists(a.functions):
        print("FAIL no OpenSHMEM 1.6 function list at %s" % a.functions)
        return 1
    names = tsv_names(a.functions)
    if len(names) < 1000:
        print("FAIL the function list %s holds %d names: cut short?" % (a.functions, len(names)))
        return 1
    origin = "the OpenSHMEM 1.6 function list (%s)" % a.functions
    aliases = ["p" + n for n in names if n.startswith("shmem_")]
    body = ["typedef void (*any_fn)(void);", "extern const any_fn every[];", "const any_fn every[] = {"]
    for n in names + aliases:
        if n in overloaded:
            fn = "static_cast<%s (*)(%s)>(&%s)" % (overloaded[n][0], overloaded[n][1], n)
        else:
            fn = "&" + n
        body.append("    reinterpret_cast<any_fn>(%s)," % fn)
    body += ["};", "int main() { return every[0] == nullptr; }"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "every.cpp")
        with open(path, "w") as f:
            f.write(HEADERS + "\n".join(body) + "\n")
        cmd = [a.cxx, "-std=c++11", "-Wall", "-Wno-deprecated-declarations"] + \
            ["-I" + i for i in a.incs] + [path, a.lib, "-o", os.path.join(d, "every")]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        bad = sorted(set(x or y for x, y in re.findall(r"[\u2018'](\w+)[\u2019'] was not declared|"
                                 r"undefined reference to [`\u2018'](\w+)", p.stdout)))
        for n in bad:
            print("FAIL not callable from C++: %s" % n)
        if not bad:
            print("FAIL the C++ program taking every address does not build:\n%s" % p.stdout[:4000])
        fails += 1
    else:
        print("ok: a C++ program takes the address of all %d functions of %s and their "
              "%d pshmem_ aliases, and links" % (len(names), origin, len(aliases)))

    # 4. Every complex routine called both ways.
    c99 = "pshm_c99_complexf" in cxx_text
    if not cdecls:
        fails += 1
        print("FAIL no complex routine found in the C++ preprocessor output")
    body = ["static void calls()", "{", "    static long ps[SHMEM_REDUCE_SYNC_SIZE];",
            "    static std::complex<float> sf[4];", "    static std::complex<double> sd[4];"]
    body += complex_calls(cdecls, False)
    if c99:
        body += ["    __extension__ static float _Complex xf[4];", "    __extension__ static double _Complex xd[4];"]
        body += complex_calls(cdecls, True)
    body += ["}", "int main(int argc, char **) { if (argc > 1000) calls(); return 0; }"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "calls.cpp")
        with open(path, "w") as f:
            f.write(HEADERS + "#include <complex>\n" + "\n".join(body) + "\n")
        cmd = [a.cxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-Wno-deprecated-declarations"] + \
            ["-I" + i for i in a.incs] + [path, a.lib, "-o", os.path.join(d, "calls")]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        fails += 1
        print("FAIL the C++ program calling the complex routines does not build:\n%s" % p.stdout[:4000])
    else:
        print("ok: a C++ program calls all %d complex routines with std::complex pointers%s, and links"
              % (len(cdecls), " and with float/double _Complex pointers" if c99 else
                 " (this compiler has no C99 complex types in C++)"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
