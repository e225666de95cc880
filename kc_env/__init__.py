"""kc_env: Kings in the Corner as a reinforcement-learning environment.

The rules engine (``kc_env.engine``) imports no RL library; ``import kc_env`` works without
torch, PettingZoo or Gymnasium installed.
"""

import _kc_env_registration

from . import actions, cards, engine, observation, rewards
from .engine import IllegalMove, PositionError
from .game_info import GAME_INFO, GameInfo
from .rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"
__all__ = ["Rules", "RulesError", "PRESETS", "IllegalMove", "PositionError", "engine", "cards", "__version__",
           "actions", "observation", "rewards", "GAME_INFO", "GameInfo"]

try:  # Gymnasium is a core dependency, but the engine stays importable without it
    import gymnasium as _gymnasium
except ImportError:  # pragma: no cover
    _gymnasium = None
if _gymnasium is not None:  # KingsCorner-v0; kc_env.pth has registered it already when installed
    _kc_env_registration.register(_gymnasium)

try:  # PettingZoo's registry (1.27+): pettingzoo.make("aec", "kc_env/kings_corner_v0")
    from pettingzoo import aec_registry as _aec_registry
    from pettingzoo import register as _pz_register
except ImportError:  # pragma: no cover - no PettingZoo, or one older than its registry
    _aec_registry = None
if _aec_registry is not None:
    for _id in ("kc_env/kings_corner-v0", "kc_env/KingsCorner-v0"):
        if _id not in _aec_registry:
            _pz_register("aec", _id, entry_point="kc_env.kings_corner_v0:env")
