"""Imports run one way (docs/DESIGN.md, Layers): cards -> rules -> engine -> match / encoding ->
agents -> envs / vector env / opponents -> CLI, and ``kc_env.training`` on top, imported by
nothing else in ``kc_env``.

Every module under ``kc_env/`` and ``training/`` (installed as ``kc_env.training``) is parsed
with ``ast``; an import counts wherever it is written, at module level or inside a function.
``from package import name`` counts as an import of ``package.name`` when that is a module, else
of ``package``. ``LAYERS`` puts each module in its layer: the longest dotted prefix listed wins,
and a module no prefix covers fails the test until it is given a layer.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"kc_env": ROOT / "kc_env", "kc_env.training": ROOT / "training"}
"""Package name -> the folder it is installed from (setup.py, pyproject.toml package-dir)."""

ORDER = ["cards", "rules", "engine", "match / encoding", "agents", "envs / vector env / opponents", "CLI",
         "training"]
"""The layers, lowest first: a module may import its own layer and those before it."""

LAYERS = {
    "kc_env.cards": "cards",
    "kc_env.files": "cards",  # write_atomic: imports nothing of kc_env
    "kc_env.rules": "rules",
    "kc_env.engine": "engine",
    "kc_env.invariants": "engine",  # the engine's own consistency checks
    "kc_env": "match / encoding",  # the package's front door: Rules, engine, actions, observation
    "kc_env.match": "match / encoding",
    "kc_env.actions": "match / encoding",
    "kc_env.options": "match / encoding",  # the envs' option checks, shared by the AEC, Gymnasium and vector envs
    "kc_env.observation": "match / encoding",
    "kc_env.record": "match / encoding",
    "kc_env.play": "match / encoding",  # the one loop that plays deals with agents
    "kc_env.render": "match / encoding",
    "kc_env.render_image": "match / encoding",
    "kc_env.full_state": "match / encoding",
    "kc_env.game_info": "match / encoding",
    "kc_env.rewards": "match / encoding",
    "kc_env.compiled": "match / encoding",  # the numba switch the compiled modules share
    "kc_env.vector.kernel": "match / encoding",  # the engine's compiled twin
    "kc_env.vector.game": "match / encoding",
    "kc_env.agents": "agents",
    "kc_env.vector": "envs / vector env / opponents",
    "kc_env.gym_env": "envs / vector env / opponents",
    "kc_env.kings_corner_v0": "envs / vector env / opponents",
    "kc_env.wrappers": "envs / vector env / opponents",
    "kc_env.rlcard": "envs / vector env / opponents",  # kings_corner_v0 as an RLCard env, and for its PettingZoo loops
    "kc_env.tournament": "envs / vector env / opponents",
    "kc_env.compare": "envs / vector env / opponents",
    "kc_env.benchmark": "envs / vector env / opponents",  # kc-bench: tasks, scoring (tournament) and training envs (gym_env)
    "kc_env.cli": "CLI",
    "kc_env.commands": "CLI",
    "kc_env.web": "CLI",  # kc serve's server: imports the engine, agents, match and records
    "kc_env.openspiel": "envs / vector env / opponents",  # the game for OpenSpiel, beside the envs (Rules.parse)
    "kc_env.training": "training",
}
"""Module (or package prefix) -> its layer. ``kc_env`` itself is the package's ``__init__``
only, not a prefix for the rest."""

KNOWN_BACK_EDGES: dict[tuple[str, str], str] = {
    # (importer, imported): why it is allowed for now. Empty: the last one, the batch dispatcher
    # circle agents.policies <-> vector.opponents, went with the split of policies.py.
}
"""Edges that break the order and are known, each with who removes it; they are left out of the
cycle check too, and the test warns once one no longer exists."""


def module_files() -> dict[str, Path]:
    """Every module of kc_env and kc_env.training: dotted name -> file."""
    out = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


MODULES = module_files()


def imports_of(name: str, path: Path) -> set[str]:
    """The kc_env modules (and ``training``, which no longer exists) that ``name`` imports."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target)
    out = set()
    for target in found:
        while target not in MODULES and "." in target:  # import kc_env.a.b.c of a function c
            target = target.rsplit(".", 1)[0]
        if target in MODULES or target.split(".")[0] == "training":
            out.add(target)
    return out - {name}


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer(module: str) -> str:
    if module == "kc_env":
        return LAYERS[module]
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        if ".".join(parts[:n]) in LAYERS:
            return LAYERS[".".join(parts[:n])]
    raise KeyError(module)


