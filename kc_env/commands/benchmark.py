"""``kc benchmark``: score an agent on kc-bench's tasks (docs/benchmark.md).

    kc benchmark --list
    kc benchmark heuristic --tasks kc/standard-2p-vs-heuristic-v1 --json heuristic.json
    kc benchmark my_agent.py:MyAgent --quick

Each task plays its frozen evaluation shuffles from every seat of the agent against its frozen
opponents; the same command gives the same JSON on any machine and with any number of workers.
With ``--json FILE`` the run keeps each finished work unit in ``FILE.partial``; run the same
command again after an interrupt and it plays only the rest (``kc_env.benchmark.progress``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from .common import UserError, check_chart, check_writable, missing_extra, positive_int

HELP = "score an agent on the benchmark's versioned tasks: win shares with paired intervals, IQM, a scorecard"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", nargs="?", metavar="AGENT",
                        help="an agent spec (heuristic, search:..., a model folder or shipped model), "
                             "module:Class or path/to/file.py:Class")
    parser.add_argument("--list", action="store_true", help="list the suite's tasks and stop")
    parser.add_argument("--suite", default="kc-bench-v1", help="the suite (default kc-bench-v1)")
    parser.add_argument("--tasks", metavar="ID,...", help="task ids, comma-separated (default: every task)")
    parser.add_argument("--quick", action="store_true",
                        help="a few of each task's shuffles: a development figure, labelled quick, never to report")
    parser.add_argument("--workers", type=positive_int, default=None, help="processes (default: every core)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the scorecard JSON; until then FILE.partial keeps each finished piece of the "
                             "run (a few hundred deals), and the same command run again resumes from it")
    parser.add_argument("--md", metavar="FILE", help="write the scorecard as a Markdown table "
                                                     "(with --runs: the IQM and mean per track)")
    parser.add_argument("--plot", metavar="PNG", help="draw each task's relative share with its interval "
                                                      "(with --runs: the sample-efficiency curve); .png, .svg or .pdf")
    parser.add_argument("--runs", nargs="+", metavar="RUN",
                        help="instead of an agent: aggregate the benchmark scores of training runs (seeds of one "
                             "config): their run folders, or the scorecards of their final policies")
    parser.add_argument("--table", nargs="+", metavar="SCORECARD",
                        help="instead of an agent: one Markdown table of several scorecards (a row per task)")
    parser.add_argument("--baseline", metavar="SCORECARD",
                        help="with --runs: a scorecard JSON (kc benchmark --json) to give the probability of improvement over")


def run(args: argparse.Namespace) -> int:
    from .. import benchmark
    from ..benchmark import shuffles
    from ..benchmark.progress import partial_path
    from ..play import AgentError

    _check_options(args)
    try:
        tasks = benchmark.find(args.tasks, args.suite) if args.tasks is not None else benchmark.suite(args.suite)
        _, checksum = shuffles.load(args.suite)  # a damaged install (shuffles or lock) refused before any work
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if args.list:
        print(task_list(tasks))
        return 0
    if args.runs:
        return run_aggregate(args)
    if args.table:
        print(scorecards_table([_read_scorecard(path, "--table") for path in args.table]))
        return 0
    if not args.agent:
        raise UserError("name an agent to score (or --list the tasks)")
    _check_outputs(args)
    if args.plot and (missing := missing_extra("eval", ("matplotlib",))):
        raise UserError(f"--plot {missing}")
    print(f"kc benchmark: {args.agent} on {len(tasks)} task(s) of {args.suite}"
          f"{' (QUICK: a development figure, not for reporting)' if args.quick else ''}; "
          f"evaluation shuffles sha256 {checksum[:16]}", file=sys.stderr)
    partial = partial_path(args.json) if args.json else None
    try:
        card = benchmark.evaluate(args.agent, [t.id for t in tasks], args.suite, quick=args.quick,
                                  workers=args.workers, progress=sys.stderr.isatty(),
                                  report=lambda line: print(line, file=sys.stderr, flush=True), partial=partial)
    except KeyboardInterrupt:
        if partial is None or not partial.exists():
            raise
        print(f"\nkc benchmark: interrupted; the finished units are kept in {partial}: "
              "the same command goes on from them", file=sys.stderr)
        return 130
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except AgentError as exc:
        kept = f"; the finished units are kept in {partial}" if partial is not None and partial.exists() else ""
        raise UserError(f"{exc.headline}{kept}") from None
    card.command = command(sys.argv[2:] if sys.argv[1:2] == ["benchmark"] else sys.argv[1:])
    print(markdown(card.to_dict()))
    _write(args, card)
    if partial is not None:
        partial.unlink(missing_ok=True)
    return 0


def _check_options(args: argparse.Namespace) -> None:
    """Refuse options that the chosen mode would leave unread: ``--list``, ``--runs`` and
    ``--table`` each take only their own."""
    modes = [name for name, given in (("--list", args.list), ("--runs", args.runs), ("--table", args.table)) if given]
    if len(modes) > 1:
        raise UserError(f"give one of {', '.join(modes)}")
    unread = {"--list": ("agent", "quick", "workers", "json", "md", "plot", "baseline"),
              "--runs": ("tasks", "quick", "workers"),
              "--table": ("agent", "tasks", "quick", "workers", "json", "md", "plot", "baseline"),
              "": ("baseline",)}[modes[0] if modes else ""]
    for name in unread:
        if getattr(args, name) not in (None, False):
            option = "an agent" if name == "agent" else f"--{name}"
            raise UserError(f"{option} does not go with {modes[0] if modes else 'scoring an agent'}"
                            + (" (--baseline goes with --runs)" if name == "baseline" and not modes else ""))


def command(argv: list[str]) -> str:
    """The command a scorecard records: the arguments less ``--workers``, which does not change a
    figure (so a run resumed with other workers writes the same JSON)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--workers":
            skip = True
        elif not arg.startswith("--workers="):
            kept.append(arg)
    return "kc benchmark " + shlex.join(kept)


