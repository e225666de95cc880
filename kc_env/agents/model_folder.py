"""Model folders: the one reader of ``model.json`` cards and ``weights.npz`` arrays, the one
``ModelError``, and the registry of the formats a model folder may hold (DESIGN.md, Agents).

A model folder holds its card, ``model.json`` (JSON: ``format``, ``format_version``, what the
model needs, the table it was made for, its evaluation), and for a network ``weights.npz``
(plain float arrays). The card's ``format`` names its entry in ``FORMATS``:

=============  =======================  ==================================  ====================
name           card ``format``          reader (``read_card``, ``load``)     files
=============  =======================  ==================================  ====================
``policy``     ``kc_env.policy``        ``policy_model``                     card, weights
``turn_value`` ``kc_env-turn-value``    ``turn_value``                       card, weights
``search``     ``kc_env-search``        ``search_folder``                    card
=============  =======================  ==================================  ====================

``agents.load``, the web table (``kc serve``) and ``kc export`` ask the registry
(``format_of``, ``identify``, ``read_card``, ``load``) instead of comparing format names; a new
format is one ``Format`` here and a module with ``read_card(folder)`` and
``load_agent(folder, seed=None, spec=None)``. The format modules are imported only when a folder
of theirs is read.

What is read is capped before it is read: a card at ``MAX_CARD_BYTES``; each format caps its
weights file and its arrays' total (from the shapes its card declares, summed before any array is
read; ``check_size``, ``check_total``). ``read_arrays`` reads only the arrays asked for, checks
each ``.npy`` header (format, dtype, shape) before its data, never unpickles (an object array is
refused, as ``numpy.load(allow_pickle=False)`` would), and returns finite float32 arrays. Every
fault is a ``ModelError``: one line naming the file and what is wrong.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .base import Agent

CARD_FILE = "model.json"
WEIGHTS_FILE = "weights.npz"
MAX_CARD_BYTES = 1 << 20
"""The largest ``model.json`` read, of any format (a card is a few kilobytes)."""


class ModelError(ValueError):
    """A model folder that cannot be used; the message says what is wrong and where. The one
    class of it in kc_env (``kc_env.agents.ModelError``)."""


@dataclass(frozen=True)
class Format:
    """One format of model folder: its ``name``, the ``format`` and ``format_version`` its card
    names, the module that reads it (``read_card(folder)``: the checked card, weights unread;
    ``load_agent(folder, seed=None, spec=None)``: the agent, everything checked), the files a
    folder of it holds, and what the web table calls it (``about``)."""

    name: str
    card_format: str
    version: int
    module: str
    files: tuple[str, ...]
    about: str

    def reader(self):
        """The module that reads this format (imported now)."""
        return importlib.import_module(self.module)

    def read_card(self, folder: str | Path) -> dict[str, Any]:
        """The checked card of a folder of this format (its weights unread)."""
        return self.reader().read_card(folder)

    def load(self, folder: str | Path, seed: int | None = None, spec: str | None = None) -> Agent:
        """The agent of a folder of this format, named ``spec`` (default the folder)."""
        return self.reader().load_agent(folder, seed=seed, spec=spec)


POLICY = Format("policy", "kc_env.policy", 1, "kc_env.agents.policy_model", (CARD_FILE, WEIGHTS_FILE),
                "an exported model")
TURN_VALUE = Format("turn_value", "kc_env-turn-value", 1, "kc_env.agents.turn_value", (CARD_FILE, WEIGHTS_FILE),
                    "an exported model")
SEARCH = Format("search", "kc_env-search", 1, "kc_env.agents.search_folder", (CARD_FILE,),
                "a search saved as a model (slower)")
FORMATS: dict[str, Format] = {f.name: f for f in (POLICY, TURN_VALUE, SEARCH)}
"""Every format a model folder may hold, by name."""
MODEL_FILES = frozenset(name for f in FORMATS.values() for name in f.files)
"""What a model folder of any format may hold."""


# -- which format ---------------------------------------------------------------------------------
def card_format(folder: str | Path) -> str | None:
    """The ``format`` that ``folder``'s card names, or None (no card, larger than
    ``MAX_CARD_BYTES``, not JSON, no format): never raising."""
    path = Path(folder) / CARD_FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_CARD_BYTES:
            return None
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return card.get("format") if isinstance(card, dict) else None


def format_of(folder: str | Path) -> Format | None:
    """The registered format of ``folder``'s card, or None when it has no readable card of one
    (never raising: how a caller tells model folders from other folders)."""
    name = card_format(folder)
    return next((f for f in FORMATS.values() if f.card_format == name), None)


def _no_card_hint(folder: Path) -> str:
    """What a folder without a card should hold, or, for a ``kc train`` run folder that holds its
    model in ``model/`` (a turn-value or turn-PPO run), where that model is."""
    if (folder / "model" / CARD_FILE).is_file():
        return f"a kc train run folder: its model is {folder / 'model'}"
    return f"an exported model holds its card, {CARD_FILE}, and {WEIGHTS_FILE} for a network"


def identify(folder: str | Path) -> Format:
    """The format of the model folder ``folder``; ``ModelError`` naming the fault when it is not
    one (not a folder, no card, a card too large or not JSON, a format kc_env does not know)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: not an exported model folder (it should hold {CARD_FILE}, and {WEIGHTS_FILE} "
                         "for a network)")
    path = folder / CARD_FILE
    if not path.is_file():
        raise ModelError(f"{folder}: no {CARD_FILE} ({_no_card_hint(folder)})")
    card = card_json(path)
    name = card.get("format") if isinstance(card, dict) else None
    for fmt in FORMATS.values():
        if fmt.card_format == name:
            return fmt
    known = ", ".join(f.card_format for f in FORMATS.values())
    raise ModelError(f"{path}: not a kc_env model card (its format is {str(name)[:60]!r}; known formats: {known})")