def test_every_module_has_a_layer():
    missing = []
    for name in MODULES:
        try:
            layer(name)
        except KeyError:
            missing.append(name)
    assert not missing, f"give these modules a layer in LAYERS (tests/test_layers.py): {missing}"


def test_no_module_imports_a_higher_layer():
    back = {(a, b) for a, targets in GRAPH.items() for b in targets
            if b in MODULES and ORDER.index(layer(b)) > ORDER.index(layer(a))}
    unexpected = sorted(f"{a} ({layer(a)}) imports {b} ({layer(b)})" for a, b in back - set(KNOWN_BACK_EDGES))
    assert not unexpected, "imports against the layer order:\n" + "\n".join(unexpected)
    gone = sorted(set(KNOWN_BACK_EDGES) - back)
    if gone:
        warnings.warn(f"known back edges that no longer exist, delete them from KNOWN_BACK_EDGES: {gone}", stacklevel=1)


def test_no_import_cycle():
    graph = {a: {b for b in targets if b in MODULES and (a, b) not in KNOWN_BACK_EDGES} for a, targets in GRAPH.items()}
    state: dict[str, int] = {}  # 1 on the path being walked, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (cycle := walk(start)):
            pytest.fail("import cycle: " + " -> ".join(cycle))


def test_the_vector_env_imports_no_aec_env():
    """The vector env and the AEC env sit in one layer and share their option checks through a
    module below both (``kc_env.options``), not by one importing the other."""
    offenders = sorted(a for a, targets in GRAPH.items() if a.startswith("kc_env.vector")
                       and "kc_env.kings_corner_v0" in targets)
    assert not offenders, f"import the shared checks from kc_env.options: {offenders}"


def test_kc_env_never_imports_training():
    offenders = sorted(f"{a} imports {b}" for a, targets in GRAPH.items() if layer(a) != "training"
                       for b in targets if b.startswith("kc_env.training") or b.split(".")[0] == "training")
    assert not offenders, offenders


def test_nothing_imports_the_old_top_level_training():
    offenders = sorted(f"{a} imports {b}" for a, targets in GRAPH.items() for b in targets if b.split(".")[0] == "training")
    assert not offenders, f"training/ installs as kc_env.training: {offenders}"


def test_no_command_imports_the_cli():
    """``kc_env.cli`` loads every command by its module's name (``COMMANDS``, the entry points),
    which the parse above does not see; a command importing ``kc_env.cli`` back would close a
    circle. What they share is in ``kc_env.commands.common``."""
    offenders = sorted(a for a, targets in GRAPH.items() if "kc_env.cli" in targets)
    assert not offenders, f"import kc_env.commands.common instead of kc_env.cli: {offenders}"


def test_the_parser_resolves_relative_imports():
    """A check of the checker: edges that are known to exist are found."""
    assert "kc_env.engine" in GRAPH["kc_env.actions"]  # from . import engine
    assert "kc_env.cards" in GRAPH["kc_env.engine"]  # from .cards import (...)
    assert "kc_env.training.config" in GRAPH["kc_env.training.sb3.train"]  # from .. import config as config_mod
    assert "kc_env.training.config" in GRAPH["kc_env.training.commands.train"]  # from .. import config, in a function
    assert "kc_env.commands.common" in GRAPH["kc_env.cli"]
