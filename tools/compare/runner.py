"""One benchmark job: oshrun -n N compare_bench under a configuration's
environment, read as it runs, ended by a time limit or by the user."""

import os
import re
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

# oshrun ends the PEs within its own grace period once it gets SIGTERM;
# past this, it is killed (the kernel then kills the PEs, oshrun --help).
TERM_GRACE = 10.0
INFO_LINE = re.compile(r"^(\w+) transport: ")


@dataclass
class Job:
    status: str = "ok"        # ok, failed, timeout, interrupted
    reason: str = ""
    samples: list = field(default_factory=list)   # (bench, bytes, value, unit, iters, secs)
    header: dict = field(default_factory=dict)
    info: list = field(default_factory=list)      # the plugin's verbose lines
    seconds: float = 0.0
    points: int = 0
    pes: int = 0


def merge(job, part):
    """Appends a later launch of the same job (the collectives half)."""
    job.samples += part.samples
    job.info += [i for i in part.info if i not in job.info]
    job.seconds += part.seconds
    job.points += part.points
    if part.header and not job.header:
        job.header = dict(part.header)
    elif part.header:
        job.header["points"] = str(job.points)
    if job.status == "ok" and part.status != "ok":
        job.status, job.reason = part.status, part.reason


def _reason(err_lines, rc):
    """The line that says why: the library's, the benchmark's or oshrun's
    first message, else the last thing printed."""
    for ln in err_lines:
        if re.match(r"^(plugshmem|compare_bench|oshrun)\b", ln):
            return ln[:400]
    tail = [ln for ln in err_lines if ln.strip()]
    what = tail[-1][:400] if tail else "no message"
    return f"exit status {rc}: {what}"


def _parse_header(line):
    h = {}
    for part in line.lstrip("# ").split(";"):
        if "=" in part:
            k, v = part.strip().split("=", 1)
            h[k] = v
    return h


def run(cmd, env, timeout, on_point, stop, limit=None):
    """Runs cmd; on_point(job, bench, bytes) after each result row.
    stop() returning true ends the job as interrupted.  limit: the time
    limit to name when it is outrun (default: timeout)."""
    job = Job()
    limit = timeout if limit is None else limit
    full_env = dict(os.environ)
    full_env.update(env)
    t0 = time.monotonic()
    try:
        # A session of its own: a Ctrl-C on the terminal reaches only us,
        # and we end the job in order (SIGTERM to oshrun).
        p = subprocess.Popen(cmd, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        job.status, job.reason = "failed", f"cannot start {cmd[0]}: {e}"
        return job
    sel = selectors.DefaultSelector()
    bufs = {p.stdout: b"", p.stderr: b""}
    for f in bufs:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    err_lines, ended = [], None

    def line_out(ln):
        if ln.startswith("#"):
            job.header = _parse_header(ln)
            job.points = int(job.header.get("points", "0") or 0)
        elif INFO_LINE.match(ln):
            job.info.append(ln)
        elif ln.startswith("bench,") or not ln.strip():
            pass
        else:
            f = ln.split(",")
            try:
                s = (f[0], int(f[1]), float(f[2]), f[3], int(f[4]), float(f[5]))
            except (IndexError, ValueError):
                err_lines.append("unexpected output: " + ln)
                return
            job.samples.append(s)
            on_point(job, s[0], s[1])

    while sel.get_map():
        left = timeout - (time.monotonic() - t0)
        if ended is None and left <= 0:
            ended = "timeout"
        if ended is None and stop():
            ended = "interrupted"
        if ended:
            break
        for key, _ in sel.select(timeout=min(0.2, max(left, 0.01))):
            f = key.fileobj
            chunk = os.read(f.fileno(), 65536)
            if not chunk:
                sel.unregister(f)
                chunk = b"\n" if bufs[f] else b""
            data = bufs[f] + chunk
            *lines, bufs[f] = data.split(b"\n")
            for raw in lines:
                ln = raw.decode("utf-8", "replace")
                if f is p.stdout:
                    line_out(ln)
                elif INFO_LINE.match(ln):
                    job.info.append(ln)
                else:
                    err_lines.append(ln)
    if ended:
        _terminate(p)
        job.status = ended
        last = job.samples[-1][:2] if job.samples else None
        where = f" after {last[0]} {last[1]} B" if last else " before the first result"
        job.reason = (f"the job outran its time limit of {limit:.0f} s{where} (--timeout)"
                      if ended == "timeout"
                      else f"stopped by the user{where}")
    try:
        rc = p.wait(max(1.0, timeout - (time.monotonic() - t0)))
    except subprocess.TimeoutExpired:   # its output closed, the job still runs
        _terminate(p)
        rc = p.wait()
        ended, job.status = "timeout", "timeout"
        job.reason = f"the job outran its time limit of {limit:.0f} s at its end (--timeout)"
    for f in bufs:
        f.close()
    job.seconds = time.monotonic() - t0
    if not ended:
        if rc != 0:
            job.status, job.reason = "failed", _reason(err_lines, rc)
        elif job.points and len(job.samples) < job.points:
            job.status = "failed"
            job.reason = f"ended after {len(job.samples)} of {job.points} results"
        elif not job.samples:
            job.status, job.reason = "failed", _reason(err_lines, rc)
    return job


def _terminate(p):
    """SIGTERM to oshrun (it ends the PEs and removes the job's /dev/shm
    objects), SIGKILL if it does not finish in time."""
    if p.poll() is not None:
        return
    try:
        p.send_signal(signal.SIGTERM)
        p.wait(TERM_GRACE)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    except ProcessLookupError:
        pass
