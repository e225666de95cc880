"""The part of the build that ``pyproject.toml`` cannot say: which packages to install.

``kc_env``'s own packages are found under ``kc_env/``; the repository's ``training/`` folder is
installed inside the package namespace as ``kc_env.training`` (so a wheel never installs a
generic top-level ``training``), and ``models/`` and ``configs/`` as the package data
``kc_env.models`` and ``kc_env.configs``. The folder of each (``package-dir``) and the data files
(``package-data``) are in ``pyproject.toml``; everything else about the project is too. Found,
not listed, so a new subpackage cannot be left out of the wheel. The wheel installs ``kc_env``
and nothing beside it (no top-level module, no ``.pth`` file): ``import kc_env`` registers the
envs.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["kc_env", "kc_env.*"]),
        "kc_env.training",
        *(f"kc_env.training.{name}" for name in find_packages("training")),
        "kc_env.models",
        "kc_env.configs",
    ],
)
