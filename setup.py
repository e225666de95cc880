"""The part of the build that ``pyproject.toml`` cannot say: which packages to install, and the
``.pth`` file.

``kc_env``'s own packages are found under ``kc_env/``; the repository's ``training/`` folder is
installed inside the package namespace as ``kc_env.training`` (so a wheel never installs a
generic top-level ``training``), and ``models/`` and ``configs/`` as the package data
``kc_env.models`` and ``kc_env.configs``. The folder of each (``package-dir``) and the data files
(``package-data``) are in ``pyproject.toml``; everything else about the project is too. Found,
not listed, so a new subpackage cannot be left out of the wheel.

Beside the package, site-packages gets the module ``_kc_env_registration`` and ``kc_env.pth``,
the interpreter-start hook that registers ``KingsCorner-v0`` whenever Gymnasium is imported (see
that module). ``build_pth`` puts the ``.pth`` at the root of the wheel, which the installer copies
into site-packages, in both kinds of wheel.
"""

import os

from setuptools import Command, find_packages, setup
from setuptools.command.build import build

PTH = "kc_env.pth"


class build_pth(Command):
    """Put ``kc_env.pth`` at the root of the wheel.

    A wheel (``bdist_wheel``) is made from the build folder, so the file is copied there. An
    editable wheel (``pip install -e .``, PEP 660: ``editable_wheel`` sets ``editable_mode``)
    leaves the build folder out and is made from the folder it configures the ``install``
    command to install into, so the file is copied there instead. setuptools has no public way
    to ship a file at the root of an editable wheel (setuptools 84 leaves ``data_files`` out of
    them: ``editable_wheel`` asks the distribution for ``has_data``, which is ``has_data_files``).
    """

    description = f"put {PTH} at the root of the wheel"
    user_options = []

    def initialize_options(self):
        self.build_lib = None
        self.editable_mode = False

    def finalize_options(self):
        self.set_undefined_options("build", ("build_lib", "build_lib"))

    def run(self):
        root = self.get_finalized_command("install").install_lib if self.editable_mode else self.build_lib
        self.mkpath(root)
        self.copy_file(PTH, os.path.join(root, PTH), preserve_mode=False)

    def get_source_files(self):  # into the sdist
        return [PTH]

    def get_outputs(self):
        return [os.path.join(self.build_lib, PTH)]

    def get_output_mapping(self):
        return {os.path.join(self.build_lib, PTH): PTH}


class build_with_pth(build):
    sub_commands = [*build.sub_commands, ("build_pth", None)]


setup(
    packages=[
        *find_packages(include=["kc_env", "kc_env.*"]),
        "kc_env.training",
        *(f"kc_env.training.{name}" for name in find_packages("training")),
        "kc_env.models",
        "kc_env.configs",
    ],
    py_modules=["_kc_env_registration"],
    cmdclass={"build": build_with_pth, "build_pth": build_pth},
)
