"""Where kc_env's compiled code is cached and what first use says (issue 36 item 2): the agents
compiled for 13 to 33 s in silence, and numba's cache lay inside the package (110 files left in
site-packages after ``pip uninstall``). Now the cache is in the user's cache folder
(``$XDG_CACHE_HOME/kc_env/numba``, or ``NUMBA_CACHE_DIR`` when set), a process that compiles says
so once on a terminal, and the next process loads the code instead of compiling it.

Each test compiles one small function (``agents.view.card_penalties``) in fresh processes with an
empty cache folder of its own: a few seconds each."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from kc_env import compiled

CALL = """
import numpy as np
from kc_env.agents import view
view.card_penalties(np.zeros(1599, np.float32))
stats = view.card_penalties.stats
print("misses", sum(stats.cache_misses.values()), "hits", sum(stats.cache_hits.values()))
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    return {**env, **extra}


def _run_on_a_terminal(env: dict[str, str]) -> tuple[str, str]:
    """Run ``CALL`` with stderr on a pseudo-terminal: (stdout, what the terminal showed)."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-c", CALL], stdout=subprocess.PIPE, stderr=follower, env=env,
                              text=True, timeout=300, check=True)
        shown = b""
        while select.select([leader], [], [], 0.2)[0]:
            chunk = os.read(leader, 65536)
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(follower)
        os.close(leader)
    return done.stdout, shown.decode(errors="replace")


def _cached(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("view.card_penalties-*"))


def test_first_use_says_it_compiles_once_and_the_next_process_loads_the_cache(tmp_path):
    env = _env(XDG_CACHE_HOME=str(tmp_path))
    out, shown = _run_on_a_terminal(env)
    assert out.split() == ["misses", "1", "hits", "0"]
    assert shown.count("compiling the agents") == 1 and str(tmp_path / "kc_env" / "numba") in shown
    files = _cached(tmp_path / "kc_env" / "numba")
    assert any(f.endswith(".nbi") for f in files) and any(f.endswith(".nbc") for f in files)
    out, shown = _run_on_a_terminal(env)
    assert out.split() == ["misses", "0", "hits", "1"]  # loaded, not compiled again
    assert "compiling" not in shown


def test_a_users_numba_cache_dir_is_respected_and_a_pipe_gets_no_notice(tmp_path):
    own, xdg = tmp_path / "numba-cache", tmp_path / "xdg"
    done = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, timeout=300, check=True,
                          env=_env(NUMBA_CACHE_DIR=str(own), XDG_CACHE_HOME=str(xdg)))
    assert done.stdout.split() == ["misses", "1", "hits", "0"]
    assert "compiling" not in done.stderr  # not a terminal: logs stay clean
    assert _cached(own) and not xdg.exists()


def test_the_cache_is_not_inside_the_package():
    locator = compiled.PackageCacheLocator.from_function(compiled.sources_stamp.__wrapped__,
                                                         str(compiled.PACKAGE / "agents" / "view.py"))
    if locator is None:
        pytest.skip("the user cache folder cannot be written here")
    path = Path(locator.get_cache_path()).resolve()
    assert compiled.cache_dir().resolve() in path.parents
    assert compiled.PACKAGE not in path.parents
