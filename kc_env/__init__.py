"""kc_env: Kings in the Corner as a reinforcement-learning environment.

The rules engine (``kc_env.engine``) imports no RL library; ``import kc_env`` works without
torch, PettingZoo or Gymnasium installed.
"""

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
if _gymnasium is not None and "KingsCorner-v0" not in _gymnasium.registry:
    _gymnasium.register(id="KingsCorner-v0", entry_point="kc_env.gym_env:KingsCornerEnv",
                        vector_entry_point="kc_env.vector:make_vector_env")
