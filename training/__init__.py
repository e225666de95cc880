"""Training, the self-play league, evaluation and export: installed as ``kc_env.training``.

The folder is ``training/`` in the repository; the wheel (and ``pip install -e .``) installs it
inside the package namespace as ``kc_env.training`` (``package-dir`` in ``pyproject.toml``), so it
cannot collide with another distribution's top-level ``training``. It sits on top of every layer
of ``kc_env`` and nothing in ``kc_env`` imports it: its ``kc`` subcommands (``kc train``,
``kc export``, in ``commands/``) reach the CLI through the ``kc_env.commands`` entry-point group.
The trainers are plug-ins of ``trainers.py`` (``kc train``, ``kc export`` and ``config.py`` read
it); ``run.py`` is what they share about a run folder. Needs the ``train`` extra (torch; the SB3
trainer also stable-baselines3 and sb3-contrib, which only its modules import); ``rllib/`` the
``rllib`` extra.
"""
