"""Other OpenSHMEM implementations as columns (--impl NAME=OSHCC,LAUNCHER):
compare_bench.c built with the implementation's compiler wrapper and run
with its launcher, beside PlugSHMEM's configurations."""

import os
import re
import shlex
import subprocess

from discover import Config

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def parse(spec):
    """(name, oshcc, launcher words) from NAME=OSHCC,LAUNCHER, or raises
    ValueError saying what is wrong."""
    name, eq, rest = spec.partition("=")
    oshcc, comma, launcher = rest.partition(",")
    if not eq or not comma or not oshcc.strip() or not launcher.strip():
        raise ValueError(f"--impl '{spec}': use NAME=OSHCC,LAUNCHER, e.g. "
                         "ompi=/usr/bin/oshcc,'mpirun.openmpi --oversubscribe'")
    if not NAME.match(name):
        raise ValueError(f"--impl '{spec}': the name '{name}' may hold letters, digits, "
                         "'_', '.' and '-' only")
    try:
        words = shlex.split(launcher)
    except ValueError as e:
        raise ValueError(f"--impl '{spec}': the launcher: {e}") from None
    return name, oshcc.strip(), words


def configs(specs, taken):
    """One Config per --impl, named by its NAME (which must not be one of
    taken, PlugSHMEM's configurations)."""
    out = []
    for spec in specs:
        name, oshcc, launcher = parse(spec)
        if name in taken or any(c.name == name for c in out):
            raise ValueError(f"--impl '{spec}': the name '{name}' is already a configuration")
        out.append(Config(name=name, transport="other", env={},
                          detail=f"{oshcc}; {' '.join(launcher)}", variant="impl", oshcc=oshcc,
                          launcher=launcher))
    return out


def build(c, source, workdir):
    """Compiles source with c's wrapper into workdir; returns the program's
    path, or raises RuntimeError with the compiler's words."""
    exe = os.path.join(workdir, f"compare_bench.{c.name}")
    cmd = [c.oshcc, "-O2", "-o", exe, source]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"cannot build compare_bench with {c.oshcc}: {e}") from None
    if p.returncode != 0:
        lines = [ln for ln in (p.stderr or p.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
        said = f": {first.strip()[:300]}" if first.strip() else ""
        raise RuntimeError(f"cannot build compare_bench with {c.oshcc} "
                           f"(exit status {p.returncode}){said}")
    return exe


def command(c, exe, np, args):
    """The job's command line: the launcher, -n N, the program."""
    return list(c.launcher) + ["-n", str(np), exe] + list(args)
