"""``kc replay FILE``: a saved game (``kc_env.record``: one deal or a whole match) move by move.

The table is drawn as dealt, every move is listed with its player, and the table is drawn again
after each turn (``--full``: after every move). ``--step`` waits for Enter between turns
(``q`` stops). ``--viewer SEAT`` shows only what that seat saw; by default every hand is open.
The seats are named as the record names them (``p0 (you)``, ``p1 heuristic``), else ``player_0``...
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

    try:
        rec = record.load(args.file)
    except OSError as exc:
        raise UserError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except record.RecordError as exc:
        raise UserError(str(exc)) from None
    try:
        played = record.replay(rec)  # the whole record is checked (moves, the end it claims) before anything is shown
    except record.RecordError as exc:
        raise UserError(f"{args.file}: {exc}") from None
    if args.viewer is not None and not 0 <= args.viewer < rec.num_players:
        raise UserError(f"--viewer must be a seat 0 to {rec.num_players - 1}")
    match = played if isinstance(rec, record.MatchRecord) else None
    cut_off = [record.deal_moves(rec, k).truncated for k in range(1, record.deal_count(rec) + 1)]
    names = seat_names(rec.players, rec.num_players, args.viewer)
    show = _Shower(args, sys.stdout.isatty() and not args.no_color, cut_off, names)
    print(f"kc replay {args.file}: a {'match' if match else 'deal'} of {rec.num_players} players, seed {rec.seed}, "
          f"{_rules_label(rec.rules)}", flush=True)
    for step in record.iter_replay(rec):
        if not show.step(step, match):
            return 0
    if match is not None and match.is_over:
        print(f"\n=== the match is over: {', '.join(names[s] for s in match.winners)} "
              f"{'wins' if len(match.winners) == 1 else 'share the win'}; totals {list(match.totals)} ===")
    elif match is not None:
        print(f"\n=== the record ends after {match.deal_number} deal{'s' * (match.deal_number != 1)}; "
              f"totals {list(match.totals)} ===")
    return 0


def seat_names(players, n: int, viewer: int | None = None) -> list[str]:
    """What the replay calls each seat: ``p0 (you)``, ``p1 heuristic`` when the record names who
    sat there (its ``players``), else ``player_0``, ``player_1``... Seen from another seat
    (``viewer``), the person's seat is ``p0 person``: only the viewer's seat is "you"."""
    if players is None:
        return [f"player_{s}" for s in range(n)]
    from ..record import PERSON

    you = [s for s, name in enumerate(players) if name == PERSON and viewer in (None, s)]
    return [f"p{s} (you)" if s in you else f"p{s} person" if name == PERSON else f"p{s} {name}"
            for s, name in enumerate(players)]


class _Shower:
    def __init__(self, args: argparse.Namespace, color: bool, cut_off: list[bool], names: list[str]) -> None:
        self.args = args
        self.color = color
        self.cut_off = cut_off  # by deal: whether the record says it was cut off
        self.names = names  # by seat

    def table(self, state, totals) -> None:
        from ..render import render

        print("\n" + render(state, viewer=self.args.viewer, totals=totals, names=self.names, color=self.color).rstrip(),
              flush=True)

    def step(self, step, match) -> bool:
        """Print one step of the replay (``record.Step``): the table as dealt, a move (and the
        table after each turn, or every move with ``--full``), the deal's result after its last
        move. False if the person stopped it (``--step``, ``q``)."""
        from .. import engine

        state = step.state
        totals = None if match is None else match.totals_before(step.deal - 1)
        if step.number == 0:
            if match is not None:
                print(f"\n=== deal {step.deal}: {self.names[state.dealer]} deals ===", flush=True)
            self.table(state, totals)
        else:
            print(f"{step.number:4}. {self.names[step.seat]}: {engine.move_name(step.move)}", flush=True)
            if self.args.full or step.last or state.current_player != step.seat:
                self.table(state, totals)
                if self.args.step and not self._pause():
                    return False
        if step.last:
            self.result(step, match)
        return True

    def _pause(self) -> bool:
        try:
            return input("[Enter: next, q: stop] ").strip().lower() not in ("q", "quit")
        except EOFError:
            return False

    def result(self, step, match) -> None:
        from .. import engine

        state = step.state
        if not state.is_over and not self.cut_off[step.deal - 1]:  # kc play --one-deal, quit part-way
            print(f"--- the deal was stopped after {step.number} move{'s' * (step.number != 1)} (not finished) ---",
                  flush=True)
            return
        truncated = state.is_over and self.cut_off[step.deal - 1]
        how = "cut off by the move limit" if truncated else "blocked" if state.blocked else "over"
        winner = "no winner" if state.winner is None else f"{self.names[state.winner]} won"
        text = f"--- the deal is {how}: {winner}"
        if state.is_over:
            text += f"; penalties {engine.deal_penalties(state)}"
        if match is not None:
            text += f"; totals {list(match.totals_before(step.deal))}"
        print(text + " ---", flush=True)


def _rules_label(rules) -> str:
    from ..rules import PRESETS, Rules

    for name in PRESETS:
        if Rules.preset(name) == rules:
            return f"rules {name}"
    return "custom rules"
