"""How long numba takes to compile kc_env from nothing, and how many signatures it compiles.

Copies ``kc_env`` and ``training`` into a temporary folder (so the checkout's cache is left
alone), then, in a fresh process with that copy first on the path and no cache, times the first
decision of each agent and a few vector-env steps with heuristic opponents, and reads numba's
cache index (``__pycache__/*.nbi``) for the number of functions and signatures compiled; the
functions compiled more than once are listed with their non-array argument types.

    python benchmarks/compile_time.py
"""

from __future__ import annotations

import glob
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_USES = """
import time
import numpy as np
from kc_env import agents, engine
from kc_env.play import observe
from kc_env.vector import KingsCornerVecEnv
obs = observe(engine.new_deal("standard", 2, seed=1))
for spec in ["heuristic", "greedy", "search:redeals=2"]:
    t = time.time(); agents.load(spec, seed=0).act(obs); print(f"{spec:28s} {time.time() - t:6.1f} s", flush=True)
t = time.time()
env = KingsCornerVecEnv(8, opponents=["heuristic"], seed=0)
env.reset()
for _ in range(20):
    env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
print(f"{'vector env, heuristic seats':28s} {time.time() - t:6.1f} s", flush=True)
"""


def signatures(folder: Path) -> dict[str, list]:
    """Every cached function under ``folder``: its compiled signatures (numba's index format)."""
    out = {}
    for path in sorted(glob.glob(str(folder / "**" / "__pycache__" / "*.nbi"), recursive=True)):
        with open(path, "rb") as fh:  # our own cache, written by numba in this run
            pickle.load(fh)  # numba's version
            _, overloads = pickle.loads(fh.read())
        out[os.path.basename(path).split(".py")[0]] = [key[0] for key in overloads]
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        for name in ("kc_env", "training"):
            shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "PYTHONPATH": str(copy)}
        subprocess.run([sys.executable, "-c", FIRST_USES], env=env, check=True, cwd=copy)
        found = signatures(copy)
        print(f"{len(found)} functions compiled, {sum(map(len, found.values()))} signatures")
        for name, sigs in found.items():
            if len(sigs) > 1:
                shown = [[str(t) for t in sig if "array" not in str(t).lower()] for sig in sigs]
                print(f"  {len(sigs)} x {name}: {shown}")


if __name__ == "__main__":
    main()
