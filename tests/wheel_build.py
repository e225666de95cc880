"""Build kc_env's wheel from a copy of the tree (nothing is written into the checkout), as the
packaging tests read it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_wheel(tmp_path: Path, *pip_options: str) -> subprocess.CompletedProcess:
    """``pip wheel`` of a copy of the package's files into ``tmp_path / "out"`` (``pip_options``:
    ``-q`` or ``-v``); the finished process, its output captured."""
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for item in ("kc_env", "training", "models", "configs"):
        shutil.copytree(ROOT / item, src / item, ignore=ignore)
    for item in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / item, src / item)
    return subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", *pip_options,
                           "-w", str(tmp_path / "out"), str(src)], capture_output=True, text=True, timeout=300)