def read_card(folder: str | Path) -> dict[str, Any]:
    """The checked card of the model folder ``folder``, of whichever format (weights unread)."""
    return identify(folder).read_card(folder)


def load(folder: str | Path, seed: int | None = None, spec: str | None = None) -> Agent:
    """The agent of the model folder ``folder``, of whichever format, named ``spec`` (default the
    folder); ``ModelError`` naming the fault of a bad one."""
    return identify(folder).load(folder, seed=seed, spec=spec)


# -- where models are -----------------------------------------------------------------------------
def shipped_models() -> dict[str, Path]:
    """The exported models that ship in the package (``kc_env.models``: the repository's
    ``models/``, installed as package data), name -> folder."""
    from importlib.resources import files

    root = Path(str(files("kc_env.models")))
    return {p.name: p for p in sorted(root.iterdir()) if (p / CARD_FILE).is_file()}


def is_model_folder(spec: str) -> bool:
    """Whether ``spec`` names a folder (that may be a model: ``identify`` says); an empty spec
    names none (not the current folder), nor one the system cannot look up (a name too long)."""
    if not spec:
        return False
    try:
        return (Path(spec) / CARD_FILE).is_file() or Path(spec).is_dir()
    except OSError:
        return False


def model_folder(spec: str) -> Path | None:
    """The model folder ``spec`` names: the folder ``spec`` when it is one (a path wins), else the
    shipped model of that name (``ppo-standard-2p``), else ``None``."""
    if is_model_folder(spec):
        return Path(spec)
    return shipped_models().get(spec)


def models_table(models: Mapping[str, Path] | None = None) -> str:
    """The README's table of the shipped models (``models``: name -> folder, default
    ``shipped_models()``), made from their cards alone: each model's win share against the
    heuristic and against random, the heuristic's against random at the same table, the deals
    and the seed of its card's evaluation (whose ``command`` made them); a card without an
    evaluation says so. tests/test_model_cards.py holds the README equal to it."""
    lines = ["| model | kind | players | vs heuristic | vs random | the heuristic vs random | deals | seed |",
             "|---|---|---|---|---|---|---|---|"]
    for name, folder in (shipped_models() if models is None else models).items():
        card, fmt = read_card(folder), identify(folder)
        players = card.get("num_players")
        evaluation = card.get("evaluation")
        if card.get("tables"):  # trained at several: its figures are at the table it was evaluated at
            fair_shares = {r.get("fair_share") for r in (evaluation or {}).get("results", [])}
            players = round(1 / fair_shares.pop()) if len(fair_shares) == 1 and None not in fair_shares else None
            seats = sorted({t["num_players"] for t in card["tables"]})
            cell = f"{seats[0]}-{seats[-1]} ({len(card['tables'])} tables)" + (f", figures at {players}" if players else "")
        else:
            cell = f"{players}"
        head = f"| `models/{name}` | {fmt.name.replace('_', '-')} | {cell} |"
        if not evaluation:
            lines.append(head + " no evaluation in its card | | | | |")
            continue
        rows = {(r["player"], r["opponent"]): r for r in evaluation["results"]}
        fair = f" (fair {1 / players:.2f})" if players and players != 2 else ""
        against_heuristic = _share(rows.get(("model", "heuristic")), fair)
        deals = {r["deals"] for r in evaluation["results"]}
        words = evaluation["command"].split()
        seed = words[words.index("--seed") + 1] if "--seed" in words[:-1] else "?"
        lines.append(f"{head} {against_heuristic} | {_share(rows.get(('model', 'random')))} | "
                     f"{_share(rows.get(('heuristic', 'random')))} | {', '.join(f'{d:,}' for d in sorted(deals))} | "
                     f"{seed} |")
    return "\n".join(lines)


