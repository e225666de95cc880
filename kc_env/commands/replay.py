"""``kc replay FILE``: a saved game (``kc_env.record``: one deal or a whole match) move by move.

The table is drawn as dealt, every move is listed with its player, and the table is drawn again
after each turn (``--full``: after every move). ``--step`` waits for Enter between turns
(``q`` stops). ``--viewer SEAT`` shows only what that seat saw; by default every hand is open.
"""

from __future__ import annotations

import argparse
import sys

from .common import UserError

HELP = "show a saved game (from kc play --save or kc_env.record) move by move"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a game or match record (JSON)")
    parser.add_argument("--full", action="store_true", help="draw the table after every move, not every turn")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each turn (q stops)")
    parser.add_argument("--viewer", type=int, default=None, help="show only this seat's hand")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")


def run(args: argparse.Namespace) -> int:
    """Replay the record in ``args.file``, printing it as it goes."""
    from .. import record
    from ..match import Match, truncate

    try:
        rec = record.load(args.file)
    except OSError as exc:
        raise UserError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except record.RecordError as exc:
        raise UserError(str(exc)) from None
    try:
        record.replay(rec)  # the whole record is checked (moves, the end it claims) before anything is shown
    except record.RecordError as exc:
        raise UserError(f"{args.file}: {exc}") from None
    if args.viewer is not None and not 0 <= args.viewer < rec.num_players:
        raise UserError(f"--viewer must be a seat 0 to {rec.num_players - 1}")
    show = _Shower(args, color=sys.stdout.isatty() and not args.no_color)
    kind = "match" if isinstance(rec, record.MatchRecord) else "deal"
    print(f"kc replay {args.file}: a {kind} of {rec.num_players} players, seed {rec.seed}, "
          f"{_rules_label(rec.rules)}", flush=True)
    try:
        if isinstance(rec, record.GameRecord):
            from .. import engine

            state = engine.new_deal(rec.rules, rec.num_players, seed=rec.seed, dealer=rec.dealer)
            if not show.deal(state, rec.moves, "", None):
                return 0
            if rec.truncated:
                truncate(state)
            show.result(state, rec.truncated, None)
            return 0
        match = Match(rec.rules, rec.num_players, rec.seed, rec.dealer)
        for k, deal in enumerate(rec.deals, start=1):
            state = match.new_deal()
            print(f"\n=== deal {k}: player_{state.dealer} deals ===", flush=True)
            if not show.deal(state, deal.moves, f"deal {k}, ", match.totals):
                return 0
            if deal.truncated:
                truncate(state)
            if not state.is_over:
                raise UserError(f"deal {k}: the moves stop before the deal ends")
            match.record_deal(state, truncated=deal.truncated, moves=deal.moves)
            show.result(state, deal.truncated, match)
        if match.is_over:
            print(f"\n=== the match is over: {', '.join(f'player_{s}' for s in match.winners)} "
                  f"{'wins' if len(match.winners) == 1 else 'share the win'}; totals {list(match.totals)} ===")
        else:
            print(f"\n=== the record ends after {match.deal_number} deals; totals {list(match.totals)} ===")
    except record.RecordError as exc:
        raise UserError(str(exc)) from None
    return 0


class _Shower:
    def __init__(self, args: argparse.Namespace, color: bool) -> None:
        self.args = args
        self.color = color

    def table(self, state, totals, last) -> None:
        from ..render import render

        print("\n" + render(state, viewer=self.args.viewer, totals=totals, color=self.color).rstrip(),
              flush=True)

    def deal(self, state, moves, where: str, totals) -> bool:
        """Print the deal move by move; False if the person stopped it (``--step``, ``q``)."""
        from .. import engine
        from ..record import RecordError

        self.table(state, totals, [])
        last: list[str] = []
        for i, move in enumerate(moves, start=1):
            seat = state.current_player
            try:
                engine.apply(state, move)
            except engine.IllegalMove as exc:
                raise RecordError(f"{where}move {i} ({engine.move_name(move)!r}): {exc}") from None
            line = f"player_{seat}: {engine.move_name(move)}"
            last.append(line)
            print(f"{i:4}. {line}", flush=True)
            turn_over = state.is_over or state.current_player != seat or i == len(moves)
            if self.args.full or turn_over:
                self.table(state, totals, last)
                if self.args.step and not self._pause():
                    return False
        return True

    def _pause(self) -> bool:
        try:
            return input("[Enter: next, q: stop] ").strip().lower() not in ("q", "quit")
        except EOFError:
            return False

    def result(self, state, truncated: bool, match) -> None:
        from .. import engine

        how = "cut off by the move limit" if truncated else "blocked" if state.blocked else "over"
        winner = "no winner" if state.winner is None else f"player_{state.winner} won"
        penalties = engine.deal_penalties(state) if state.is_over else None
        text = f"--- the deal is {how}: {winner}"
        if penalties is not None:
            text += f"; penalties {penalties}"
        if match is not None:
            text += f"; totals {list(match.totals)}"
        print(text + " ---", flush=True)


def _rules_label(rules) -> str:
    from ..rules import PRESETS, Rules

    for name in PRESETS:
        if Rules.preset(name) == rules:
            return f"rules {name}"
    return "custom rules"