def _check_outputs(args: argparse.Namespace) -> None:
    """The files ``--json``, ``--md`` and ``--plot`` will write, checked before any work."""
    for path, option in ((args.json, "--json"), (args.md, "--md")):
        check_writable(path, option)
    check_chart(args.plot)


def run_aggregate(args: argparse.Namespace) -> int:
    """``kc benchmark --runs``: the runs' final IQM and mean over seeds, their curve, and the
    probability of improvement over ``--baseline``."""
    from ..benchmark import runs

    if args.agent:
        raise UserError("give an agent or --runs, not both")
    seen: dict[Path, str] = {}
    for run in args.runs:
        if (where := Path(run).resolve()) in seen:
            raise UserError(f"--runs names {seen[where]} twice (as {run}): each run counts once")
        seen[where] = run
    _check_outputs(args)
    baseline = _read_scorecard(args.baseline, "--baseline") if args.baseline else None
    try:
        report = runs.aggregate(args.runs, baseline)
    except runs.RunError as exc:
        raise UserError(str(exc)) from None
    if args.plot and not report["curve"]:
        raise UserError("--plot: runs given as scorecards of their final policies have no curve to draw")
    print(runs_text(report))
    _write_outputs(args, report, runs_table, plot_curve)
    return 0


def _read_scorecard(path: str, option: str) -> dict:
    """The scorecard ``path`` given to ``option``, read and checked (``runs.read_scorecard``)."""
    from ..benchmark import runs

    try:
        return runs.read_scorecard(path)
    except runs.RunError as exc:
        raise UserError(f"{option} {exc}") from None