def _share(row: Mapping[str, Any] | None, fair: str | None = None) -> str:
    """A card's evaluation row as the table shows it: the win share, with its interval and the
    fair share (``fair``, when not None)."""
    if row is None:
        return "not evaluated"
    low, high = row["share_interval"]
    return f"{row['win_share']:.3f}" + (f" [{low:.3f}, {high:.3f}]{fair}" if fair is not None else "")


# -- the card -------------------------------------------------------------------------------------
def write_card(folder: Path, card: Mapping[str, Any]) -> None:
    """Write ``card`` as ``folder``'s ``model.json`` (atomically), as strict JSON: a NaN or an
    infinity, which Python's json would write and other tools' parsers refuse, is refused here."""
    from ..files import write_atomic

    try:
        text = json.dumps(card, indent=2, allow_nan=False)
    except ValueError as exc:
        raise ModelError(f"{folder / CARD_FILE}: the card holds a number that is not JSON (NaN or infinity): {exc}") from None
    write_atomic(folder / CARD_FILE, text + "\n")


def card_json(path: Path) -> Any:
    """The JSON of the card ``path`` (an existing file), unchecked; ``ModelError`` when it is
    larger than ``MAX_CARD_BYTES`` (refused unread) or not JSON."""
    size = path.stat().st_size
    if size > MAX_CARD_BYTES:
        raise ModelError(f"{path}: {size:,} bytes, more than a model card holds ({MAX_CARD_BYTES:,})")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # ValueError: JSON, or a 5,000-digit number
        raise ModelError(f"{path}: corrupt model card, not valid JSON ({str(exc)[:200]})") from None


def versioned_card(folder: Path, fmt: Format, holds: str) -> tuple[Path, dict[str, Any]]:
    """The path and JSON of ``folder``'s card, checked to be a card of ``fmt`` at its version
    (``holds``: what such a folder holds, for the message when it has no card)."""
    path = Path(folder) / CARD_FILE
    kind = fmt.name.replace("_", "-") + " model"
    if not path.is_file():
        raise ModelError(f"{folder}: no {CARD_FILE} ({holds})")
    card = card_json(path)
    if not isinstance(card, dict) or card.get("format") != fmt.card_format:
        raise ModelError(f"{path}: not a {kind} card (format should be {fmt.card_format!r})")
    if card.get("format_version") != fmt.version:
        raise ModelError(f"{path}: {kind} format version {card.get('format_version')!r}; "
                         f"this kc_env reads version {fmt.version}")
    return path, card


MAX_TABLES = 256
"""The most tables a card may list (``tables``)."""


def check_table(card: Mapping[str, Any], path: Path) -> None:
    """Refuses a card whose table, the players and rules it was made for (``num_players``,
    ``rules``; each may be absent), is not valid; or whose ``tables``, the tables of a model
    trained at several (each a mapping of ``num_players`` and ``rules``, and a ``name``), are not."""
    tables = card.get("tables")
    if tables is not None:
        if not isinstance(tables, list) or not 1 <= len(tables) <= MAX_TABLES:
            raise ModelError(f"{path}: tables, the tables it was trained for, must list 1 to {MAX_TABLES} tables")
        for i, table in enumerate(tables):
            if not isinstance(table, Mapping) or table.get("num_players") is None or table.get("rules") is None:
                raise ModelError(f"{path}: tables[{i}] must hold the num_players and rules it was trained for")
            _check_one_table(table, f"{path}: tables[{i}]")
    _check_one_table(card, str(path))


