"""kc_env: Kings in the Corner as a reinforcement-learning environment.

The rules engine (``kc_env.engine``) imports no RL library; ``import kc_env`` works without
torch, PettingZoo or Gymnasium installed.
"""

from . import cards, engine
from .engine import IllegalMove, PositionError
from .rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"
__all__ = ["Rules", "RulesError", "PRESETS", "IllegalMove", "PositionError", "engine", "cards", "__version__"]
