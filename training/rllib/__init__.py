"""The distributed trainer: Ray RLlib's PPO on the PettingZoo env (``kc train`` with ``trainer: rllib``).

``train.py`` runs it, ``env.py`` is RLlib's view of the game, ``module.py`` the masked policy and
the rule-based opponents as RLModules, ``league.py`` who plays which seat and the frozen
snapshots, ``export.py`` turns a checkpoint into a model folder. Importing this package needs
the ``rllib`` extra (``pip install -e '.[train,rllib]' -c constraints.txt``).
"""
