"""What pip sees of the project (issue 36 items 8 and 9): Python 3.13 is not refused (the base
package runs on it; only extras whose libraries need a newer Python carry a marker), and building
the wheel prints no setuptools warning (it printed a 40-line box for each data folder, such as
kc_env/web/static, that include-package-data took for a package)."""

from __future__ import annotations

from pathlib import Path

import pytest
from wheel_build import build_wheel

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_requires_python_has_no_upper_cap():
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(_project()["requires-python"])
    assert "3.13.0" in spec and "3.10.0" in spec and "3.9.0" not in spec
    assert not [s for s in spec if s.operator in ("<", "<=", "==", "~=")]


def test_extras_needing_a_newer_python_say_so_in_a_marker():
    """open_spiel 2.0.2 and Tianshou 2.0.1 need Python 3.11+: their extras carry the marker, so a
    3.10 install of every extra skips them instead of failing."""
    from packaging.requirements import Requirement

    extras = _project()["optional-dependencies"]
    for name, package in (("openspiel", "open_spiel"), ("tianshou", "tianshou")):
        (req,) = [Requirement(r) for r in extras[name] if Requirement(r).name == package]
        assert req.marker is not None and not req.marker.evaluate({"python_version": "3.10"})


def test_building_the_wheel_prints_no_setuptools_warning(tmp_path):
    """Build from a copy of the tree (nothing written into the checkout), verbosely, and read the
    backend's output. About 5 s."""
    pytest.importorskip("setuptools", minversion="77")
    done = build_wheel(tmp_path, "-v")
    assert done.returncode == 0, done.stderr[-2000:]
    output = done.stdout + done.stderr
    assert "BuildBackendWarning" not in output and "absent from the `packages`" not in output
    assert "SetuptoolsDeprecationWarning" not in output


def test_the_training_folder_is_not_importable_as_a_top_level_package():
    """``training/`` is ``kc_env.training``; imported as ``training`` from the repository's root,
    numba cached its compiled functions under a module no other process can import, and every
    later run failed with "No module named 'training'" until the cache was deleted."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import training"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1] == (
        "ImportError: the repository's training/ folder is the package kc_env.training: import kc_env.training")
