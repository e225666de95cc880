"""What the page draws, as JSON-ready data: cards, the table as a seat sees it, the legal moves.

Everything here only reads the engine's state; the page gets these values and draws them, and
holds no rule of its own: which piles light up comes from ``legal`` (the action mask), why a move
is refused from ``engine.why_illegal``.

A card is ``{"id": 22, "name": "10D", "rank": 10, "suit": "D", "red": true, "label": "10♦"}``;
a joker is ``{"id": 52, "name": "JK", "joker": true, "label": "JK"}``, and on a pile it also
carries the card it stands for (``"stands_for": "9 red"``). ``name`` is what the API reads and
writes (``play 10D->N``); what a person reads writes cards as the table draws them, with suit
symbols (``play 10♦ on N``: ``move_text``, ``with_symbols``). A hand is shown sorted by suit, then
rank (as ``kc play`` shows it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .. import actions, engine
from ..cards import COLOUR, RANK, RANK_NAMES, RED, SUIT, SUITS, card_name, parse_card
from ..engine import PILE_NAMES, GameState
from ..match import Match, starting_totals
from ..rules import Rules

_COLOUR_WORD = {0: "black", 1: "red", -1: "any colour"}


def card(state: GameState, c: int) -> dict[str, Any]:
    """One card as the page draws it (a joker on a pile says what it stands for)."""
    if c >= 52:
        out: dict[str, Any] = {"id": c, "name": "JK2" if c == 53 else "JK", "joker": True, "label": "JK"}
        if c in state.joker_value:
            rank, colour = state.joker_value[c]
            out["stands_for"] = f"{RANK_NAMES[rank]} {_COLOUR_WORD[colour]}"
        return out
    return {"id": c, "name": card_name(c), "rank": RANK[c], "suit": SUITS[SUIT[c]], "red": COLOUR[c] == RED,
            "label": card_name(c, symbols=True)}


def legal(state: GameState) -> list[dict[str, Any]]:
    """The legal moves of the player to act, from the action mask: each with its action index,
    its name and what it moves (``card`` and ``pile``, or ``src`` and ``dst``)."""
    out = []
    for a in actions.legal_actions(state):
        move = actions.decode(a)
        entry: dict[str, Any] = {"action": a, "name": actions.name(a), "kind": move.kind}
        if move.kind == "play":
            entry |= {"card": move.card, "pile": move.pile}
        elif move.kind == "move":
            entry |= {"src": move.src, "dst": move.dst}
        out.append(entry)
    return out


def log_entry(n: int, seat: int, move: engine.Move) -> dict[str, Any]:
    """One line of the move log: its number in the deal, who moved, the move's name (``play
    9H->N``) and its text (``play 9♥ on N``), and the piles it changed (so the page can mark them)."""
    piles = [move.pile] if move.kind == "play" else [move.src, move.dst] if move.kind == "move" else []
    return {"n": n, "seat": seat, "name": engine.move_name(move), "text": move_text(move), "piles": piles}


def move_text(move: engine.Move) -> str:
    """A move as a person reads it, its card as the table draws it: ``play 9♥ on N``, ``move W
    onto N``, ``end turn`` (a joker is ``JK``, as its face says)."""
    if move.kind == "play":
        return f"play {card_name(move.card, symbols=True)} on {PILE_NAMES[move.pile]}"
    if move.kind == "move":
        return f"move {PILE_NAMES[move.src]} onto {PILE_NAMES[move.dst]}"
    return "end turn"


_PILE = "|".join(sorted(PILE_NAMES, key=len, reverse=True))
_MOVE_NAME = re.compile(rf"\b(?:play (?:JK2?|(?:10|[2-9AJQK])[CDHS])|move (?:{_PILE}))->(?:{_PILE})\b")
_CARD_CODE = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b")


def with_symbols(text: str) -> str:
    """``text`` (an engine's reason, say) with each move name written as ``move_text`` writes it
    and each card code with its suit symbol: ``9H may not go on N`` reads ``9♥ may not go on N``."""
    text = _MOVE_NAME.sub(lambda m: move_text(engine.parse_move(m.group(0))), text)
    return _CARD_CODE.sub(lambda m: card_name(parse_card(m.group(0)), symbols=True), text)


def table(state: GameState, names: Sequence[str], open_hands: bool, viewer: int | None) -> dict[str, Any]:
    """The piles, the stock, every hand (its cards, sorted by suit then rank, when ``open_hands``
    or it is ``viewer``'s, else only its size) and whose turn it is."""
    hands = []
    for seat, hand in enumerate(state.hands):
        shown = open_hands or seat == viewer or state.is_over
        hands.append({"seat": seat, "name": names[seat], "count": len(hand),
                      "cards": [card(state, c) for c in sorted(hand)] if shown else None})
    return {
        "piles": [{"name": PILE_NAMES[p], "cards": [card(state, c) for c in pile]} for p, pile in enumerate(state.piles)],
        "stock": len(state.stock), "hands": hands, "to_act": None if state.is_over else state.current_player,
        "dealer": state.dealer, "drawn": state.drawn, "played": state.played, "moved": state.moved,
        "over": state.is_over, "winner": state.winner, "blocked": state.blocked, "move_count": state.move_count,
    }


def deal_result(state: GameState, names: Sequence[str], truncated: bool) -> dict[str, Any]:
    """How a finished deal ended, in words, with each seat's penalty (RULES.md 5.1)."""
    how = "cut off by the move limit" if truncated else "blocked" if state.blocked else "over"
    who = "no winner" if state.winner is None else f"{names[state.winner]} went out" if not state.blocked \
        else f"{names[state.winner]} wins with the fewest cards"
    return {"text": f"The deal is {how}: {who}.", "penalties": engine.deal_penalties(state), "truncated": truncated}


def match_books(match: Match, names: Sequence[str], upto: int | None = None) -> dict[str, Any]:
    """The match's totals, its deals so far (points and totals after each) and who leads or won;
    ``upto`` shows the books after that many deals (a replay part way through its match)."""
    history = match.history if upto is None else match.history[:upto]
    over = match.is_over and len(history) == len(match.history)
    if history:
        totals, pot = history[-1].scored.totals, history[-1].scored.pot
    else:
        totals, pot = starting_totals(match.rules, match.num_players), 0
    text = ""
    if over:
        winners = ", ".join(names[s] for s in match.winners)
        text = (f"The match is over after {len(history)} deal{'s' * (len(history) != 1)}: {winners} "
                f"{'wins' if len(match.winners) == 1 else 'share the win'}.")
    return {
        "totals": list(totals), "pot": pot, "over": over, "winners": list(match.winners) if over else [],
        "deals": [{"number": d.number + 1, "winner": d.winner, "blocked": d.blocked, "truncated": d.truncated,
                   "points": list(d.scored.points), "totals": list(d.scored.totals)} for d in history],
        "text": text,
    }


def scoring_text(rules: Rules) -> str:
    """The scoring and how the match ends in words (RULES.md 5), for the table's header, by the
    scoring questions ``Rules`` answers."""
    if rules.lowest_wins:
        return f"penalty table {rules.scoring}: lowest total wins once a total reaches {rules.target}"
    if rules.single_deal:
        return "single deal: its winner wins the match"
    if rules.plays_for_chips:
        pays = ("no pot: each deal's losers pay the winner their cards' penalty in chips"
                if rules.scoring == "card_chips" else "the winner takes the pot")
        return f"chips: {rules.chips} each, {pays}; over when someone cannot pay"
    if rules.counts_wins:
        return f"a point per deal won: first to {rules.target} wins"
    return f"winner collects the others' penalties ({rules.table} table): highest total wins at {rules.target}"


def rules_label(rules: Rules, name: str | None) -> str:
    """``pagat`` or ``pagat (jokers=2, draw=start)``: the preset and what differs from it."""
    from ..rules import PRESETS

    base = name if name in PRESETS else "standard"
    preset = Rules.preset(base).to_dict()
    changed = [f"{k}={v}" for k, v in rules.to_dict().items() if preset[k] != v]
    return base + (f" ({', '.join(changed)})" if changed else "")


__all__ = ["card", "legal", "log_entry", "move_text", "with_symbols", "table", "deal_result", "match_books", "scoring_text", "rules_label"]
