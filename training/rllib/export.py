"""Export an RLlib run (or one of its checkpoints) to a model folder (``kc export RUN FOLDER``).

The learner module of the checkpoint (``learner_group/learner/rl_module/learner``) is loaded
with ``RLModule.from_checkpoint``; its policy layers are copied as they are into the format of
``kc_env.agents.policy_model`` (``weights.npz`` and ``model.json``, whose ``trainer`` says
``rllib``), so ``kc eval``, ``kc play`` and the environments use it like any other agent. As for
the SB3 export, the folder is read back with numpy alone and its action probabilities must agree
with the torch module's within ``export.TOLERANCE`` on real observations, or the export is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE
from ray.rllib.core.rl_module.rl_module import RLModule

from .. import config as config_mod
from .. import seal
from ..export import save_checked
from ..export_folder import staged
from ..publish import record_evaluation
from .league import LEARNER
from .module import MaskedPolicyModule, network_of, torch_probabilities
from .train import newest_checkpoint

MODULE_PATH = Path(COMPONENT_LEARNER_GROUP) / COMPONENT_LEARNER / COMPONENT_RL_MODULE / LEARNER


def load_module(checkpoint: str | Path) -> MaskedPolicyModule:
    """The learner module of an RLlib checkpoint made by ``kc train`` (trainer rllib); a folder
    that is not one, or a damaged one, is refused with a message that says which."""
    checkpoint = Path(checkpoint)
    path = checkpoint / MODULE_PATH
    if not (checkpoint / "rllib_checkpoint.json").is_file():
        raise ValueError(f"{checkpoint}: not an RLlib checkpoint (no rllib_checkpoint.json)")
    if not (path / "module_state.pkl").is_file():
        raise ValueError(f"{checkpoint}: no learner module ({MODULE_PATH}/module_state.pkl); "
                         "is it a checkpoint of kc train with trainer: rllib?")
    seal.check(checkpoint)  # before Ray unpickles anything of it
    try:
        module = RLModule.from_checkpoint(str(path.resolve()))
    except Exception as exc:  # unpickling a damaged file can raise almost anything
        raise ValueError(f"{checkpoint}: corrupt RLlib checkpoint, cannot load the learner module "
                         f"({type(exc).__name__}: {exc})") from None
    if not isinstance(module, MaskedPolicyModule):
        raise ValueError(f"{checkpoint}: the learner module is a {type(module).__name__}, not kc's MaskedPolicyModule")
    return module


def export_checkpoint(checkpoint: str | Path, folder: str | Path, card: dict[str, Any], rules,
                      num_players: int) -> Path:
    """Write the checkpoint's policy to ``folder`` and prove numpy and torch agree (within ``export.TOLERANCE``)."""
    module = load_module(checkpoint)
    network = network_of(module.get_state(), module.model_config["activation"])
    card = {"trainer": "rllib", "trained_from": str(checkpoint), **card}
    return save_checked(network, folder, card, rules, num_players,
                        lambda obs, masks: torch_probabilities(module, obs, masks))


def publish(run: Path, folder: Path, against: list[str], deals: int = 2000, seed: int = 0,
            progress: bool = True) -> tuple[Path, str]:
    """Export the newest checkpoint of the RLlib run ``run`` to ``folder``, evaluate it with
    ``kc eval``'s tournament, and write the results into its ``model.json``."""
    cfg = config_mod.load(run / "config.yaml")
    checkpoint = newest_checkpoint(run)
    if checkpoint is None:
        raise FileNotFoundError(f"{run}: no checkpoint (checkpoints/iter_*); is it a run folder made by kc train?")
    state = json.loads(checkpoint.with_suffix(".json").read_text())
    rules = cfg.rules_object()
    command = (run / "command.txt").read_text().strip() if (run / "command.txt").is_file() else None
    card = {"training_steps": int(state["env_steps"]), "training_iterations": int(state["iteration"]),
            "config": cfg.to_dict(), "command": command}
    with staged(folder) as stage:
        export_checkpoint(checkpoint, stage, card, rules, cfg.num_players)
    return folder, record_evaluation(run, folder, rules, cfg.num_players, against, deals, seed, progress)
