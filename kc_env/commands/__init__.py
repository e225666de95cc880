"""One module per ``kc`` subcommand, each with ``HELP``, ``add_arguments(parser)`` and ``run(args)``."""
