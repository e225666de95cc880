"""Training, the self-play league, evaluation and export: installed as ``kc_env.training``.

The folder is ``training/`` in the repository; the wheel (and ``pip install -e .``) installs it
inside the package namespace as ``kc_env.training`` (``package-dir`` in ``pyproject.toml``), so it
cannot collide with another distribution's top-level ``training``. It sits on top of every layer
of ``kc_env`` and nothing in ``kc_env`` imports it: its ``kc`` subcommands (``kc train``,
``kc export``, in ``commands/``) reach the CLI through the ``kc_env.commands`` entry-point group.
The trainers are plug-ins of ``trainers.py`` (``kc train``, ``kc export`` and ``config.py`` read
it), a folder each owning its code, settings and checks: ``sb3/``, ``rllib/``, ``turn_value/``.
What they share: ``run.py`` (a run folder), ``run_lock.py``, ``config.py`` (the shared blocks),
``threads.py`` (torch's threads), ``evaluate.py`` on the plain vector env (``vec.py``),
``bench.py``, ``export.py``, ``publish.py``, ``seal.py``. Needs the ``train`` extra (torch; the
SB3 trainer also stable-baselines3 and sb3-contrib, which only ``sb3/`` imports); ``rllib/`` the
``rllib`` extra.
"""

if __name__ == "training":  # imported from the repository's root by its folder's name
    # numba would cache compiled functions under a module name no other process can import
    raise ImportError("the repository's training/ folder is the package kc_env.training: import kc_env.training")
