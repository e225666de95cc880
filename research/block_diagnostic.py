"""Where a model's blocked deals against random come from (issue 35, items 2 and 3;
research/experiments.md, "2026-12-07 (late night): a start below the ceiling, and where the
random leg's blocks come from").

    python research/block_diagnostic.py MODEL --deals 300 --seed 92000000

MODEL plays one seat of each deal (every deal from both seats, standard rules, 2 players) against
random (or ``--opponent``) in the other, each seat's agent seeded by the deal. For every blocked
deal it reports how the model's last turn ended: idle (no card left its hand) while a card play was legal at the
turn's start (it chose to hold back), or idle with no card play open (forced); and whether the
model held fewer cards than the other seat when the deal blocked. The model's idle turns with the
stock empty are counted the same way, and the episodes in which the other seat passed a card play
it had with the stock empty (with two players the model then knows that seat's hand: a tell of
the opponent, if only one kind of player did it).
"""

from __future__ import annotations

import argparse
from collections import Counter

from kc_env import engine
from kc_env.actions import END_TURN_ACTION, MOVE_OFFSET
from kc_env.agents import load
from kc_env.play import play_deal
from kc_env.rules import Rules


def one_deal(model: str, seed: int, seat: int, counts: Counter, opponent: str = "random") -> None:
    """Play deal ``seed`` with ``model`` in ``seat`` and ``opponent`` in the other, adding to ``counts``."""
    learner, rnd = load(model), load(opponent)
    learner.reset(seed)
    rnd.reset(seed + 1)
    seats = [rnd, rnd]
    seats[seat] = learner
    state = engine.new_deal(Rules.preset("standard"), num_players=2, seed=seed)
    turn = {"could_play": None, "hand": 0}
    idles: list[bool] = []
    told = {"start": None, "hand": 0, "passed": False}

    def other_turn(st, obs, action):
        """The other seat's idle turns with a card play open while the stock is empty: with two
        players the stock empty, the model knows that seat's hand, so it sees such a pass."""
        if told["start"] is None:
            told["start"] = bool(obs["action_mask"][:MOVE_OFFSET].any())
            told["hand"] = len(st.hands[1 - seat])
        if action == END_TURN_ACTION:
            if told["start"] and not st.stock and len(st.hands[1 - seat]) >= told["hand"]:
                if not told["passed"]:
                    counts["the other seat passed a play it had, stock empty (episodes)"] += 1
                told["passed"] = True
            told["start"] = None

    def on_move(st, s, obs, action):
        if s != seat:
            other_turn(st, obs, action)
            return
        if turn["could_play"] is None:  # the turn's first move: what was open at its start
            turn["could_play"] = bool(obs["action_mask"][:MOVE_OFFSET].any())
            turn["hand"] = len(st.hands[s])
        if action == END_TURN_ACTION:
            if len(st.hands[s]) >= turn["hand"] and not st.stock:
                idles.append(turn["could_play"])
                counts["idle, stock empty, a card play open" if turn["could_play"] else "idle, stock empty, forced"] += 1
            turn["could_play"] = None

    play_deal(state, seats, on_move=on_move)
    counts["deals"] += 1
    if state.winner is None:
        counts["blocked"] += 1
        if told["passed"]:
            counts["blocked after the other seat passed a play it had"] += 1
        if idles:
            counts["blocked by its idle turn with a card play open" if idles[-1] else "blocked, its last idle forced"] += 1
        if len(state.hands[seat]) < len(state.hands[1 - seat]):
            counts["blocked while holding fewer cards than random"] += 1
    elif state.winner == seat:
        counts["won"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=92000000)
    parser.add_argument("--opponent", default="random", help="the other seat's agent (default: random)")
    args = parser.parse_args()
    counts: Counter = Counter()
    for d in range(args.deals):
        for seat in (0, 1):
            one_deal(args.model, args.seed + d, seat, counts, args.opponent)
    for key, n in counts.items():
        print(f"{key}: {n} ({n / counts['deals']:.3f} of the episodes)")


if __name__ == "__main__":
    main()
