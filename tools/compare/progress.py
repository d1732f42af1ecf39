"""Progress on standard error: which configuration, which benchmark, how
many jobs are done and an estimate of the time left.  On a terminal one
line is redrawn; otherwise one line per finished job (logs stay short)."""

import sys
import time

from summary import size_label


def clock(s):
    s = max(0, int(s + 0.5))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total_jobs, guess_job_s, enabled=True, stream=sys.stderr):
        self.total, self.done = total_jobs, 0
        self.guess = guess_job_s
        self.durations = []
        self.t0 = time.monotonic()
        self.job_t0 = self.t0
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and stream.isatty()
        self.current = ""

    def _per_job(self):
        # Measured jobs replace the guess as soon as there are any: start-up
        # and the machine's load dominate, and neither can be predicted.
        return sum(self.durations) / len(self.durations) if self.durations else self.guess

    def eta(self, fraction_of_current=0.0):
        left = self.total - self.done - fraction_of_current
        return max(0.0, left * self._per_job())

    def start_job(self, label):
        self.job_t0 = time.monotonic()
        self.current = label
        self._draw(f"{label}: starting", 0.0)

    def point(self, bench, nbytes, done, total):
        frac = min(done / total, 1.0) if total else 0.0
        size = f" {size_label(nbytes)}" if nbytes else ""
        self._draw(f"{self.current}: {bench}{size} ({done}/{total})", frac)

    def end_job(self, status, reason=""):
        dt = time.monotonic() - self.job_t0
        self.done += 1
        if status == "ok":
            self.durations.append(dt)
        if not self.enabled:
            return
        if len(reason) > 160:
            reason = reason[:159] + "…"
        what = "ok" if status == "ok" else f"{status.upper()}: {reason}"
        line = (f"[{self.done}/{self.total}] {self.current}: {what} ({dt:.1f} s); "
                f"elapsed {clock(time.monotonic() - self.t0)}, ETA {clock(self.eta())}")
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(line + "\n")
        self.stream.flush()

    def _draw(self, text, frac):
        if not self.tty:
            return
        line = (f"[{self.done + 1}/{self.total}] {text}  "
                f"elapsed {clock(time.monotonic() - self.t0)}, ETA {clock(self.eta(frac))}")
        self.stream.write("\r\033[K" + line[:200])
        self.stream.flush()

    def message(self, text):
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()
