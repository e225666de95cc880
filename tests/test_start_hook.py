"""kc_env.pth, the interpreter-start hook (``_kc_env_registration``, setup.py's ``build_pth``):
``KingsCorner-v0`` in Gymnasium's registry in a fresh interpreter that never imports kc_env
(issue 20), nothing imported at start, and nothing an interpreter notices when it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

import gymnasium
import pytest

import _kc_env_registration

ROOT = Path(__file__).resolve().parents[1]
ONE_LINER = ("from stable_baselines3.common.env_util import make_vec_env; "
             "make_vec_env('KingsCorner-v0', n_envs=4)")
"""Issue 20's "What it must show", word for word."""


def _python(code: str, cwd: Path, *, python: str = sys.executable, env: dict | None = None,
            flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter, outside the repository (so only what is installed counts)."""
    return subprocess.run([python, *flags, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def installed():
    """This venv's site-packages has the repository's kc_env.pth (pip copies it, even for -e)."""
    pth = Path(sysconfig.get_path("purelib")) / "kc_env.pth"
    assert pth.is_file(), f"{pth} is missing: reinstall kc_env (make install, or pip install -e .)"
    assert pth.read_text() == (ROOT / "kc_env.pth").read_text(), f"{pth} is stale: reinstall kc_env (make install)"


def test_the_issues_one_liner_in_a_fresh_interpreter(installed, tmp_path):
    pytest.importorskip("stable_baselines3")
    run = _python(ONE_LINER, tmp_path)
    assert run.returncode == 0, run.stderr


def test_gymnasium_make_without_importing_kc_env(installed, tmp_path):
    code = """if True:
        import sys
        at_start = sorted({m.split(".")[0] for m in sys.modules} & {"gymnasium", "numpy", "kc_env", "_kc_env_registration"})
        import importlib.util
        assert "__version__" in importlib.util.find_spec("gymnasium").loader.get_source("gymnasium")  # wrapped, still answers
        import gymnasium
        assert "kc_env" not in sys.modules, "registered, not imported"
        assert type(gymnasium.__loader__).__name__ == "SourceFileLoader", gymnasium.__loader__  # its own
        obs, info = gymnasium.make("KingsCorner-v0").reset(seed=0)
        print(at_start, obs.shape)
    """
    run = _python(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[]", "(1599,)"]  # the hook imported none of them at start


BROKEN = {
    "registry": None,  # the real module; the Gymnasium's register raises
    "module": "raise RuntimeError('a broken install')\n",
    "no module": "",
}


@pytest.mark.parametrize("broken", BROKEN)
def test_every_failure_of_the_hook_is_swallowed(tmp_path, broken):
    """kc_env.pth, with the module broken or missing, or a Gymnasium whose registry fails: the
    interpreter starts and imports Gymnasium as if the hook were not there, with no word on stderr."""
    site_dir = tmp_path / "site"
    (site_dir / "gymnasium").mkdir(parents=True)
    (site_dir / "gymnasium" / "__init__.py").write_text(
        "registry, calls = {}, []\n"
        "def register(**kwargs):\n"
        "    calls.append(kwargs['id'])\n"
        "    raise RuntimeError('a broken registry')\n")
    shutil.copy(ROOT / "kc_env.pth", site_dir)
    if BROKEN[broken] is None:
        shutil.copy(ROOT / "_kc_env_registration.py", site_dir)
    elif BROKEN[broken]:
        (site_dir / "_kc_env_registration.py").write_text(BROKEN[broken])
    # -S: no site-packages (neither the real Gymnasium nor the repository's module), then this one
    code = f"import site; site.addsitedir({str(site_dir)!r}); import gymnasium; print(gymnasium.calls)"
    run = _python(code, tmp_path, flags=("-S",))
    calls = "['KingsCorner-v0']" if broken == "registry" else "[]"  # the hook got as far as register
    assert (run.returncode, run.stdout, run.stderr) == (0, calls + "\n", "")


def test_registering_twice_changes_nothing():
    before = gymnasium.spec("KingsCorner-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns when an id is registered over
        _kc_env_registration.register(gymnasium)
        _kc_env_registration.register(gymnasium)
    assert gymnasium.registry["KingsCorner-v0"] is before


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wheel", "editable"])
def test_a_throwaway_venv_gets_the_pth(tmp_path, kind):
    """A wheel (what ``pip wheel .`` builds) and an editable wheel (``pip install -e .``), built
    from a copy of the sources and installed with ``--no-deps`` into an empty venv, put kc_env.pth
    into its site-packages; Gymnasium (the project venv's, put on the path) then finds
    KingsCorner-v0 without importing kc_env."""
    sources, dist, venv = tmp_path / "sources", tmp_path / "dist", tmp_path / "venv"
    shutil.copytree(ROOT, sources, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "runs", "out", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "tests", "docs",
        "benchmarks"))
    hook = "build_wheel" if kind == "wheel" else "build_editable"  # the PEP 517 / 660 hook pip calls
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.{hook}({str(dist)!r})"],
                   cwd=sources, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
                    "--no-index", *dist.glob("kc_env-*.whl")], check=True)
    site = Path(_python("import sysconfig; print(sysconfig.get_path('purelib'))", tmp_path, python=python).stdout.strip())
    assert (site / "kc_env.pth").is_file()
    (site / "project-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")  # gymnasium, numpy
    code = ("import sys, gymnasium, importlib.util; assert 'kc_env' not in sys.modules; "
            "print(gymnasium.spec('KingsCorner-v0').entry_point, importlib.util.find_spec('kc_env').origin)")
    run = _python(code, tmp_path, python=python)
    assert run.returncode == 0, run.stderr
    entry_point, origin = run.stdout.split()
    assert entry_point == "kc_env.gym_env:KingsCornerEnv"
    assert Path(origin).is_relative_to(site if kind == "wheel" else sources)
