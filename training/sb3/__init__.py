"""The SB3 trainer: sb3-contrib's MaskablePPO on the fast vector env, one machine (``kc train`` with
``trainer: sb3``, the default).

``train.py`` runs it (league, checkpoints, evaluation as SB3 callbacks); ``settings.py`` holds its
own config blocks (``pretrain:``, ``tune:``, the prior's weights) and their checks; ``policy.py``
the network (with a rule-based prior); ``wrappers.py`` and ``rollouts.py`` the vector env as the
learner sees it (``KingsCornerVecEnv``, SB3's ``VecEnv``); ``pretrain.py`` behaviour cloning,
``improve.py`` policy improvement by play-outs, ``tune.py`` the prior's weights, before PPO;
``league.py`` the opponents; ``checkpoint.py`` and ``resume_state.py`` what a checkpoint keeps.
Only the modules of this folder import stable-baselines3 and sb3-contrib (the ``train`` extra);
importing the package itself, or ``settings.py`` (which the config loader reads), does not.
"""