def scorecards_table(cards: list[dict]) -> str:
    """Several scorecards side by side: a row per task (and pool member), a column per agent,
    each cell the win share and its 95% interval; then the aggregates' IQM."""
    if len({(c["suite"], c["quick"]) for c in cards}) != 1:
        raise UserError("--table: the scorecards are of different suites or deal counts")
    rows: dict[str, list[str]] = {}
    for k, card in enumerate(cards):
        for t in card["tasks"]:
            cells = [(t["id"], t)] + [(f"{t['id']} vs {o}", f) for o, f in t.get("per_opponent", {}).items()]
            for name, f in cells:
                rows.setdefault(name, [""] * len(cards))[k] = f"{f['win_share']:.3f} [{f['low']:.3f}, {f['high']:.3f}]"
        for name, agg in card["aggregates"].items():
            iqm = agg["iqm"]
            rows.setdefault(f"IQM relative share: {name}", [""] * len(cards))[k] = (
                f"{iqm['value']:.3f} [{iqm['low']:.3f}, {iqm['high']:.3f}]")
    head = "| task | " + " | ".join(f"`{c['agent']}`" for c in cards) + " |"
    lines = [head, "|---|" + "---:|" * len(cards)]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows.items()]
    if cards[0]["quick"]:
        lines.append("\nQUICK scorecards (--quick): development figures, not for reporting")
    return "\n".join(lines)


def runs_table(report: dict) -> str:
    """The runs' report as a Markdown table: a row for all tasks and one per track (the
    rule-generalisation track's train and held-out tables apart), each with its task count and the
    IQM and mean of the relative share over runs x tasks with their 95% intervals."""
    def cell(agg: dict) -> str:
        return f"{agg['value']:.3f} [{agg['low']:.3f}, {agg['high']:.3f}]"

    rows = [("all", len(report["tasks"]), report["iqm"], report["mean"])]
    rows += [(name, len(g["tasks"]), g["iqm"], g["mean"]) for name, g in report["groups"].items()]
    lines = ["| track | tasks | IQM relative share [95%] | mean [95%] |", "|---|---:|---|---|"]
    return "\n".join(lines + [f"| {name} | {n} | {cell(iqm)} | {cell(mean)} |" for name, n, iqm, mean in rows])


def runs_text(report: dict) -> str:
    quick = " (quick: not for reporting)" if report["quick"] else ""
    steps = report["final_steps"]
    ends = "final policies' scorecards" if None in steps else f"final steps {', '.join(map(str, steps))}"
    lines = [f"{len(report['runs'])} runs on {len(report['tasks'])} task(s) of {report['suite']}{quick}, {ends}"]
    for name in ("iqm", "mean"):
        agg = report[name]
        lines.append(f"{name.upper():>4} relative share {agg['value']:.3f} [{agg['low']:.3f}, {agg['high']:.3f}] "
                     "(95%, stratified bootstrap over runs)")
    for group, agg in report["groups"].items():
        iqm = agg["iqm"]
        lines.append(f"  {group} ({len(agg['tasks'])} task(s)): IQM {iqm['value']:.3f} "
                     f"[{iqm['low']:.3f}, {iqm['high']:.3f}]")
    if "improvement" in report:
        imp = report["improvement"]
        lines.append(f"P(a run beats {imp['baseline']}) {imp['value']:.3f} [{imp['low']:.3f}, {imp['high']:.3f}] "
                     f"over {len(imp['tasks'])} task(s)")
    for task, value in report["per_task_mean"].items():
        lines.append(f"  {task}: mean relative share {value:.3f}")
    return "\n".join(lines)