def _check_one_table(card: Mapping[str, Any], where: str) -> None:
    players = card.get("num_players")
    if players is not None and (type(players) is not int or players not in range(2, 7)):  # not 2.0, not True
        raise ModelError(f"{where}: num_players, the players it was trained for, must be 2 to 6, not {players!r}")
    if card.get("rules") is not None:
        from ..rules import Rules, RulesError

        try:
            Rules.from_dict(card["rules"])
        except (RulesError, TypeError, AttributeError) as exc:
            raise ModelError(f"{where}: the rules it was trained for are not valid: {exc}") from None


def tables_differences(card: Mapping[str, Any], rules, num_players: int) -> list[str]:
    """How a table of ``rules`` (a ``Rules``) and ``num_players`` differs from every table a model
    trained at several (its checked card's ``tables``) was trained for: the player count when none
    had it, then each rule variant whose value here none of the tables at this player count had (or
    none of them at all, when no table had this count), as ``name: trained values → here``. Empty
    when every part of the table was trained at this player count (each preset at 2 to 6 players:
    every combination of their variants); a model trained at pagat with 4 players and at standard
    with 2 is not at home at pagat with 2."""
    from ..rules import Rules

    players = sorted({t["num_players"] for t in card["tables"]})
    out = [] if num_players in players else [f"players: {', '.join(map(str, players))} → {num_players}"]
    alike = [t for t in card["tables"] if t["num_players"] == num_players] or card["tables"]
    seen: dict[str, list] = {}
    for table in alike:
        for name, value in Rules.from_dict(table["rules"]).to_dict().items():
            if value not in seen.setdefault(name, []):
                seen[name].append(value)
    here = rules.to_dict()
    return out + [f"{name}: {' / '.join(map(str, seen[name]))} → {here[name]}" for name in here
                  if here[name] not in seen.get(name, [])]


def trained_for(card: Mapping[str, Any]) -> str | None:
    """The table a checked card says it was trained for, in words (``for 2 players``, ``for 35
    tables: 7 rule sets at 2 to 6 players``, or ``for 29 tables: 7 rule sets at 3 to 6 players, 1
    at 2`` when the player counts had different rule sets), or None when it does not say."""
    tables = card.get("tables")
    if tables:
        sets: dict[int, set] = {}
        for t in tables:
            sets.setdefault(t["num_players"], set()).add(str(t.get("name", "")).rsplit("-", 1)[0])
        by_count: dict[int, list[int]] = {}
        for n in sorted(sets):
            by_count.setdefault(len(sets[n]), []).append(n)
        parts = [f"{k} rule set{'s' * (k > 1)} at {_span(players)}" for k, players in
                 sorted(by_count.items(), reverse=True)]
        return f"for {len(tables)} tables: {parts[0]} players" + "".join(f", {p}" for p in parts[1:])
    players = card.get("num_players")
    return f"for {players} players" if players else None


def _span(players: list[int]) -> str:
    """Sorted player counts in words: ``2 to 6`` when they run on, else ``2, 4``."""
    return f"{players[0]} to {players[-1]}" if len(players) > 1 and players == list(range(players[0], players[-1] + 1)) \
        else ", ".join(map(str, players))


# -- the weights ----------------------------------------------------------------------------------
def check_size(path: Path, max_bytes: int) -> None:
    """Refuses ``path`` (an existing file) larger than ``max_bytes``, unread."""
    size = path.stat().st_size
    if size > max_bytes:
        raise ModelError(f"{path}: {size:,} bytes, more than the {max_bytes:,} a model may hold")


def check_total(card_path: Path, shapes: Mapping[str, tuple[int, ...]], max_bytes: int) -> None:
    """Refuses a card whose arrays (``shapes``) would hold more than ``max_bytes`` as float32,
    before any is read."""
    total = 4 * sum(int(np.prod(shape)) for shape in shapes.values())
    if total > max_bytes:
        raise ModelError(f"{card_path}: the network's arrays would hold {total:,} bytes as float32, "
                         f"more than the {max_bytes:,} a model may hold")


