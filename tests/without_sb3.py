"""Run code in a fresh interpreter where stable-baselines3 and sb3-contrib cannot be imported (a
meta-path finder refuses them), as on a machine without them: what must work there."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLOCK_SB3 = textwrap.dedent("""
    import importlib.abc, sys

    class NoSB3(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("stable_baselines3", "sb3_contrib"):
                raise ImportError(f"No module named {name!r} (blocked in this test)")
            return None

    sys.meta_path.insert(0, NoSB3())
    try:
        import stable_baselines3
    except ImportError:
        pass
    else:
        raise SystemExit("the block did not stop stable_baselines3: the test proves nothing")
""")


def run_without_sb3(code: str, after: str = "", timeout: float = 600) -> subprocess.CompletedProcess:
    """``code`` (then ``after``, e.g. a check of ``sys.modules``) with SB3 blocked, from the repo root."""
    return subprocess.run([sys.executable, "-c", BLOCK_SB3 + textwrap.dedent(code) + textwrap.dedent(after)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
