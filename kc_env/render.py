"""Text drawing of a position: the cross of piles, the stock, hands, scores and the last moves.

``render(state, viewer=seat)`` shows what that seat sees: its own hand, the other hands as card
counts. ``viewer=None`` shows every hand (for watching agents play, never for a person playing
against them). ``color=True`` paints red suits with ANSI escape codes. A pile of more than
``MAX_SHOWN`` cards is shortened to its two bottom cards, ``…``, its two top cards and its
length. A joker on a pile shows the card it stands for: ``JK(9r)`` is a joker standing for a red
9 (``b`` black, ``*`` no colour). Example (``viewer=0``, two players)::

    Kings in the Corner · standard · 2 players · player_1 to act (drawn)

       NW -                    N 6♦                    NE K♥
        W J♣               stock 33                     E 4♣ 3♦
       SW -                    S 8♥ 7♠                 SE -

    player_0 (you)  7 cards: A♣ 2♣ 8♣ A♦ 2♦ 5♥ 10♠
    player_1        8 cards  ← to act
    last moves: player_0 play 7S->S · player_0 end turn
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import RANK_NAMES, card_name
from .engine import PILE_NAMES, GameState
from .rules import PRESETS, Rules

MAX_SHOWN = 6
LAST_MOVES = 6
RED_SUITS = "♥♦"
_RED, _RESET = "\x1b[31m", "\x1b[0m"
_CROSS = (("NW", "N", "NE"), ("W", None, "E"), ("SW", "S", "SE"))
_COLOUR_LETTER = {0: "b", 1: "r", -1: "*"}
_CELL = 26


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


def _cell(label: str, body: str) -> str:
    text = f"{label:>5} {body}"
    return text + " " * max(1, _CELL - _visible_len(text))


def cross_lines(state: GameState, color: bool = False) -> list[str]:
    """The eight piles drawn as a cross (corners at the corners), the stock count in the middle."""
    lines = []
    for row in _CROSS:
        cells = []
        for name in row:
            if name is None:
                cells.append(_cell("stock", str(len(state.stock))))
            else:
                cells.append(_cell(name, pile_text(state, PILE_NAMES.index(name), color)))
        lines.append("  " + "".join(cells).rstrip())
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
        label = names[seat] + (" (you)" if seat == viewer else "")
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
    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    return "custom rules"


def _target(state: GameState) -> str:
    rules = state.rules
    if rules.scoring in ("single", "chips") or rules.target is None:
        return ""
    return f" (target {rules.target})"


__all__ = ["render", "cross_lines", "pile_text", "card_text", "MAX_SHOWN"]
