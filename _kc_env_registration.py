"""kc_env's id in Gymnasium's registry, declared once, and the hook that registers it whenever
Gymnasium is imported, so that ``gymnasium.make("KingsCorner-v0")`` works in a script that never
imports kc_env.

Gymnasium 1.x has no plugin discovery (its ``gymnasium.envs`` entry points went in 1.0:
Farama-Foundation/Arcade-Learning-Environment#487), and ``kc_env/__init__`` registers the id only
once kc_env is imported. So ``kc_env.pth``, which the wheel and ``pip install -e .`` install into
site-packages (setup.py, ``build_pth``), puts a finder first on ``sys.meta_path`` at every
interpreter start. That finder finds nothing itself; when ``gymnasium`` is imported it imports
this module and returns :func:`find_spec`'s answer: Gymnasium's own spec, whose loader, once
Gymnasium has loaded, adds the id with its entry points as strings (:func:`register`). kc_env
itself is imported only by ``gymnasium.make``.

The finder is written in the ``.pth`` line itself and this module is imported only with Gymnasium:
an interpreter that does not import Gymnasium compiles no module for kc_env. Top-level, not inside
kc_env: importing ``kc_env.anything`` runs ``kc_env/__init__`` (the engine, numpy, Gymnasium).
Every error of the hook is swallowed, so a broken kc_env install never breaks an interpreter or
``import gymnasium`` (``gymnasium.make("kc_env:KingsCorner-v0")`` then shows the real error).
``kc_env/__init__`` registers with the same declaration; registering twice changes nothing.
"""

GYMNASIUM_ENVS = (
    {"id": "KingsCorner-v0", "entry_point": "kc_env.gym_env:KingsCornerEnv",
     "vector_entry_point": "kc_env.vector:make_vector_env"},
)
"""The keyword arguments of ``gymnasium.register`` for each of kc_env's envs."""


def register(gymnasium) -> None:
    """Register kc_env's envs in ``gymnasium``'s registry, each one that is not there yet."""
    for env in GYMNASIUM_ENVS:
        if env["id"] not in gymnasium.registry:
            gymnasium.register(**env)


class _RegisterOnceLoaded:
    """Gymnasium's own loader, followed by :func:`register` once the module has run."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def __getattr__(self, name):  # get_code, get_source, is_package...: for importlib.util.find_spec's callers
        if name == "loader":
            raise AttributeError(name)
        return getattr(self.loader, name)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader  # importlib.resources, inspect ask it
        self.loader.exec_module(module)  # Gymnasium's own errors are its own: not caught here
        try:
            register(module)
        except Exception:  # noqa: BLE001 - a broken kc_env must not break import gymnasium
            pass


_finding = False
"""True while :func:`find_spec` asks the other finders (the import lock is held meanwhile)."""


def find_spec(name: str):
    """The spec the other finders give for ``name`` (``"gymnasium"``), its loader followed by
    :func:`register`; None when the search comes back here, or fails (the import system then asks
    the other finders itself, as if the hook were not there)."""
    global _finding
    if _finding:
        return None
    _finding = True
    try:
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisterOnceLoaded(spec.loader)
        return spec
    except Exception:  # noqa: BLE001
        return None
    finally:
        _finding = False
