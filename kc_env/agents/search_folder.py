"""A search spec saved as a model folder: ``model.json`` alone, so that a tuned search
(``search_agent``) loads by name like an exported model (``agents.load``) and says when it plays
at another table.

The card holds ``format`` ``kc_env-search``, its ``format_version``, the ``spec`` and the table it
was set for (``num_players``, ``rules``), and whatever else its writer adds (``kc export SPEC
FOLDER`` adds its evaluation). ``read_card`` checks it (format and version, a search spec, the
table) and ``load`` the spec's options as it makes the agent; either refuses a bad card in one
line naming the file (``model_folder.ModelError``). Nothing in it is executed, and nothing is
unpickled.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import model_folder as folders
from .model_folder import CARD_FILE, ModelError, check_table
from .search_agent import PREFIX, SEARCH, SearchAgent

FORMAT, FORMAT_VERSION = folders.SEARCH.card_format, folders.SEARCH.version
"""A search model folder's card: its format and the version this package reads (``model_folder.SEARCH``)."""


def is_search_folder(folder: str | Path) -> bool:
    """Whether ``folder`` holds a search model (its card names the format)."""
    return folders.format_of(folder) is folders.SEARCH


def read_card(folder: str | Path) -> dict[str, Any]:
    """The checked card of a search model folder: its format and version, a ``spec`` that is a
    search spec, and its table; ``ModelError`` names what is wrong. The spec's options are checked
    where the agent is made from them (``load``), once."""
    path, card = folders.versioned_card(Path(folder), folders.SEARCH, "a search model folder holds it")
    spec = card.get("spec")
    if not isinstance(spec, str) or not (spec == SEARCH or spec.startswith(PREFIX)):
        raise ModelError(f"{path}: 'spec' must be a search spec (search or search:name=value,...), not {spec!r}"[:300])
    check_table(card, path)
    return card


def save(folder: str | Path, spec: str, num_players: int, rules: Mapping[str, Any],
         card: Mapping[str, Any] | None = None) -> Path:
    """Write a search model folder for ``spec`` set for ``num_players`` and ``rules`` (a
    ``Rules.to_dict``), with more of the card (e.g. its evaluation); ``spec`` is checked first
    (``ValueError``), the card written whole or not at all."""

    SearchAgent.from_spec(spec)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    full = {"format": FORMAT, "format_version": FORMAT_VERSION, "spec": spec, "num_players": int(num_players),
            "rules": dict(rules), **(card or {})}
    folders.write_card(folder, full)
    return folder


def load(folder: str | Path, seed: int | None = None, spec: str | None = None) -> SearchAgent:
    """The search agent of a search model folder (``read_card``), named ``spec`` (default the
    folder), with its ``card`` and ``folder`` as an exported model has them."""
    card = read_card(folder)
    try:
        agent = SearchAgent.from_spec(card["spec"], seed=seed)
    except ValueError as exc:
        raise ModelError(f"{Path(folder) / CARD_FILE}: {exc}") from None
    agent.spec, agent.folder, agent.card = spec or str(folder), Path(folder), card
    return agent


load_agent = load
"""What ``model_folder.Format.load`` calls."""


__all__ = ["FORMAT", "FORMAT_VERSION", "CARD_FILE", "ModelError", "is_search_folder", "read_card", "save", "load",
           "load_agent"]
