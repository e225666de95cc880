"""The ``kc`` subcommands that need ``kc_env.training``: ``train`` and ``export``.

They follow the interface of ``kc_env.commands`` (``HELP``, ``add_arguments(parser)``,
``run(args)``, and ``check()``, the one-line reason the command cannot run here, such as a
missing extra) and are declared in ``pyproject.toml`` under ``[project.entry-points."kc_env.commands"]``,
where ``kc_env.cli`` finds them. Importing them needs no torch: ``kc --help`` lists them anyway.
"""
