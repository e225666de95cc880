"""Where two agents choose differently: ``kc compare PLAYER REFERENCE``.

``PLAYER`` plays deals against ``REFERENCE`` (or ``--against`` opponents) with its seat rotated,
as in a tournament. At every one of ``PLAYER``'s decisions, ``REFERENCE`` is asked too what it
would do in that position (a second instance that never plays, so its choice changes nothing).
The answer is a table of the kinds of disagreement, each with its count, its share of
``PLAYER``'s decisions and how ``PLAYER`` did in the deals where it happened, plus example
positions (written as text, ``engine.to_text``) with both moves.

Kinds of disagreement, in the game's words (``kind_of``):

- ``holds back``: ends the turn where the reference plays another card;
- ``ends before a pile move`` / ``moves a pile instead of ending`` / ``plays on``: one ends the
  turn, the other moves a pile / plays a card;
- ``other pile for the card``: the same card, onto another pile;
- ``another card``: both play, different cards;
- ``pile move first`` / ``card first``: one moves a pile, the other plays a card;
- ``another pile move``: both move piles, different ones.

A card play is further named by where it goes: ``side`` (onto a side pile), ``corner`` (onto a
corner pile), ``empty side`` (opens a side), ``empty corner`` (a king to a corner).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from . import actions, engine
from .agents import Agent
from .match import DEFAULT_MAX_MOVES, deal_winners, win_share
from .play import play_deal
from .rules import Rules
from .tournament import make_agent


def target_of(state: engine.GameState, move: engine.Move) -> str:
    """Where a card play goes: ``side``, ``corner``, ``empty side`` or ``empty corner``."""
    where = "side" if move.pile in engine.SIDES else "corner"
    return f"empty {where}" if not state.piles[move.pile] else where


def kind_of(state: engine.GameState, mine: engine.Move, theirs: engine.Move) -> str:
    """The kind of disagreement between two different moves in ``state`` (see the docstring)."""
    a, b = mine.kind, theirs.kind
    if a == "end":
        return "holds back" if b == "play" else "ends before a pile move"
    if b == "end":
        return "plays on" if a == "play" else "moves a pile instead of ending"
    if a == "play" and b == "play":
        if mine.card == theirs.card:
            return f"other pile for the card ({target_of(state, mine)} vs {target_of(state, theirs)})"
        return f"another card ({target_of(state, mine)} vs {target_of(state, theirs)})"
    if a == "move" and b == "move":
        return "another pile move"
    return "pile move first" if a == "move" else "card first"


@dataclass
class Kind:
    """One kind of disagreement: how often, and how the player's deals with it went."""

    count: int = 0
    deals: set[int] = field(default_factory=set)
    examples: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Comparison:
    """What ``compare`` found."""

    player: str
    reference: str
    num_players: int
    deals: int
    decisions: int
    agreed: int
    share: float  # the player's win share over all deals
    kinds: dict[str, Kind]
    deal_shares: dict[int, float]  # the player's win share in each deal
    against: str | None = None  # who sat in the other seats, when not the reference

    def rows(self) -> list[dict[str, Any]]:
        """One row per kind, most frequent first: count, share of decisions, deals, and the
        player's win share in those deals."""
        out = []
        for name, k in sorted(self.kinds.items(), key=lambda kv: -kv[1].count):
            shares = [self.deal_shares[d] for d in k.deals]
            out.append({"kind": name, "count": k.count, "per_decision": k.count / max(self.decisions, 1),
                        "deals": len(k.deals), "win_share_in_those_deals": sum(shares) / len(shares)})
        return out


def compare(player: str | Agent, reference: str | Agent, rules: Rules | str = "standard", num_players: int = 2,
            deals: int = 1000, against: str | Agent | None = None, seed: int = 0, examples: int = 2,
            max_moves: int = DEFAULT_MAX_MOVES) -> Comparison:
    """Play ``deals`` deals of ``player`` against ``against`` (default: ``reference``) in every
    other seat, the player's seat rotating, and ask ``reference`` at each of the player's
    decisions what it would have done. A spec is loaded and an ``Agent`` copied for each role
    (``tournament.make_agent``): no two seats share one."""
    rules = Rules.coerce(rules)
    me = make_agent(player, seed=seed)
    shadow = make_agent(reference, seed=seed + 1)
    others = [make_agent(against if against is not None else reference, seed=seed + 2 + s) for s in range(num_players)]
    rng = random.Random(seed)
    asked = _Shadow(shadow, examples)
    deal_shares: dict[int, float] = {}
    for d in range(deals):
        seat = d % num_players
        state = engine.new_deal(rules, num_players, seed=rng.randrange(2**63))
        for agent in [me, shadow, *others]:
            agent.reset(seed=rng.randrange(2**31))
        asked.deal, asked.seat = d, seat
        play_deal(state, [me if s == seat else others[s] for s in range(num_players)], max_moves, on_move=asked.on_move)
        deal_shares[d] = win_share(seat, deal_winners(state), num_players)
    return Comparison(str(player), str(reference), num_players, deals, asked.decisions, asked.agreed,
                      sum(deal_shares.values()) / deals, dict(asked.kinds), deal_shares,
                      None if against is None else str(against))


@dataclass
class _Shadow:
    """The reference, asked at each of the player's decisions (``play_deal``'s ``on_move``)."""

    agent: Agent
    examples: int
    deal: int = 0
    seat: int = 0
    decisions: int = 0
    agreed: int = 0
    kinds: dict[str, Kind] = field(default_factory=lambda: defaultdict(Kind))

    def on_move(self, state: engine.GameState, seat: int, obs: dict, mine: int) -> None:
        if seat != self.seat:
            return
        theirs = self.agent.act(obs)
        self.decisions += 1
        if mine == theirs:
            self.agreed += 1
            return
        kind = self.kinds[kind_of(state, actions.decode(mine), actions.decode(theirs))]
        kind.count += 1
        kind.deals.add(self.deal)
        if len(kind.examples) < self.examples:
            kind.examples.append({"position": engine.to_text(state), "player": actions.name(mine),
                                  "reference": actions.name(theirs)})


def report(c: Comparison, show_examples: bool = True) -> str:
    """The comparison as text."""
    lines = [f"kc compare: {c.player} vs {c.reference}, {c.num_players} players, {c.deals} deals"
             f"{'' if c.against is None else f' against {c.against}'}: "
             f"{c.decisions} decisions, {c.agreed / max(c.decisions, 1):.1%} the same as {c.reference}; "
             f"win share {c.share:.3f}", "",
             f"{'kind of disagreement':<56} {'count':>6} {'per decision':>12} {'deals':>6} {'win share there':>15}"]
    rows = c.rows()
    for r in rows:
        lines.append(f"{r['kind']:<56} {r['count']:>6} {r['per_decision']:>12.2%} {r['deals']:>6} "
                     f"{r['win_share_in_those_deals']:>15.3f}")
    if show_examples:
        for r in rows:
            for ex in c.kinds[r["kind"]].examples:
                lines += ["", f"{r['kind']}: {c.player} would {ex['player']} where {c.reference} would {ex['reference']}",
                          ex["position"].rstrip()]
    if not rows:
        lines.append("(no disagreement)")
    return "\n".join(lines)
