#!/usr/bin/env python3
"""Every routine the headers declare for C is declared for C++ too, with C
linkage, so a C++ program can call and link it.

  cxx_complete.py --cc CC --cxx CXX --lib LIBPLUGSHMEM.so [--functions TSV] -I DIR ...

1. shmem.h, shmemx.h and pshmem.h are preprocessed as C11 and as C++: the
   routine names declared in the C output and missing from the C++ output
   are failures (the complex reductions used to be such names).
2. The headers compile as C++ inside extern "C" { } (old code does that).
3. A C++ program takes the address of every shmem_ function of the
   OpenSHMEM 1.6 function list (TSV: family, name, since, status) and of
   its pshmem_ alias, and is linked against the library: an undeclared
   name fails to compile, a name declared without extern "C" fails to link.
   Without the list (../shared/api/openshmem-1.6-functions.tsv is beside
   the repository), the names of step 1 are used.
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
        return set(m.group(1) for m in API.finditer(p.stdout))


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
    ap.add_argument("--functions")
    ap.add_argument("-I", dest="incs", action="append", default=[])
    a = ap.parse_args()
    if not a.cxx:
        print("SKIP: no C++ compiler")
        return 77
    fails = 0
    c = declared(a.cc, ["-std=c11"], a.incs, ".c")
    cxx = declared(a.cxx, ["-std=c++11"], a.incs, ".cpp")
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

    if a.functions and os.path.exists(a.functions):
        names = tsv_names(a.functions)
        origin = "the OpenSHMEM 1.6 function list (%s)" % a.functions
    else:
        names = sorted(n for n in c if n.startswith("shmem_"))
        origin = "shmem.h as C (no function list at %s)" % a.functions
    aliases = ["p" + n for n in names if n.startswith("shmem_")]
    body = ["typedef void (*any_fn)(void);", "extern const any_fn every[];", "const any_fn every[] = {"]
    body += ["    reinterpret_cast<any_fn>(&%s)," % n for n in names + aliases]
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
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
