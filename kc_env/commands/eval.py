"""``kc eval``: a tournament between agent specs, as tables, a chart and JSON.

    kc eval heuristic greedy random --deals 2000 -n 4 --plot eval.png --json eval.json

Seats are rotated, all cores play deals in parallel, and the same ``--seed`` gives the same
results (``kc_env.tournament`` says how).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import (
    UserError,
    add_rules_argument,
    check_chart,
    check_writable,
    missing_extra,
    note_other_tables,
    positive_int,
)

HELP = "tournament between agents: win rates with 95% intervals, penalty points, ratings, a chart, JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT",
                        help="agent specs: random, greedy, heuristic, search, a shipped model ("
                             + ", ".join(_shipped_models()) + "), an exported model's folder, "
                             "or your own agent as module:Class or path/to/file.py:Class")
    add_rules_argument(parser)
    parser.add_argument("-n", "--players", type=int, default=2, help="players at the table, 2 to 6 (default 2)")
    parser.add_argument("--deals", type=positive_int, default=1000,
                        help="episodes to play, rounded up to whole rounds of seatings (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="the same seed gives the same results (default 0)")
    parser.add_argument("--workers", type=positive_int, default=None, help="processes (default: every core)")
    parser.add_argument("--match", action="store_true",
                        help="an episode is a whole match, not one deal (under a penalty table the agents then play for points)")
    parser.add_argument("--max-moves", type=positive_int, default=1000, help="moves after which a deal is cut off")
    parser.add_argument("--plot", metavar="PNG", help="write a chart of win rates and ratings (.png, .svg or .pdf)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--episodes-json", action="store_true", help="with --json, add every episode's result")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _shipped_models() -> list[str]:
    """The shipped models' names (``kc_env.models``' folders with a card), found without importing
    the agents (and numba), so ``kc eval --help`` stays fast."""
    from importlib.resources import files

    root = Path(str(files("kc_env.models")))
    return sorted(p.name for p in root.iterdir() if (p / "model.json").is_file())


def run(args: argparse.Namespace) -> int:
    """Play the tournament and print its tables; write the chart and JSON when asked."""
    from ..agents import Agent, load
    from ..benchmark.submission import entry
    from ..tournament import TournamentInterrupted, labels_for, run_tournament

    if args.episodes_json and not args.json:
        raise UserError("--episodes-json adds to the --json file: give --json FILE too")
    check_writable(args.json, "--json")
    check_chart(args.plot)
    missing = missing_extra("eval", ("matplotlib",)) if args.plot else None
    if missing:  # before any deal is played, not after
        raise UserError(f"--plot {missing}")
    unrated = missing_extra("eval", ("openskill",))
    if unrated:
        print(f"kc eval: no ratings (they {unrated})", file=sys.stderr)
    try:  # a user's module:Class or file.py:Class is made here once; a spec is checked here
        entries = [entry(spec) for spec in args.agents]
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None
    args.rules.check_players(args.players)
    note_other_tables("eval", [e if isinstance(e, Agent) else load(e, seed=0) for e in entries], args.rules,
                      args.players)
    try:
        result = run_tournament(entries, args.rules, args.players, args.deals, seed=args.seed,
                                workers=args.workers, match=args.match, max_moves=args.max_moves,
                                progress=not args.no_progress and sys.stderr.isatty(), labels=labels_for(args.agents),
                                ratings=not unrated)
    except TournamentInterrupted as stop:
        return _interrupted(stop, args)
    print(report(result, args.rules_name, markdown=args.markdown))
    if args.json:
        data = result.to_dict(episodes=args.episodes_json)
        data["rules_name"] = args.rules_name
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
        print(f"\nwrote {args.json}")
    if args.plot:
        plot(result, args.plot, args.rules_name)
        print(f"wrote {args.plot}")
    return 0


def _interrupted(stop, args: argparse.Namespace) -> int:
    """Ctrl-C: one line, and the tally of the whole rounds played so far (nothing is written)."""
    played = 0 if stop.result is None else stop.result.episodes
    unit = "matches" if args.match else "deals"
    print(f"\nkc eval: interrupted after {played} of {stop.planned} {unit}"
          + (f"; the tally of those {played} (whole rounds of seatings) follows" if played else ""), file=sys.stderr)
    if stop.result is not None:
        print(report(stop.result, args.rules_name, markdown=args.markdown))
    return 130


def _table(header: list[str], rows: list[list[str]], markdown: bool, right: set[int]) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    return "\n".join([line(header)] + [line(r) for r in rows]).rstrip()


def report(result, rules_name: str, markdown: bool = False) -> str:
    """The results as text: the table, the ratings and who finished ahead of whom."""
    unit, one = ("matches", "match") if result.match else ("deals", "deal")
    rounds = result.episodes // len(result.seatings)
    head = (f"kc eval: {result.num_players} players, rules {rules_name}, {result.episodes} {unit} "
            f"({len(result.seatings)} seatings x {rounds}), seed {result.seed}, "
            f"{result.workers} worker{'s' if result.workers != 1 else ''}, {result.seconds:.1f} s")
    penalty = "mean total" if result.match else "mean penalty"
    rows = [[s.agent, str(s.deals), str(s.wins), f"{s.win_rate:.3f}", f"{s.ci_low:.3f} - {s.ci_high:.3f}",
             f"{s.win_share:.3f}", f"{s.share_low:.3f} - {s.share_high:.3f}",
             f"{s.mean_penalty:.2f}", f"{s.blocked_share:.3f}"] for s in result.stats]
    table = _table(["agent", unit, "wins", "win rate", "95% interval", "win share", "95% interval", penalty,
                    "blocked"], rows, markdown, right={1, 2, 3, 5, 7, 8})
    ranked = sorted(result.stats, key=lambda s: -s.ordinal)
    ratings = _table(["agent", "mu", "sigma", "ordinal (mu - 3 sigma)"],
                     [[s.agent, f"{s.mu:.2f}", f"{s.sigma:.2f}", f"{s.ordinal:.2f}"] for s in ranked],
                     markdown, right={1, 2, 3})
    parts = [head, "", table, "", f"win share: wins, plus 1/{result.num_players} of every {one} nobody won "
             f"(fair share {1 / result.num_players:.3f})."]
    seats = _who_fills_the_seats(len(result.agents), result.num_players, unit)
    if seats:
        parts.insert(1, seats)
    if result.rated:
        parts += ["", "ratings (openskill, Plackett-Luce):", "", ratings]
    if len(result.agents) > 1:
        pair_rows = [[a] + ["-" if v is None else f"{v:.3f}" for v in row]
                     for a, row in zip(result.agents, result.pairwise, strict=True)]
        pairs = _table(["row ahead of column"] + result.agents, pair_rows, markdown,
                       right=set(range(1, len(result.agents) + 1)))
        parts += ["", f"share of shared {unit} the row agent finished ahead of the column agent "
                  "(winner first, then fewer penalty points; ties count half):", "", pairs]
    return "\n".join(parts)


def _who_fills_the_seats(agents: int, seats: int, unit: str) -> str | None:
    """One line saying how ``agents`` fill ``seats`` when their numbers differ (the tournament's
    ``lineups``), so that an agent's row counting more or fewer deals than the header reads
    right; None when each agent has one seat."""
    one = unit[:-1]
    if agents < seats:
        extra = seats - agents
        words = {1: "one", 2: "two", 3: "three", 4: "four"}
        twice = f"{words[extra]} of them twice" if extra < agents else "each of them more than once"
        return (f"{agents} agents at {seats} seats: every {one} seats each agent, {twice} (each takes the extra "
                f"seat{'s' if extra > 1 else ''} in turn); an agent's row counts a {one} once for each seat it held.")
    if agents > seats:
        group = "pair" if seats == 2 else f"group of {seats}"
        return (f"{agents} agents at {seats} seats: each {one} seats {seats} of them (every {group} in turn); "
                f"an agent's row counts the {unit} it sat in.")
    return None


def plot(result, path: str, rules_name: str) -> None:
    """A PNG: win rates with their 95% intervals, and the ratings with mu +- 3 sigma."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.agent for s in result.stats]
    rates = [s.win_rate for s in result.stats]
    err = [[s.win_rate - s.ci_low for s in result.stats], [s.ci_high - s.win_rate for s in result.stats]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.bar(names, rates, yerr=err, capsize=6, color="#4c72b0")
    ax1.axhline(1 / result.num_players, color="grey", linestyle="--", linewidth=1, label="1 / players")
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.set_ylim(0, 1)
    ax1.legend(loc="upper right")
    ax1.set_title("win rate per seat")
    mus = [s.mu for s in result.stats]
    ax2.errorbar(names, mus, yerr=[3 * s.sigma for s in result.stats], fmt="o", capsize=6, color="#dd8452")
    ax2.set_ylabel("openskill mu (bars: 3 sigma)")
    ax2.set_title("ratings")
    unit = "matches" if result.match else "deals"
    fig.suptitle(f"kc eval: {result.num_players} players, {rules_name}, {result.episodes} {unit}, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
