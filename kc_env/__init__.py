"""kc_env: Kings in the Corner as a reinforcement-learning environment.

The rules engine (``kc_env.engine``) imports no RL library; ``import kc_env`` works without
torch, PettingZoo or Gymnasium installed.

Importing kc_env registers its envs, as Gymnasium 1.x's third-party envs do (ALE's ``ale_py``,
MiniGrid): ``KingsCorner-v0`` in Gymnasium's registry and ``kc_env/kings_corner_v0`` in
PettingZoo's. ``gymnasium.make("kc_env:KingsCorner-v0")`` imports kc_env itself; after ``import
kc_env`` (``gymnasium.register_envs(kc_env)`` keeps that import from looking unused),
``gymnasium.make("KingsCorner-v0")``. Nothing is registered before kc_env is imported.
"""

from . import actions, cards, engine, observation, rewards
from .engine import IllegalMove, PositionError
from .game_info import GAME_INFO, GameInfo
from .rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"
__all__ = ["Rules", "RulesError", "PRESETS", "IllegalMove", "PositionError", "engine", "cards", "__version__",
           "actions", "observation", "rewards", "GAME_INFO", "GameInfo"]

GYMNASIUM_ENVS = (
    {"id": "KingsCorner-v0", "entry_point": "kc_env.gym_env:KingsCornerEnv",
     "vector_entry_point": "kc_env.vector:make_vector_env"},
)
"""The keyword arguments of ``gymnasium.register`` for each of kc_env's Gymnasium envs: their one
declaration."""

PETTINGZOO_ENVS = {
    "kc_env/kings_corner-v0": "kc_env.kings_corner_v0:env",  # PettingZoo's namespace/name-vN
    "kc_env/KingsCorner-v0": "kc_env.kings_corner_v0:env",  # the same env under the Gymnasium id's name
}
"""PettingZoo AEC id -> entry point (``pettingzoo.make("aec", id)``, PettingZoo 1.27+)."""


def _register() -> None:
    """Add each env to the registries of the Gymnasium and PettingZoo installed, each id that is
    not there yet (so importing kc_env again, or reloading it, changes nothing)."""
    try:  # Gymnasium is a core dependency, but the engine stays importable without it
        import gymnasium
    except ImportError:  # pragma: no cover
        gymnasium = None
    for env in GYMNASIUM_ENVS if gymnasium is not None else ():
        if env["id"] not in gymnasium.registry:
            gymnasium.register(**env)
    try:
        from pettingzoo import aec_registry
        from pettingzoo import register as pz_register
    except ImportError:  # pragma: no cover - no PettingZoo, or one older than its registry
        return
    for env_id, entry_point in PETTINGZOO_ENVS.items():
        if env_id not in aec_registry:
            pz_register("aec", env_id, entry_point=entry_point)


_register()
