"""Writing the --plot file: SVG directly, PNG converted from the SVG by a
converter found on the system."""

import os
import shutil
import subprocess
import tempfile

INSTALL_HINT = ("--plot FILE.png needs rsvg-convert (Debian: apt-get install librsvg2-bin) "
                "or ImageMagick's convert (apt-get install imagemagick); "
                "FILE.svg needs nothing")


def png_converter():
    rsvg = shutil.which("rsvg-convert")
    if rsvg:
        return [rsvg, "-f", "png", "-o", "{out}", "{svg}"]
    # Only ImageMagick's: other programs are called convert too.
    conv = shutil.which("convert")
    if conv:
        try:
            p = subprocess.run([conv, "-version"], capture_output=True, text=True, timeout=30)
            if "ImageMagick" in p.stdout:
                return [conv, "{svg}", "{out}"]
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def can_write(path):
    """None when the file can be written, else what to install."""
    if path.lower().endswith(".png") and not png_converter():
        return INSTALL_HINT
    return None


def write(path, svg_text):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    if path.lower().endswith(".svg"):
        with open(path, "w") as f:
            f.write(svg_text)
        return
    conv = png_converter()
    if not conv:
        raise RuntimeError(INSTALL_HINT)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", dir=d, delete=False) as f:
        f.write(svg_text)
        tmp = f.name
    try:
        cmd = [a.format(out=path, svg=tmp) for a in conv]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or not os.path.isfile(path):
            raise RuntimeError(f"{os.path.basename(conv[0])} could not write {path}: "
                               f"{(p.stderr or p.stdout).strip()[:300]}")
    finally:
        os.unlink(tmp)
