"""An agent to score: a spec that ``kc_env.agents.load`` knows, an ``Agent`` object, or a user's
own class, named ``module:Class`` (an importable module) or ``path/to/file.py:Class`` (a file
anywhere). The class subclasses ``kc_env.agents.Agent``; it is made with ``Class(seed=seed)`` when
its ``__init__`` takes ``seed``, else ``Class()``; it must take ``reset(seed=...)`` and be
copyable (``copy.deepcopy``: each seat and worker plays a copy). Loading a file runs its code: name only files
you trust (the web table never loads one).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

from ..agents import RULE_BASED, Agent, load

_CLASS_SPEC = re.compile(r"^(?P<module>.+):(?P<cls>[A-Za-z_][A-Za-z0-9_]*)$")


def is_class_spec(spec: str) -> bool:
    """Whether ``spec`` names a user's class (``module:Class`` or ``file.py:Class``), not a
    built-in spec such as ``search:redeals=4`` (whose part after the colon is no class name)."""
    found = _CLASS_SPEC.match(spec)
    if not found:
        return False
    module = found["module"]
    return module.endswith(".py") or re.fullmatch(r"[A-Za-z_][\w.]*", module) is not None


def _module_of(name: str):
    if not name.endswith(".py"):
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            raise ValueError(f"cannot import module {name!r}: {exc}") from None
    path = Path(name).resolve()
    if not path.is_file():
        raise ValueError(f"no agent file {name!r}")
    module_name = "kc_env_submission_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # so that copies and worker processes find its classes
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ValueError(f"{name}: {type(exc).__name__}: {exc}") from None
    return module


def load_class(spec: str, seed: int | None = None) -> Agent:
    """The agent of a ``module:Class`` or ``file.py:Class`` spec (see the module docstring)."""
    found = _CLASS_SPEC.match(spec)
    if not found:
        raise ValueError(f"{spec!r} is not module:Class or path.py:Class")
    module = _module_of(found["module"])
    if not hasattr(module, found["cls"]):
        raise ValueError(f"{spec}: {found['module']} has no {found['cls']}{_agent_classes(module)}"
                         f"{_standard_library(found['module'], found['cls'])}")
    cls = getattr(module, found["cls"])
    if not (inspect.isclass(cls) and issubclass(cls, Agent)):
        raise ValueError(f"{spec}: {found['cls']} is not a class that subclasses kc_env.agents.Agent")
    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
        agent = cls(seed=seed) if takes_seed else cls()
    except Exception as exc:  # the user's own code, or an abstract class
        raise ValueError(f"{spec}: making the agent raised {type(exc).__name__}: {exc}") from None
    if agent.spec == Agent.spec:  # a class that names no spec goes by the one it was loaded by
        agent.spec = spec
    try:
        agent.reset(seed=seed)
    except Exception as exc:
        raise ValueError(f"{spec}: reset(seed={seed}) raised {type(exc).__name__}: {exc}") from None
    try:
        copy.deepcopy(agent)
    except Exception as exc:
        raise ValueError(f"{spec}: the agent cannot be copied (each seat plays a copy): "
                         f"{type(exc).__name__}: {exc}") from None
    return agent


def _standard_library(name: str, cls: str) -> str:
    """What to say when ``name`` is a module of Python's standard library, which a user's own
    module of that name (``random.py``) does not shadow: give the file instead."""
    if name.split(".")[0] not in sys.stdlib_module_names:
        return ""
    return (f" ({name} is Python's standard library module; for your own {name.replace('.', '/')}.py, "
            f"give its file: {name.replace('.', '/')}.py:{cls})")


def _agent_classes(module) -> str:
    """`` (its Agent classes: A, B)`` for the ``Agent`` subclasses ``module`` defines, else ``""``."""
    names = [name for name, obj in vars(module).items() if inspect.isclass(obj) and issubclass(obj, Agent)
             and obj is not Agent and obj.__module__ == module.__name__]
    return f" (its Agent classes: {', '.join(names)})" if names else ""


def check_agent(spec: object) -> None:
    """``TypeError`` in one line unless ``spec`` is an agent spec (a string) or an ``Agent``."""
    if not isinstance(spec, (str, Agent)):
        raise TypeError(f"agent must be an agent spec (a string) or a kc_env.agents.Agent, not {spec!r}")


def load_any(spec: str | Agent, seed: int | None = None) -> Agent:
    """The agent of any spec a ``kc`` command takes: a user's class (``module:Class``,
    ``file.py:Class``) made by ``load_class``, anything else by ``kc_env.agents.load``. The one
    loader of the commands; ``kc_env.agents.load`` itself never runs a user's file (the web table
    loads with it)."""
    return load_class(spec, seed=seed) if _names_a_class(spec) else load(spec, seed=seed)


def entry(spec: str | Agent) -> str | Agent:
    """What a tournament seats for ``spec``: a user's class made once here (its worker processes
    copy it), else the spec itself (each worker loads it), checked here so a bad one fails in one
    line before any deal."""
    check_agent(spec)
    agent = load_any(spec, seed=0)
    return agent if _names_a_class(spec) else spec


def _names_a_class(spec: str | Agent) -> bool:
    return isinstance(spec, str) and is_class_spec(spec) and not _is_builtin(spec)


def _is_builtin(spec: str) -> bool:
    """``heuristic:...`` and ``search:...`` are built-in specs whatever follows the colon; so are
    ``greedy:...`` and ``random:...`` (``load`` says they take no options) unless a module of that
    name can be imported (``random:Foo`` reads as Python's ``random``, and ``_standard_library`` says so)."""
    name = spec.split(":", 1)[0]
    return name in ("heuristic", "search") or name in RULE_BASED and importlib.util.find_spec(name) is None


def label(spec: str | Agent) -> str:
    """How a scorecard names the agent."""
    return spec if isinstance(spec, str) else getattr(spec, "label", None) or spec.spec
