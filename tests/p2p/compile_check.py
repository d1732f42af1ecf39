#!/usr/bin/env python3
"""Compile-time checks of the public headers and the C11 generics.

  compile_check.py MODE --cc CC [--cxx CXX] --gen GEN_DIR -I DIR [-I DIR ...]

MODE:
  headers-c          shmem.h, shmemx.h and pshmem.h compile as C11 with
                     -Wall -Wextra -Werror -pedantic
  headers-cxx        ... and as C++11 and C++17 with -Wall -Wextra -Werror
  generics-right     every generic with every type of its table (typedef
                     names such as int32_t too) compiles with -Werror
  generics-wrong     a generic call with a wrong type fails to compile (and
                     the right-typed control compiles)
  generics-deprecated  the deprecated generics shmem_add, shmem_fadd, ...
Prints one line per failed check and exits 1 if any failed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_src(compiler, flags, src, suffix, incs):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t" + suffix)
        with open(path, "w") as f:
            f.write(src)
        cmd = compiler + flags + ["-I" + i for i in incs] + ["-fsyntax-only", path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout, " ".join(cmd)


HEADERS = "#include <shmem.h>\n#include <shmemx.h>\n#include <pshmem.h>\n"
C_FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]
CXX_FLAGS = ["-Wall", "-Wextra", "-Werror"]
# Expands generics too, so -pedantic sees what a program's calls produce.
USES_C = """
int main(void)
{
    static long x[4];
    static uint64_t sig;
    long y[4] = {0};
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    shmem_put(x, y, 4, 0);
    shmem_put(c, x, y, 4, 0);
    shmem_atomic_add(x, 1, 0);
    shmem_atomic_add(c, x, 1, 0);
    (void)shmem_atomic_fetch(c, x, 0);
    shmem_put_signal(x, y, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_signal_add(c, &sig, 1, 0);
    shmem_signal_set(&sig, 1, 0);
    shmem_wait_until(x, SHMEM_CMP_EQ, 0);
    (void)shmem_test_any(x, 4, NULL, SHMEM_CMP_EQ, 0);
    return 0;
}
"""

WRONG = [
    ("double array to shmem_atomic_add", "double d[4]; shmem_atomic_add(d, 1, 0);"),
    ("long dest, float source to shmem_put", "long *p = 0; float *f = 0; shmem_put(p, f, 1, 0);"),
    ("int dest, long source to shmem_get", "int *p = 0; long *l = 0; shmem_get(p, l, 1, 0);"),
    ("float to shmem_atomic_and", "static float f; shmem_atomic_and(&f, 1, 0);"),
    ("double to shmem_atomic_inc", "static double d; shmem_atomic_inc(&d, 0);"),
    ("long double to shmem_atomic_fetch", "static long double x; (void)shmem_atomic_fetch(&x, 0);"),
    ("char to shmem_atomic_set", "static char c; shmem_atomic_set(&c, 1, 0);"),
    ("struct to shmem_put", "static struct { int a; } x; shmem_put(&x, &x, 1, 0);"),
    ("ctx and a double to shmem_atomic_add",
     "shmem_ctx_t c = SHMEM_CTX_DEFAULT; static double d; shmem_atomic_add(c, &d, 1.0, 0);"),
    ("ctx and a float to shmem_atomic_fetch_xor",
     "shmem_ctx_t c = SHMEM_CTX_DEFAULT; static float d; (void)shmem_atomic_fetch_xor(c, &d, 1, 0);"),
    ("short to shmem_wait_until_all", "static short s; shmem_wait_until_all(&s, 1, 0, SHMEM_CMP_EQ, 0);"),
    ("float to shmem_test", "static float s; (void)shmem_test(&s, SHMEM_CMP_EQ, 0);"),
    ("int dest, char source to shmem_put_signal",
     "static int d[2]; char s[8] = {0}; static uint64_t sig; shmem_put_signal(d, s, 2, &sig, 1, SHMEM_SIGNAL_SET, 0);"),
]
CONTROL = ("long d[4]; shmem_atomic_add(d, 1, 0); long *p = 0, *q = 0; shmem_put(p, q, 1, 0); "
           "static uint64_t sig; shmem_put_signal(p, q, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);")


def fn(body):
    return "#include <shmem.h>\nvoid f(void);\nvoid f(void)\n{\n    " + body + "\n}\n"


def report_lines(out, src, what):
    """Maps the compiler's error lines back to the CHECK comments."""
    lines = src.split("\n")
    bad = []
    for m in re.finditer(r"t\.c:(\d+):\d+: error", out):
        n = int(m.group(1))
        if 0 < n <= len(lines):
            c = re.search(r"CHECK (.*) \*/", lines[n - 1])
            tag = c.group(1) if c else lines[n - 1].strip()
            if tag not in bad:
                bad.append(tag)
    for b in bad:
        print("FAIL %s: does not compile: %s" % (what, b))
    if not bad:
        print("FAIL %s: does not compile:\n%s" % (what, out[:4000]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("--cc", required=True)
    ap.add_argument("--cxx")
    ap.add_argument("--gen", required=True)
    ap.add_argument("-I", dest="incs", action="append", default=[])
    a = ap.parse_args()
    cc = [a.cc]
    fails = 0
    if a.mode == "headers-c":
        for std in ("-std=c11", "-std=c17"):
            flags = [std] + C_FLAGS[1:]
            rc, out, cmd = compile_src(cc, flags, HEADERS + USES_C, ".c", a.incs)
            if rc:
                fails += 1
                print("FAIL headers as C (%s):\n%s\n%s" % (" ".join(flags), cmd, out))
            else:
                print("ok: shmem.h shmemx.h pshmem.h compile with %s" % " ".join(flags))
    elif a.mode == "headers-cxx":
        if not a.cxx:
            print("SKIP: no C++ compiler")
            return 77
        # -pedantic and the deprecation warnings: the C99 complex overloads
        # of GCC and Clang must stay quiet under both.
        for std in ("-std=c++11", "-std=c++17", "-std=c++17 -pedantic -DSHMEM_WARN_DEPRECATED"):
            flags = std.split() + CXX_FLAGS
            src = HEADERS + "int main() { shmem_ctx_t c = SHMEM_CTX_DEFAULT; (void)c; return 0; }\n"
            rc, out, cmd = compile_src([a.cxx], flags, src, ".cpp", a.incs)
            if rc:
                fails += 1
                print("FAIL headers as C++ (%s):\n%s\n%s" % (" ".join(flags), cmd, out))
            else:
                print("ok: shmem.h shmemx.h pshmem.h compile with %s" % " ".join(flags))
    elif a.mode in ("generics-right", "generics-deprecated"):
        gen = os.path.join(HERE, "gen_generics.py")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "u.c")
            subprocess.run([sys.executable, gen, a.gen, "right" if a.mode == "generics-right" else "deprecated", path], check=True)
            src = open(path).read()
        flags = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
        rc, out, cmd = compile_src(cc, flags, src, ".c", a.incs)
        n = src.count("/* CHECK")
        if rc:
            fails += 1
            report_lines(out, src, a.mode)
        else:
            print("ok: %d generic calls compile (%s)" % (n, a.mode))
    elif a.mode == "generics-wrong":
        flags = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
        rc, out, cmd = compile_src(cc, flags, fn(CONTROL), ".c", a.incs)
        if rc:
            fails += 1
            print("FAIL right-typed control does not compile:\n%s\n%s" % (cmd, out))
        for what, body in WRONG:
            rc, out, cmd = compile_src(cc, flags, fn(body), ".c", a.incs)
            if rc == 0:
                fails += 1
                print("FAIL %s compiles, but a generic call with a wrong type must not: %s" % (what, body))
            else:
                print("ok: rejected: %s" % what)
    else:
        sys.exit("unknown mode " + a.mode)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
