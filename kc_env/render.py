"""Text drawing of a position: the cross of piles, the stock, hands, scores and the last moves.

``render(state, viewer=seat)`` shows what that seat sees: its own hand, the other hands as card
counts. ``viewer=None`` shows every hand (for watching agents play, never for a person playing
against them). ``color=True`` paints red suits with ANSI escape codes. A pile of more than
``MAX_SHOWN`` cards is shortened to its two bottom cards, ``…``, its two top cards and its
length. A joker on a pile shows the card it stands for: ``JK(9r)`` is a joker standing for a red
9 (``b`` black, ``*`` no colour). Example (``pagat`` with two jokers, three players, seen by
``player_2``)::

    Kings in the Corner · pagat (jokers=2) · 3 players · player_2 to act

         NW JK(K*) Q♦                    N 9♥               NE K♣ Q♥ J♣ 10♥
          W A♣                       stock 12                E 10♦ 9♣ 8♦ 7♣ 6♥
         SW K♦ Q♠ J♥ 10♣ JK(9r) 8♠       S 5♥ 4♣ 3♥ 2♣      SE K♥ Q♣ J♦

    player_0        5 cards
    player_1        4 cards
    player_2 (you)  7 cards: 3♣ 8♣ 5♦ 4♥ A♠ 7♠ 10♠  ← to act
    scores: player_0 0 · player_1 0 · player_2 0 (target 25)
    last moves: player_1 play JD->SE · player_1 move N->E · player_1 play 9H->N · player_1 end turn
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import RANK_NAMES, card_name
from .engine import PILE_NAMES, GameState
from .rules import PRESETS, Rules

MAX_SHOWN = 6
MIN_WIDTH = 8  # narrowest pile column
LAST_MOVES = 6
RED_SUITS = "♥♦"
_RED, _RESET = "\x1b[31m", "\x1b[0m"
_CROSS = (("NW", "N", "NE"), ("W", None, "E"), ("SW", "S", "SE"))
_COLOUR_LETTER = {0: "b", 1: "r", -1: "*"}


def card_text(state: GameState, c: int, color: bool = False) -> str:
    """A card with suit symbols; a joker on a pile with the value it stands for."""
    if c >= 52:
        if c in state.joker_value:
            rank, colour = state.joker_value[c]
            return f"JK({RANK_NAMES[rank]}{_COLOUR_LETTER[colour]})"
        return "JK"
    text = card_name(c, symbols=True)
    return f"{_RED}{text}{_RESET}" if color and text[-1] in RED_SUITS else text


def pile_text(state: GameState, p: int, color: bool = False) -> str:
    """The cards of pile ``p`` bottom to top (shortened past ``MAX_SHOWN``), ``-`` when empty."""
    pile = state.piles[p]
    if not pile:
        return "-"
    shown = [card_text(state, c, color) for c in pile]
    if len(pile) > MAX_SHOWN:
        shown = shown[:2] + ["…"] + shown[-2:] + [f"({len(pile)})"]
    return " ".join(shown)


def _visible_len(text: str) -> int:
    return len(text.replace(_RED, "").replace(_RESET, ""))


def cross_lines(state: GameState, color: bool = False) -> list[str]:
    """The eight piles drawn as a cross (corners at the corners), the stock count in the middle;
    each column as wide as its widest pile."""
    cells = [[("stock", str(len(state.stock))) if name is None
              else (name, pile_text(state, PILE_NAMES.index(name), color)) for name in row] for row in _CROSS]
    widths = [max(MIN_WIDTH, *(_visible_len(body) for body in col)) for col in zip(*[[b for _, b in row] for row in cells], strict=True)]
    lines = []
    for row in cells:
        parts = [f"{label:>5} {body}" + " " * (width - _visible_len(body)) for (label, body), width in zip(row, widths, strict=True)]
        lines.append("  " + "   ".join(parts).rstrip())
    return lines


def render(state: GameState, viewer: int | None = None, *, totals: Sequence[float] | None = None,
           last_moves: Sequence[str] = (), names: Sequence[str] | None = None, color: bool = False) -> str:
    """The position as text, seen by seat ``viewer`` (None: every hand shown).

    ``totals`` are match totals by seat (shown when given), ``last_moves`` readable moves, oldest
    first (the last ``LAST_MOVES`` are shown), ``names`` the seat names (default ``player_i``).
    """
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    lines = [_title(state, names), ""] + cross_lines(state, color) + [""]
    width = max(len(nm) for nm in names) + 7
    for seat in range(n):
        label = names[seat] + (" (you)" if seat == viewer and not names[seat].endswith("(you)") else "")
        hand = state.hands[seat]
        line = f"{label:<{width}} {len(hand)} card{'s' if len(hand) != 1 else ''}"
        if viewer is None or seat == viewer:
            line += ": " + " ".join(card_text(state, c, color) for c in sorted(hand))
        if not state.is_over and seat == state.current_player:
            line += "  ← to act"
        if seat == state.winner:
            line += "  ← won the deal"
        lines.append(line)
    if totals is not None:
        lines.append("scores: " + " · ".join(f"{names[s]} {totals[s]:g}" for s in range(n)) + _target(state))
    if last_moves:
        lines.append("last moves: " + " · ".join(last_moves[-LAST_MOVES:]))
    return "\n".join(lines) + "\n"


def _title(state: GameState, names: Sequence[str]) -> str:
    rules = state.rules
    head = f"Kings in the Corner · {_rules_label(rules)} · {state.num_players} players"
    if state.is_over:
        result = "blocked" if state.blocked else "over"
        winner = "" if state.winner is None else f", {names[state.winner]} won"
        return f"{head} · deal {result}{winner}"
    flags = [f for f, on in (("drawn", state.drawn), ("played", state.played), ("moved", state.moved)) if on]
    extra = f" ({', '.join(flags)})" if flags else ""
    return f"{head} · {names[state.current_player]} to act{extra}"


def _rules_label(rules: Rules) -> str:
    """The nearest preset's name and the fields that differ from it: ``pagat (jokers=2)``."""
    mine = rules.to_dict()
    best: tuple[int, str, list[str]] | None = None
    for name in PRESETS:
        base = Rules.preset(name).to_dict()
        diff = [f"{k}={_show(v)}" for k, v in mine.items() if v != base[k]]
        if best is None or len(diff) < best[0]:
            best = (len(diff), name, diff)
    _, name, diff = best
    return f"{name} ({', '.join(diff)})" if diff else name


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _target(state: GameState) -> str:
    rules = state.rules
    if not rules.has_target:
        return ""
    return f" (target {rules.target})"


__all__ = ["render", "cross_lines", "pile_text", "card_text", "MAX_SHOWN"]
