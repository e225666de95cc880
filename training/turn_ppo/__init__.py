"""PPO over whole turns (``kc train`` with ``trainer: turn_ppo``): a policy over the candidate
end-of-turn positions that the heuristic's turn search lists, trained by clipped policy-gradient
updates in self-play and against a league of the built-in agents.

``rollouts.py`` plays the deals in compiled code (the learners sample a candidate from the
policy's softmax and keep every candidate's features), ``update.py`` is the PPO step and its
critic (torch), ``train.py`` the iterations, evaluations and the model folder, ``settings.py`` its
config block (``turn_ppo:``) and checks. The policy is exported as a turn-value model
(``kc_env.agents.turn_value``: the network's score of each candidate; the agent plays the best),
so ``agents.load``, the envs and ``kc eval`` play it with numpy and the compiled search alone.
"""
