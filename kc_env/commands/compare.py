"""``kc compare PLAYER REFERENCE``: where two agents choose differently (``kc_env.compare``).

    kc compare models/ppo-standard-2p heuristic --deals 2000 --json compare.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from .common import UserError, add_rules_argument, check_writable, non_negative_int, positive_int

HELP = "where an agent plays otherwise than a reference agent: kinds of disagreement, examples"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", help="the agent that plays (a spec, an exported model's folder, or your own agent "
                                       "as module:Class or path/to/file.py:Class)")
    parser.add_argument("reference", help="the agent asked at each of the player's decisions")
    add_rules_argument(parser)
    parser.add_argument("-n", "--players", type=int, default=2, help="players at the table, 2 to 6 (default 2)")
    parser.add_argument("--deals", type=positive_int, default=500, help="deals to play (default 500)")
    parser.add_argument("--against", default=None, help="the opponents' spec (default: the reference)")
    parser.add_argument("--seed", type=int, default=0, help="the same seed gives the same results (default 0)")
    parser.add_argument("--examples", type=non_negative_int, default=1, help="example positions per kind (default 1)")
    parser.add_argument("--json", metavar="FILE", help="write the table and the examples as JSON")


def run(args: argparse.Namespace) -> int:
    from ..benchmark.submission import entry
    from ..compare import compare, report
    from ..rules import RulesError

    check_writable(args.json, "--json")
    try:  # a user's module:Class or file.py:Class is made here once (each role plays a copy); a spec is checked
        player, reference, against = (None if spec is None else entry(spec)
                                      for spec in (args.player, args.reference, args.against))
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None
    try:
        args.rules.check_players(args.players)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    result = replace(compare(player, reference, args.rules, args.players, deals=args.deals, against=against,
                             seed=args.seed, examples=args.examples),
                     player=args.player, reference=args.reference, against=args.against)  # named as given
    print(report(result, show_examples=args.examples > 0))
    if args.json:
        data = {"player": result.player, "reference": result.reference, "against": result.against or result.reference,
                "num_players": result.num_players,
                "deals": result.deals, "decisions": result.decisions, "agreed": result.agreed,
                "win_share": result.share, "kinds": result.rows(),
                "examples": {k: v.examples for k, v in result.kinds.items()}}
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
        print(f"\nwrote {args.json}")
    return 0
