"""``kc demo``: a full match of random legal moves, printed as text."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import add_rules_argument, positive_int

if TYPE_CHECKING:
    from ..rules import Rules

HELP = "play a full match of random legal moves and print it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_argument(parser)
    parser.add_argument("-n", "--players", type=int, default=2, help="2 to 6 (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="the match's seed: the same seed plays the same match (default 0)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the final scores")
    parser.add_argument("--max-deals", type=positive_int, default=500, help="stop a match that runs longer (default 500)")


def run(args: argparse.Namespace) -> int:
    """A full match of random legal moves, printed deal by deal (``--quiet``: scores only)."""
    import random

    from .. import engine
    from ..match import Match, play_deal

    rng = random.Random(args.seed)
    match = Match(args.rules, args.players, seed=args.seed)

    def choose(state, moves):
        return moves[rng.randrange(len(moves))]

    target = f", target {match.rules.target}" if match.rules.has_target else ""
    print(f"A match of {args.players} random players under {args.rules_name} "
          f"(scoring {match.rules.scoring}{target}), seed {args.seed}")
    while not match.is_over and match.deal_number < args.max_deals:
        state = match.new_deal()
        moves, cut = play_deal(state, choose)
        record = match.record_deal(state, truncated=cut, moves=moves)
        if not args.quiet:
            how = ("truncated" if cut else "blocked" if state.blocked else "out")
            winner = "no winner" if state.winner is None else f"player {state.winner} wins"
            print(f"\n--- deal {record.number + 1}: dealer {state.dealer}, {len(moves)} moves, {how}, {winner}")
            print(engine.to_text(state).rstrip())
            print(f"penalties {list(record.penalties)}  totals {list(match.totals)}")
    deals = f"{match.deal_number} deal{'s' * (match.deal_number != 1)}"
    print(f"\n=== {'match over' if match.is_over else 'stopped'} after {deals} ===")
    unit = _unit(match.rules)
    for seat, total in enumerate(match.totals):
        mark = "  <- wins" if seat in match.winners else ""
        print(f"  player {seat}: {total} {unit}{mark}")
    return 0


def _unit(rules: Rules) -> str:
    """What a match's totals count, by its scoring system."""
    if rules.plays_for_chips:
        return "chips"
    if rules.single_deal:
        return "won"
    if rules.counts_wins:
        return "deals won"
    return "penalty points"
