"""Export a run and evaluate the export the way the README reports it (``kc export``).

The model is written into a staging folder and put in place whole (``export_folder.staged``): a
failure leaves the old model, or none, never a torn one. It is then evaluated where it stands,
and the evaluation goes into its card atomically (``kc_env.files.write_atomic``), so a kill
during the evaluation leaves a whole model without one.

A folder that is already a model, of any format ``kc_env.agents.model_folder.FORMATS`` knows
(a turn-value run's ``RUN/model``, or an exported model given in place of a run), is checked as
its format reads it, copied and evaluated (``publish_model``).

The evaluation is ``kc eval``'s tournament (``kc_env.tournament``): seats rotated, duplicate
deals, Wilson 95% intervals. For each opponent spec the model plays against that agent in every
other seat; for comparison, ``heuristic`` is put in the model's place against the same
opponents (the baseline the model has to beat).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kc_env.agents import model_folder as folders
from kc_env.files import write_atomic
from kc_env.tournament import one_against_the_table

from . import config as config_mod
from .export import export
from .export_folder import staged

if TYPE_CHECKING:  # only the SB3 trainer imports SB3; the RLlib export uses this module too
    from sb3_contrib import MaskablePPO

BASELINE = "heuristic"


def model_of_run(run: Path, cfg: config_mod.TrainConfig) -> tuple[Path, MaskablePPO]:
    """The run's final model, or its newest checkpoint if it has not finished: the network of
    its config, with the tensors of ``final.pt`` or ``checkpoints/step_*.pt`` (read without
    pickle, ``training/checkpoint.py``; SB3's ``final.zip`` is never read)."""
    from .sb3 import checkpoint as checkpoint_mod  # SB3: imported only for an SB3 run

    candidates = [run / "final.pt"] + sorted((run / "checkpoints").glob("step_*.pt"), reverse=True)
    for path in candidates:
        if path.is_file():
            state = checkpoint_mod.read(path)
            model = checkpoint_mod.model_without_env(cfg, state["prior_weights"])
            return path, checkpoint_mod.restore(model, state, path)
    if (run / "final.zip").is_file():
        raise FileNotFoundError(f"{run}: only SB3 zips (final.zip), which kc does not read (loading one unpickles "
                                f"code); no final.pt or checkpoints/step_*.pt")
    raise FileNotFoundError(f"{run}: no final.pt and no checkpoint (is it a run folder made by kc train?)")


def evaluate_model(folder: Path, rules, num_players: int, against: list[str], deals: int, seed: int,
                   progress: bool) -> list[dict[str, Any]]:
    """One row per (player, opponent): the model, and the baseline in its place."""
    rows = []
    for opponent in against:
        for player in (str(folder), BASELINE):
            if player == BASELINE and opponent == BASELINE:
                continue
            stats = one_against_the_table(player, opponent, rules, num_players, deals=deals, seed=seed,
                                          progress=progress)
            rows.append({"player": "model" if player != BASELINE else BASELINE, "opponent": opponent,
                         "deals": stats.deals, "wins": stats.wins, "win_rate": stats.win_rate,
                         "interval": [stats.ci_low, stats.ci_high], "win_share": stats.win_share,
                         "share_interval": [stats.share_low, stats.share_high], "mean_penalty": stats.mean_penalty,
                         "blocked_share": stats.blocked_share, "fair_share": 1 / num_players})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The evaluation as a text table."""
    lines = [f"{'player':<10} {'against':<10} {'deals':>6} {'win rate':>9} {'95% interval':>16} "
             f"{'win share':>9} {'95% interval':>16} {'fair':>5} {'penalty':>8} {'blocked':>8}"]
    for r in rows:
        low, high = r["interval"]
        s_low, s_high = r["share_interval"]
        lines.append(f"{r['player']:<10} {r['opponent']:<10} {r['deals']:>6} {r['win_rate']:>9.3f} "
                     f"{f'[{low:.3f}, {high:.3f}]':>16} {r['win_share']:>9.3f} {f'[{s_low:.3f}, {s_high:.3f}]':>16} "
                     f"{r['fair_share']:>5.2f} {r['mean_penalty']:>8.2f} {r['blocked_share']:>8.3f}")
    lines.append("win share: wins, plus an equal share of every deal nobody won (blocked); fair = 1 / players")
    return "\n".join(lines)


def publish(run: Path, folder: Path, against: list[str], deals: int = 2000, seed: int = 0,
            progress: bool = True) -> tuple[Path, str]:
    """Export ``run`` to ``folder``, evaluate it, and write the results into its ``model.json``."""
    cfg = config_mod.load(run / "config.yaml")
    path, model = model_of_run(run, cfg)
    rules = cfg.rules_object()
    card = {"training_steps": int(model.num_timesteps), "trained_from": str(path),
            "config": cfg.to_dict(), "command": (run / "command.txt").read_text().strip()
            if (run / "command.txt").is_file() else None}
    with staged(folder) as stage:
        export(model, stage, card, rules, cfg.num_players)
    return folder, record_evaluation(run, folder, rules, cfg.num_players, against, deals, seed, progress)


def publish_turn_value(run: Path, folder: Path, against: list[str], deals: int = 2000, seed: int = 0,
                       progress: bool = True) -> tuple[Path, str]:
    """Copy a turn-value run's model (``RUN/model``) to ``folder``, checked, evaluate it, and write
    the results into its ``model.json`` (``publish_model``)."""
    if folders.format_of(run / "model") is not folders.TURN_VALUE:
        raise ValueError(f"{run}: no turn-value model in {run / 'model'} (kc train writes it after each iteration)")
    cfg = config_mod.load(run / "config.yaml")
    return publish_model(run / "model", folder, against, deals, seed, progress, rules=cfg.rules_object(),
                         num_players=cfg.num_players, source=run)


def publish_model(model: Path, folder: Path, against: list[str], deals: int = 2000, seed: int = 0,
                  progress: bool = True, rules=None, num_players: int | None = None,
                  source: Path | None = None) -> tuple[Path, str]:
    """Copy the model folder ``model``, of any registered format (``model_folder.FORMATS``), to
    ``folder`` and evaluate it there, at the table its card names (or ``rules`` and ``num_players``;
    a card that lists the ``tables`` it was trained at and names no single one: the first of them).
    The folder is loaded as its format loads it before it is copied and after (``ModelError``, a
    ValueError, names what is wrong); its files are copied card last; the evaluation's command
    names ``source`` (default ``model``)."""
    from kc_env.rules import Rules

    fmt = folders.identify(model)
    card = fmt.read_card(model)
    if rules is None or num_players is None:
        table = card if card.get("num_players") is not None else (card.get("tables") or [{}])[0]
        if not isinstance(table.get("rules"), dict) or table.get("num_players") is None:
            raise folders.ModelError(f"{model / folders.CARD_FILE}: the card names no table (rules, num_players, "
                                     "or tables) to evaluate it at")
        rules, num_players = Rules.from_dict(table["rules"]), table["num_players"]
    fmt.load(model)  # everything checked: the arrays too
    files = sorted(fmt.files, key=lambda name: name == folders.CARD_FILE)  # the card last
    with staged(folder) as stage:
        for name in files:
            write_atomic(stage / name, (model / name).read_bytes())
        fmt.load(stage)  # what was copied is what was checked
    again = Path(folder).resolve() == Path(model).resolve()  # evaluated in place: the command needs --overwrite
    return folder, record_evaluation(source or model, folder, rules, num_players, against, deals, seed, progress,
                                     also=" --overwrite" if again else "")


def publish_search(spec: str, folder: Path, against: list[str], deals: int = 2000, seed: int = 0,
                   progress: bool = True, num_players: int = 2, rules=None, rules_name: str = "standard") -> tuple[Path, str]:
    """Write a search model folder for the search spec ``spec`` (``kc_env.agents.search_folder.save``)
    set for ``num_players`` and ``rules`` (a ``Rules``), evaluate it, and write the results into
    its ``model.json``."""
    from kc_env.agents import search_folder
    from kc_env.rules import Rules

    rules = rules or Rules.preset("standard")
    rules.check_players(num_players)
    with staged(folder) as stage:
        search_folder.save(stage, spec, num_players, rules.to_dict())
    return folder, record_evaluation(spec, folder, rules, num_players, against, deals, seed, progress,
                                     also=f" -n {num_players} --rules {shlex.quote(rules_name)}")


def record_evaluation(run: Path | str, folder: Path, rules, num_players: int, against: list[str], deals: int, seed: int,
                      progress: bool, also: str = "") -> str:
    """Evaluate the exported ``folder`` (``evaluate_model``), write the results and the command that
    reproduces them (``kc export`` of ``run``, with the options ``also``) into its ``model.json``,
    and return them as a table."""
    rows = evaluate_model(folder, rules, num_players, against, deals, seed, progress)
    full = folders.card_json(folder / folders.CARD_FILE)
    full["evaluation"] = {"command": f"kc export {shlex.quote(str(run))} {folder}{also} --deals {deals} "
                                     f"--against {','.join(against)} --seed {seed}",
                          "method": "kc_env.tournament: seats rotated, duplicate deals, Wilson 95% intervals; "
                                    "win share = wins plus an equal share of every deal nobody won",
                          "results": rows}
    folders.write_card(folder, full)
    return table(rows)