def read_weights(folder: Path, shapes: Mapping[str, tuple[int, ...]], max_bytes: int,
                 dtypes: tuple[str, ...] = ("float32", "float64"), holds: str = "") -> dict[str, np.ndarray]:
    """The arrays ``shapes`` names from ``folder``'s weights file, every cap checked first: the file
    is there (``holds`` says what the format keeps, for the error), at most ``max_bytes``, the card's
    arrays no larger in total (``check_total``), then ``read_arrays``."""
    path = folder / WEIGHTS_FILE
    if not path.is_file():
        raise ModelError(f"{folder}: no {WEIGHTS_FILE}{f' ({holds})' if holds else ''}")
    check_size(path, max_bytes)
    check_total(folder / CARD_FILE, shapes, max_bytes)
    return read_arrays(path, shapes, max_bytes, dtypes)


def read_arrays(path: Path, shapes: Mapping[str, tuple[int, ...]], max_bytes: int,
                dtypes: tuple[str, ...] = ("float32", "float64")) -> dict[str, np.ndarray]:
    """The arrays ``shapes`` names from the ``.npz`` ``path``, as finite float32: each member's
    size (at most ``max_bytes`` decompressed) and ``.npy`` header (a dtype among ``dtypes``, the
    shape asked) checked before its data is read; nothing else in the archive is decompressed,
    nothing is unpickled. A path that is not a regular file (missing, a FIFO that would wait, a
    device) is refused unopened."""
    if not Path(path).is_file():
        raise ModelError(f"{path}: not a file (weights are an .npz file)")
    out = {}
    try:
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()}
            missing = [name for name in shapes if f"{name}.npy" not in members]
            if missing:
                raise ModelError(f"{path}: missing arrays {', '.join(missing)}")
            for name, shape in shapes.items():
                info = members[f"{name}.npy"]
                if info.file_size > max_bytes:
                    raise ModelError(f"{path}: array {name} is {info.file_size:,} bytes decompressed, too large")
                with archive.open(info) as f:
                    out[name] = _read_array(f, name, tuple(shape), path, dtypes)
    except ModelError:
        raise
    except zipfile.BadZipFile:
        raise ModelError(f"{path}: corrupt weights file (not an .npz archive of arrays)") from None
    except (OSError, EOFError, ValueError, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise ModelError(f"{path}: corrupt weights file ({type(exc).__name__}: {str(exc)[:200]})") from None
    return out


def _read_array(f, name: str, shape: tuple[int, ...], path: Path, dtypes: tuple[str, ...]) -> np.ndarray:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(f)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(version)
        read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        got_shape, fortran, dtype = read_header(f)
    except ValueError:
        raise ModelError(f"{path}: array {name} is not stored in the .npy format (1.0 or 2.0)") from None
    if dtype.hasobject:
        raise ModelError(f"{path}: array {name} holds pickled objects; refusing to unpickle "
                         "(weights must be plain arrays)")
    if dtype.kind != "f" or dtype.name not in dtypes:
        raise ModelError(f"{path}: array {name} is {dtype}, not {' or '.join(dtypes)}")
    if tuple(got_shape) != shape:
        raise ModelError(f"{path}: array {name} has shape {tuple(got_shape)}, expected {shape}")
    count = int(np.prod(shape))
    data = f.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise ModelError(f"{path}: array {name} is cut short")
    array = np.frombuffer(data, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")
    with np.errstate(over="ignore"):  # 1e300 as float64 is inf as float32: refused below
        array = np.ascontiguousarray(array, dtype=np.float32)
    if not np.all(np.isfinite(array)):
        raise ModelError(f"{path}: array {name} is not finite floating point data")
    return array


__all__ = ["CARD_FILE", "WEIGHTS_FILE", "MAX_CARD_BYTES", "MODEL_FILES", "ModelError", "Format", "FORMATS",
           "POLICY", "TURN_VALUE", "SEARCH", "card_format", "format_of", "identify", "read_card", "load", "write_card",
           "shipped_models", "is_model_folder", "model_folder", "models_table", "card_json", "versioned_card", "check_table",
           "MAX_TABLES", "tables_differences", "trained_for",
           "check_size", "check_total", "read_arrays"]
