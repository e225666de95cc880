"""The turn-value trainer: a learned value of whole turns (``kc train`` with
``trainer: turn_value``; research, ``configs/turn-ranking-2p.yaml``).

``train.py`` runs it (iterations of play or labelling, then a fit, each evaluated); ``learn.py``
is the self-play, the play-out labels and the fits, batched in compiled code; ``settings.py``
holds its config block (``turn_value:``) and its checks. Needs torch (the ``train`` extra), not
stable-baselines3.
"""
