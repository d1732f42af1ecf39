#!/usr/bin/env python3
"""Compile-time checks of the public headers and the C11 generics.

  compile_check.py MODE --cc CC [--cxx CXX] --gen GEN_DIR -I DIR [-I DIR ...]

MODE:
  headers-c          shmem.h, shmemx.h and pshmem.h compile as C11 with
                     -Wall -Wextra -Werror -pedantic
  headers-cxx        ... and as C++11 and C++17 with -Wall -Wextra -Werror
  generics-right     every generic with every type of its table (typedef
                     names such as int32_t too) compiles with -Werror
  generics-wrong     a generic call with a wrong type fails to compile,
                     naming pshm_generic_type_error where no association
                     takes the type; the right-typed controls compile; every
                     _Generic of shmem.h and shmemx.h has a default:
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

# (what, body, named): a call the generics must reject.  named: the
# generic has no association for the argument's type, so its default
# must pick pshm_generic_type_error and the compiler must say that name;
# otherwise the routine chosen has a mismatched parameter (-Werror).
# Bodies that name shmemx_ or need the extension include shmemx.h.
TYPE_ERROR = "pshm_generic_type_error"
WRONG = [
    ("double array to shmem_atomic_add", "double d[4]; shmem_atomic_add(d, 1, 0);", True),
    ("long dest, float source to shmem_put", "long *p = 0; float *f = 0; shmem_put(p, f, 1, 0);", False),
    ("int dest, long source to shmem_get", "int *p = 0; long *l = 0; shmem_get(p, l, 1, 0);", False),
    ("float to shmem_atomic_and", "static float f; shmem_atomic_and(&f, 1, 0);", True),
    ("double to shmem_atomic_inc", "static double d; shmem_atomic_inc(&d, 0);", True),
    ("long double to shmem_atomic_fetch", "static long double x; (void)shmem_atomic_fetch(&x, 0);", True),
    ("char to shmem_atomic_set", "static char c; shmem_atomic_set(&c, 1, 0);", True),
    ("struct to shmem_put", "static struct { int a; } x; shmem_put(&x, &x, 1, 0);", True),
    ("ctx and a double to shmem_atomic_add",
     "shmem_ctx_t c = SHMEM_CTX_DEFAULT; static double d; shmem_atomic_add(c, &d, 1.0, 0);", True),
    ("ctx and a float to shmem_atomic_fetch_xor",
     "shmem_ctx_t c = SHMEM_CTX_DEFAULT; static float d; (void)shmem_atomic_fetch_xor(c, &d, 1, 0);", True),
    ("short to shmem_wait_until_all without shmemx.h",
     "static short s; shmem_wait_until_all(&s, 1, 0, SHMEM_CMP_EQ, 0);", True),
    ("float to shmem_wait_until_all with shmemx.h",
     "#include <shmemx.h>\nstatic float s; shmem_wait_until_all(&s, 1, 0, SHMEM_CMP_EQ, 0);", True),
    ("char to shmem_test_some_vector with shmemx.h",
     "#include <shmemx.h>\nstatic char s[1]; size_t i; const char v[1] = {0};"
     " (void)shmem_test_some_vector(s, 1, &i, 0, SHMEM_CMP_EQ, v);", True),
    ("float to shmem_test", "static float s; (void)shmem_test(&s, SHMEM_CMP_EQ, 0);", True),
    ("double to shmem_wait_until", "static double s; shmem_wait_until(&s, SHMEM_CMP_EQ, 0);", True),
    ("int dest, char source to shmem_put_signal",
     "static int d[2]; char s[8] = {0}; static uint64_t sig; shmem_put_signal(d, s, 2, &sig, 1, SHMEM_SIGNAL_SET, 0);",
     False),
    ("struct to shmem_sum_reduce",
     "static struct { int a; } d, s; (void)shmem_sum_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);", True),
    ("float to shmem_and_reduce",
     "static float d, s; (void)shmem_and_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);", True),
    ("float _Complex to shmem_max_reduce",
     "static float _Complex d, s; (void)shmem_max_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);", True),
    ("void * to shmem_broadcast",
     "static char b[8]; void *d = b; (void)shmem_broadcast(SHMEM_TEAM_WORLD, d, b, 1, 0);", True),
    ("int dest, long source to shmem_sum_reduce",
     "static int d; static long s; (void)shmem_sum_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);", False),
    ("struct to shmemx_put_nbe",
     "#include <shmemx.h>\nstatic struct { int a; } x; shmemx_request_h r = SHMEMX_REQUEST_NULL;"
     " shmemx_put_nbe(&x, &x, 1, 0, &r);", True),
    ("ctx and a float to shmemx_atomic_fetch_and_nbe",
     "#include <shmemx.h>\nstatic float x, y; shmemx_request_h r = SHMEMX_REQUEST_NULL;"
     " shmemx_atomic_fetch_and_nbe(SHMEM_CTX_DEFAULT, &y, &x, 1.0f, 0, &r);", True),
]
CONTROL = ("long d[4]; shmem_atomic_add(d, 1, 0); long *p = 0, *q = 0; shmem_put(p, q, 1, 0); "
           "static uint64_t sig; shmem_put_signal(p, q, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);")
# The extension: short and unsigned short sets compile with shmemx.h.
CONTROL_X = ("#include <shmemx.h>\nstatic short s[2]; static unsigned short u[2]; size_t i[2];"
             " shmem_wait_until_all(s, 2, 0, SHMEM_CMP_EQ, 0);"
             " (void)shmem_test_some(u, 2, i, 0, SHMEM_CMP_EQ, 0);")


def fn(body):
    """A function around body; its leading #include lines go before it."""
    inc = "".join(line + "\n" for line in body.split("\n") if line.startswith("#include"))
    body = "\n".join(line for line in body.split("\n") if not line.startswith("#include"))
    return "#include <shmem.h>\n" + inc + "void f(void);\nvoid f(void)\n{\n    " + body + "\n}\n"


