"""A real ``kc serve`` in its own process on a free loopback port, for the web table's browser and
load tests, and a JSON GET against it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def served(*options: str):
    """``kc serve --port 0 --pace 0`` in its own process; yields its address, stops it after."""
    kc = Path(sys.executable).with_name("kc")
    command = [str(kc) if kc.exists() else sys.executable, *([] if kc.exists() else ["-m", "kc_env.cli"]),
               "serve", "--port", "0", "--pace", "0", *options]
    errors = tempfile.TemporaryFile("w+")  # read only when it fails: a pipe left unread could fill
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if not found:
            proc.kill()
            proc.wait()
            errors.seek(0)
            raise RuntimeError(f"kc serve did not start: {line!r} {errors.read()[-2000:]}")
        yield found.group(1)
    finally:
        errors.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())
