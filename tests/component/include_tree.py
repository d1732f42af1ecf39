#!/usr/bin/env python3
"""include_tree.py SOURCE_ROOT [--self-test]

Reads the quoted #include lines of the tree and fails (exit 1, one line
per offence) if
  * a file of core/ includes a header of collectives/ or transports/: the
    collectives are a layer above the core (core/coll_layer.h) and the
    transports are plugins;
  * a plugin (transports/NAME/, collectives/mpi/) includes a core header
    other than the SDK's, the headers meson installs for plugin authors
    (core/meson.build's install_headers, transports/meson.build's
    install_data of ../core/...).

A plugin may include its own files, the plugin kit (transports/common/)
and, for a collectives component, collectives/coll_ext.h (its interface).
--self-test also runs the checks on a copy of the tree with one offence of
each kind added, and fails if either goes unnoticed.
"""
import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    for dirpath, _, names in os.walk(folder):
        for n in sorted(names):
            if n.endswith(('.c', '.h', '.cpp')):
                yield os.path.join(dirpath, n)


def sdk_headers(root):
    """The core headers installed for plugin authors."""
    found = set()
    text = open(os.path.join(root, 'core', 'meson.build')).read()
    for m in re.finditer(r"install_headers\(([^)]*)\)", text):
        for h in re.findall(r"'([^']+\.h)'", m.group(1)):
            found.add(os.path.normpath(os.path.join(root, 'core', h)))
    text = open(os.path.join(root, 'transports', 'meson.build')).read()
    for h in re.findall(r"'\.\./core/([^']+\.h)'", text):
        found.add(os.path.normpath(os.path.join(root, 'core', h)))
    return found


def resolve(root, src, name, search):
    """Where a quoted include is found: the including file's folder, then
    the include folders the build gives (search), as the compiler does."""
    for d in [os.path.dirname(src)] + search:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def inside(path, folder):
    return path == folder or path.startswith(folder + os.sep)


def check(root):
    root = os.path.abspath(root)
    core = os.path.join(root, 'core')
    colls = os.path.join(root, 'collectives')
    tps = os.path.join(root, 'transports')
    public = os.path.join(root, 'include')
    kit = os.path.join(tps, 'common')
    sdk = sdk_headers(root)
    bad = []
    # The library is built with core/, include/ and collectives/ on its
    # include path: a core file could reach a collectives header by name.
    for src in sources(core):
        for name in INCLUDE.findall(open(src, errors='replace').read()):
            p = resolve(root, src, name, [core, public, colls])
            if p and (inside(p, colls) or inside(p, tps)):
                bad.append('%s includes %s (%s): the core includes nothing from collectives/ '
                           'or transports/' % (os.path.relpath(src, root), name,
                                                os.path.relpath(p, root)))
    plugins = [os.path.join(tps, d) for d in sorted(os.listdir(tps))
               if os.path.isdir(os.path.join(tps, d)) and d != 'common']
    plugins.append(os.path.join(colls, 'mpi'))
    for plug in plugins:
        if not os.path.isdir(plug):
            continue
        for src in sources(plug):
            for name in INCLUDE.findall(open(src, errors='replace').read()):
                p = resolve(root, src, name, [colls, core])
                if p is None or inside(p, plug) or inside(p, kit) or p in sdk:
                    continue
                if p == os.path.join(colls, 'coll_ext.h') and inside(plug, colls):
                    continue
                bad.append('%s includes %s (%s): a plugin includes only its own files, the '
                           'plugin kit and the SDK\'s headers' % (os.path.relpath(src, root),
                                                                   name, os.path.relpath(p, root)))
    return bad


def self_test(root):
    """The checks must catch one offence of each kind."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'tree')
        for d in ('core', 'collectives', 'transports', 'include'):
            shutil.copytree(os.path.join(root, d), os.path.join(copy, d),
                            ignore=shutil.ignore_patterns('*.o', '*.so'))
        cases = [(os.path.join(copy, 'core', 'offence.c'), '#include "coll.h"\n', 'core/offence.c'),
                 (os.path.join(copy, 'transports', 'shm', 'offence.c'), '#include "pshm.h"\n',
                  'transports/shm/offence.c')]
        for path, text, label in cases:
            with open(path, 'w') as f:
                f.write(text)
            found = [b for b in check(copy) if b.startswith(label)]
            print('self-test: %s %s' % (label, 'caught' if found else 'NOT caught'))
            ok = ok and bool(found)
            os.remove(path)
    return ok


def main():
    root = sys.argv[1]
    bad = check(root)
    for b in bad:
        print('FAIL ' + b)
    ok = not bad
    if '--self-test' in sys.argv[2:]:
        ok = self_test(root) and ok
    print('include tree: %s' % ('ok' if ok else 'broken'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