def generics_without_default(text):
    """The macros of a header with a _Generic that has no default:
    association (each selection's parentheses are matched)."""
    bad = []
    for m in re.finditer(r"#define (\w+)\(\.\.\.\)((?:.*\\\n)*.*)", text):
        body = m.group(2)
        for g in re.finditer(r"_Generic\(", body):
            depth, i = 1, g.end()
            while depth and i < len(body):
                depth += {"(": 1, ")": -1}.get(body[i], 0)
                i += 1
            sel = body[g.end():i]
            # Only this selection's own associations: drop nested ones.
            own = re.sub(r"_Generic\((?:[^()]|\([^()]*\))*\)", "", sel)
            if not re.search(r"\bdefault\s*:", own):
                bad.append(m.group(1))
    return bad


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
        for name, ctl in (("control", CONTROL), ("control with shmemx.h", CONTROL_X)):
            rc, out, cmd = compile_src(cc, flags, fn(ctl), ".c", a.incs)
            if rc:
                fails += 1
                print("FAIL right-typed %s does not compile:\n%s\n%s" % (name, cmd, out))
        for what, body, named in WRONG:
            rc, out, cmd = compile_src(cc, flags, fn(body), ".c", a.incs)
            if rc == 0:
                fails += 1
                print("FAIL %s compiles, but a generic call with a wrong type must not: %s" % (what, body))
            elif named and TYPE_ERROR not in out:
                fails += 1
                print("FAIL %s is rejected without naming %s:\n%s" % (what, TYPE_ERROR, out[:2000]))
            else:
                print("ok: rejected%s: %s" % (" by name" if named else "", what))
        n = 0
        for h in ("shmem.h", "shmemx.h"):
            path = next((os.path.join(i, h) for i in a.incs if os.path.exists(os.path.join(i, h))), None)
            if path is None:
                fails += 1
                print("FAIL %s not found under %s" % (h, " ".join(a.incs)))
                continue
            text = open(path).read()
            n += text.count("_Generic(")
            for macro in generics_without_default(text):
                fails += 1
                print("FAIL %s: a _Generic of %s has no default: association" % (h, macro))
        print("ok: checked the default: association of %d generic selections" % n)
    else:
        sys.exit("unknown mode " + a.mode)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