def plot_curve(report: dict, path: str) -> None:
    """The IQM of the runs' relative share at each step, with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [p["step"] for p in report["curve"]]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, [p["value"] for p in report["curve"]], marker="o")
    ax.fill_between(steps, [p["low"] for p in report["curve"]], [p["high"] for p in report["curve"]], alpha=0.25)
    ax.axhline(1.0, color="grey", lw=1, ls="--")
    ax.set_xlabel("training steps")
    ax.set_ylabel("IQM relative share (95% interval)")
    ax.set_title(f"{len(report['runs'])} runs on {len(report['tasks'])} task(s) of {report['suite']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _write(args: argparse.Namespace, card) -> None:
    _write_outputs(args, card.to_dict(), markdown, plot)


def _write_outputs(args: argparse.Namespace, data: dict, table, draw) -> None:
    """``data`` (a scorecard or a runs report) to ``--json``, ``table(data)`` to ``--md`` and
    ``draw(data, path)`` to ``--plot``, each that was given, saying what it wrote."""
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.md:
        Path(args.md).write_text(table(data) + "\n")
        print(f"wrote {args.md}")
    if args.plot:
        draw(data, args.plot)
        print(f"wrote {args.plot}")


def task_list(tasks) -> str:
    """One line per task: id, tracks, split, table, opponents, evaluation deals."""
    rows = [("task", "tracks", "split", "rules", "seats", "opponents", "shuffles", "deals", "quick deals")]
    for t in tasks:
        seatings = t.num_players * len(t.members)
        rows.append((t.id, ",".join(t.tracks), t.split or "-", t.rules, str(t.num_players),
                     ("pool: " if t.pool else "") + ",".join(dict.fromkeys(t.opponents)),
                     str(t.shuffles), str(t.shuffles * seatings), str(t.quick_shuffles * seatings)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + ("\n(the agent takes every seat in turn; deals = shuffles x seatings; quick deals: "
                               "with --quick)")


def markdown(data: dict) -> str:
    """The scorecard as Markdown: a row per task, then the aggregates."""
    quick = " (quick: not for reporting)" if data["quick"] else ""
    lines = [f"**{data['agent']}** on {data['suite']}{quick}; evaluation shuffles sha256 "
             f"`{data['evaluation_shuffles']['sha256'][:16]}`", "",
             "| task | split | deals | win share | 95% interval | relative | penalty | blocked |",
             "|---|---|---:|---:|---|---:|---:|---:|"]
    for t in data["tasks"]:
        lines.append(f"| {t['id']} | {t['split'] or ''} | {t['deals']} | {t['win_share']:.3f} | "
                     f"[{t['low']:.3f}, {t['high']:.3f}] | {t['relative_share']:.2f} | {t['mean_penalty']:.2f} | "
                     f"{t['blocked_share']:.3f} |")
        for opponent, f in t.get("per_opponent", {}).items():
            lines.append(f"| &nbsp;&nbsp;vs {opponent} | | {f['deals']} | {f['win_share']:.3f} | "
                         f"[{f['low']:.3f}, {f['high']:.3f}] | | {f['mean_penalty']:.2f} | {f['blocked_share']:.3f} |")
    lines += ["", "| tasks | count | IQM relative share | 95% interval | mean | 95% interval |", "|---|---:|---:|---|---:|---|"]
    for name, agg in data["aggregates"].items():
        iqm, mean = agg["iqm"], agg["mean"]
        lines.append(f"| {name} | {agg['tasks']} | {iqm['value']:.3f} | [{iqm['low']:.3f}, {iqm['high']:.3f}] | "
                     f"{mean['value']:.3f} | [{mean['low']:.3f}, {mean['high']:.3f}] |")
    return "\n".join(lines)


def plot(data: dict, path: str) -> None:
    """Each task's relative share with its interval; the fair share (1) as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = data["tasks"]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(tasks) + 1.2))
    for i, t in enumerate(tasks):
        fair = t["fair_share"]
        ax.errorbar(t["relative_share"], i, xerr=[[t["relative_share"] - t["low"] / fair], [t["high"] / fair - t["relative_share"]]],
                    fmt="o", color="tab:red" if t["split"] == "held-out" else "tab:blue", capsize=3)
    ax.axvline(1.0, color="grey", lw=1, ls="--")
    ax.set_yticks(range(len(tasks)), [t["id"] for t in tasks], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("relative share (win share / fair share), 95% paired interval; red: held-out tables")
    ax.set_title(f"{data['agent']} on {data['suite']}" + (" (quick)" if data["quick"] else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
