"""The exported models that ship with the project, one folder each (``model.json``,
``weights.npz``); installed as package data ``kc_env.models``, so ``kc_env.agents.load(NAME)``
finds ``NAME`` here from any folder. This file only makes the folder a package."""
