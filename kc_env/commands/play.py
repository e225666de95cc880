"""``kc play``: a person against agents in the terminal, a match scored to its target.

    kc play heuristic greedy --rules pagat      # you and two agents: three players

You see the table as your seat sees it (your hand, the piles, how many cards the others hold),
your legal moves numbered, and the others' moves as they happen. Type a number or a move
(``9H N``, ``move W N``, ``end``); an illegal move is refused with the reason. At the end of
each deal every hand is shown and the deal is scored.
"""

from __future__ import annotations

import argparse
import random
import sys

from .common import UserError, add_rules_argument, check_writable, note_other_tables, positive_int

HELP = "play against agents in the terminal"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("opponents", nargs="*", default=["heuristic"], metavar="AGENT",
                        help="the other players' agent specs, in seat order after you (default: heuristic); "
                             "your own agent as module:Class or path/to/file.py:Class")
    add_rules_argument(parser)
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 to players - 1 (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="the match's seed (default: a new one)")
    parser.add_argument("--one-deal", action="store_true", help="play one deal, not a whole match")
    parser.add_argument("--save", metavar="FILE", help="save the game as JSON for kc replay")
    parser.add_argument("--max-deals", type=positive_int, default=200, help="stop a match that runs longer")
    parser.add_argument("--max-moves", type=positive_int, default=1000, help="moves after which a deal is cut off")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")


def run(args: argparse.Namespace) -> int:
    """Play the match (or one deal) with the person at ``--seat``."""
    from .. import actions, engine, record
    from ..agents import objective_of
    from ..agents.human import HELP as HUMAN_HELP
    from ..agents.human import HumanAgent, QuitGame
    from ..benchmark.submission import load_any
    from ..match import Match
    from ..play import play_deal, tell
    from ..render import render

    n = 1 + len(args.opponents)
    args.rules.check_players(n)
    if not 0 <= args.seat < n:
        raise UserError(f"--seat must be 0 to {n - 1} with {n} players")
    check_writable(args.save, "--save")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    opponents = iter(args.opponents)
    agents: list = []
    names: list[str] = []
    players: list[str] = []  # the record's 'players': who sat at each seat
    for seat in range(n):
        if seat == args.seat:
            agents.append(None)
            names.append(f"p{seat}")  # render adds "(you)"
            players.append(record.PERSON)
            continue
        spec = next(opponents)
        players.append(spec)
        try:
            agents.append(load_any(spec, seed=seed + seat))
            tell(agents[-1], objective_of(args.rules, keeps_points=True))  # the screen shows the points
        except (ValueError, OSError) as exc:
            raise UserError(str(exc)) from None
        names.append(f"p{seat} {spec}")
    note_other_tables("play", agents, args.rules, n)
    color = sys.stdout.isatty() and not args.no_color
    match = Match(args.rules, n, seed=seed)
    say = _printer()
    say(f"Kings in the Corner: you (seat {args.seat}) against {', '.join(args.opponents)}; rules {args.rules_name}, "
        f"seed {seed}. {HUMAN_HELP}")
    state = None
    deal_moves: list = []
    truncated = False
    try:
        while not match.is_over and match.deal_number < args.max_deals:
            state = match.new_deal()
            deal_moves, last = [], []
            dealer = "you deal" if state.dealer == args.seat else f"{names[state.dealer]} deals"
            say(f"\n=== deal {match.deal_number + 1}: {dealer} ===")

            def show(obs, state=state, last=last):
                return "\n" + render(state, viewer=args.seat, totals=match.totals, last_moves=last, names=names,
                                     color=color).rstrip()

            def explain(action, state=state):
                return engine.why_illegal(state, actions.decode(action))

            agents[args.seat] = HumanAgent(read=input, write=say, show=show, explain=explain)

            def on_move(state, seat, obs, action, moves=deal_moves, last=last):
                move = actions.decode(action)
                moves.append(move)
                line = f"{'you' if seat == args.seat else names[seat]}: {engine.move_name(move)}"
                last.append(line)
                if seat != args.seat:
                    say("  " + line)

            truncated = play_deal(state, agents, args.max_moves, totals=match.totals, on_move=on_move)
            deal = match.record_deal(state, truncated=truncated, moves=deal_moves)
            _deal_over(say, state, deal.scored, names, truncated, render, color, match)
            if args.one_deal:
                break
    except (QuitGame, KeyboardInterrupt) as exc:
        say(f"\nstopped: {exc or 'interrupted'}")
        _save(args, match, state, deal_moves, truncated, players, finished=False)
        return 1
    _match_over(say, match, names, args.one_deal)
    _save(args, match, state, deal_moves, truncated, players, finished=True)
    return 0


def _printer():
    def say(text: str) -> None:
        print(text, flush=True)

    return say


def _deal_over(say, state, scored, names, truncated, render, color, match) -> None:
    how = "cut off" if truncated else "blocked" if state.blocked else "over"
    winner = "no winner" if state.winner is None else f"{names[state.winner]} won"
    say(f"\n--- the deal is {how}: {winner} ---")
    say(render(state, viewer=None, names=names, color=color).rstrip())
    say("points this deal: " + ", ".join(f"{names[s]} {p:+d}" for s, p in enumerate(scored.points)))
    say("totals: " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(match.totals)))


def _match_over(say, match, names, one_deal: bool) -> None:
    if one_deal and not match.is_over:
        say("\none deal played (--one-deal)")
        return
    deals = f"{match.deal_number} deal{'s' * (match.deal_number != 1)}"
    if not match.is_over:
        say(f"\nstopped after {deals} (--max-deals); leading: " + ", ".join(names[s] for s in match.leaders))
        return
    winners = ", ".join(names[s] for s in match.winners)
    say(f"\n=== the match is over after {deals}: {winners} "
        f"{'wins' if len(match.winners) == 1 else 'share the win'} ===")


def _save(args, match, state, deal_moves, truncated, players, finished: bool) -> None:
    """Save the deal (``--one-deal``) or the match's finished deals, naming who sat where."""
    from .. import record

    if not args.save:
        return
    if args.one_deal and state is not None:
        rec = record.GameRecord.from_state(state, deal_moves, truncated, players=players)
        moves = f"{len(deal_moves)} move{'s' * (len(deal_moves) != 1)}"
        what = "the game" if finished else f"the deal, stopped after {moves} (not finished),"
    else:
        rec = record.MatchRecord.from_match(match, players=players)
        what = "the game" if finished else "the finished deals"
    record.save(rec, args.save)
    print(f"saved {what} to {args.save}", flush=True)
