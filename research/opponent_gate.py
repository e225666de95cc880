"""Rankings of turns fitted against one opponent each, and an agent that picks between them by
what the opponent has shown (research/experiments.md, 2026-12-01, "against whom a turn is good"):

    python research/opponent_gate.py fit --heuristic-data runs/ranking-2p.npz --random-data runs/ranking-2p-random.npz --out runs/gate
    python research/opponent_gate.py tells --models runs/gate --deals 600
    python research/opponent_gate.py play --models runs/gate --episodes 2000 --seed 123

``fit``: ``fit_ranking_sets`` (linear) on the decisions labelled against the heuristic, and
again on those labelled against random (``turn_value_diagnostic.py ranking [--against random]
--save``); each is written as a turn-value model folder (``OUT/against-heuristic``,
``OUT/against-random``: ``kc eval`` plays them as they are), and each one's held-out gain over
the heuristic's pick is printed on both sets of labels.

``tells``: how often another seat has left a pile move open or a side empty at the start of the
seat's turn (``careless``), in deals against the heuristic and against random.

``play``: seat-rotated tournaments (``run_tournament``, duplicate deals) of the heuristic, each
ranking, and ``Gated`` against the heuristic and against random.

``fit`` also writes both as one model, ``OUT/gated`` (or ``--model``) (``turn_value.save`` with
``careless_layers``): the agent plays the heuristic's own turn for its first ``--patience``
turns, then the ranking fitted against the heuristic, until another seat leaves, at the start of
the agent's turn, a pile move or an empty side (``turn_value.careless``: the heuristic never
does), and from then on, for the rest of the deal, the ranking fitted against random. In
``play``, ``gated:K`` is that model with a patience of K turns.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kc_env.training.turn_value import learn as tv

from kc_env.agents.turn_value import TurnValueAgent, save
from kc_env.rules import Rules


def fit(args) -> None:
    sets = {"heuristic": tv.load_labels(args.heuristic_data)[0], "random": tv.load_labels(args.random_data)[0]}
    fitted = {}
    held = {k: tv.held_out(len(v)) for k, v in sets.items()}
    for against, rows in sets.items():
        layers, _ = tv.fit_ranking_sets([rows], hidden=(), steps=3000, weight_decay=1e-4, log=lambda _: None)
        save(Path(args.out) / f"against-{against}", layers, {
            "candidates": 6, "num_players": 2, "rules": Rules.preset("standard").to_dict(),
            "trained": {"method": "ranking", "label_against": [against], "decisions": len(rows)}})
        fitted[against] = layers
        out = {"fitted_against": against, "decisions": len(rows)}
        for on, data in sets.items():
            gain = tv.pick_gains(layers, data, held[on])
            out[f"held_out_gain_on_{on}_labels"] = [gain["gain"], gain["half_width"]]
        print(json.dumps(out), flush=True)
    save(Path(args.model or Path(args.out) / "gated"), fitted["heuristic"], {
        "candidates": 6, "num_players": 2, "rules": Rules.preset("standard").to_dict(),
        "trained": {"method": "ranking", "label_against": ["heuristic", "random"],
                    "decisions": {k: len(v) for k, v in sets.items()},
                    "command": "python research/opponent_gate.py fit " + " ".join(
                        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "what")}},
        careless_layers=fitted["random"], patience=args.patience)


def play(args) -> None:
    from kc_env.tournament import run_tournament

    entries = {"heuristic": "heuristic", "against-heuristic": str(Path(args.models) / "against-heuristic"),
               "against-random": str(Path(args.models) / "against-random"), "gated": str(Path(args.models) / "gated")}
    for name in args.agents.split(","):
        if name.startswith("gated:"):
            entries[name] = TurnValueAgent(Path(args.models) / "gated")
            entries[name].patience = int(name.partition(":")[2])
        for opponent in ("heuristic", "random"):
            res = run_tournament([entries[name], opponent], "standard", 2, deals=args.episodes, seed=args.seed,
                                 workers=args.workers)
            a = res.stats[0]
            print(json.dumps({"agent": name, "against": opponent, "episodes": res.episodes, "seed": args.seed,
                              "win_share": round(a.win_share, 4), "interval": [round(a.share_low, 4), round(a.share_high, 4)],
                              "win_rate": round(a.win_rate, 4), "blocked": round(a.blocked_share, 4),
                              "seconds": round(res.seconds)}), flush=True)


def tells(args) -> None:
    """How often ``careless`` holds at the start of a turn of the ranking fitted against the
    heuristic, after the other seat's turn, in deals against each opponent."""
    from kc_env import actions, agents, engine, observation
    from kc_env.agents.turn_value import careless

    for opponent in ("heuristic", "random"):
        turns = seen = 0
        for d in range(args.deals):
            me, other = TurnValueAgent(Path(args.models) / "against-heuristic"), agents.load(opponent, seed=d)
            state = engine.new_deal("standard", 2, seed=args.seed + d, dealer=0)
            seat = d % 2
            while not state.is_over and state.move_count < 1000:
                obs = {"observation": observation.encode(state, state.current_player), "action_mask": actions.legal_mask(state)}
                mine = state.current_player == seat
                if mine and not state.first_turn and not state.played and not state.moved:
                    turns += 1
                    seen += careless(obs["observation"], obs["action_mask"])
                engine.apply(state, actions.decode(me.act(obs) if mine else other.act(obs)))
        print(json.dumps({"against": opponent, "deals": args.deals, "seed": args.seed, "turn_starts": turns,
                          "careless_seen": seen, "share": round(seen / max(1, turns), 4)}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("fit")
    p.add_argument("--heuristic-data", required=True)
    p.add_argument("--random-data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--model", help="where to write the gated model (default OUT/gated)")
    p = sub.add_parser("play")
    p.add_argument("--models", required=True)
    p.add_argument("--episodes", type=int, default=2000)
    p.add_argument("--seed", type=int, default=123)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--agents", default="heuristic,against-heuristic,against-random,gated")
    p = sub.add_parser("tells")
    p.add_argument("--models", required=True)
    p.add_argument("--deals", type=int, default=600)
    p.add_argument("--seed", type=int, default=7_000_000)
    args = parser.parse_args(argv)
    {"fit": fit, "play": play, "tells": tells}[args.what](args)


if __name__ == "__main__":
    main()
